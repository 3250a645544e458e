// Package prior reads and writes integer priors in the tensor-file forms of
// prior-carriage.md: safetensors (§9.1), GGUF version 3 (§9.2) and the NNC
// subset (§12, Appendix A), each with its canonical writer (§11), and loads
// a file of the wai-int/1 profile (§10) into the native artifact (WHM1 or
// WSR1, DECISIONS.md D) that the kernels read, byte for byte.
//
// Use it to turn a pinned prior file into the native bytes a decoder reads
// (Load), to make the canonical file of a native artifact (Encode), or to
// read any file of the three forms (Read). It does not read floating-point
// values: a floating-point tensor's bytes are handed over as they stand.
// Every refusal is a *refusal.Error carrying a code of §13.
package prior

import "github.com/waiops/waiops/refusal"

// The refusal codes of prior-carriage.md §13.
const (
	HeaderTruncated    refusal.Code = "header_truncated"
	HeaderTooLarge     refusal.Code = "header_too_large"
	HeaderMalformed    refusal.Code = "header_malformed"
	BadMagic           refusal.Code = "bad_magic"
	VersionUnsupported refusal.Code = "version_unsupported"
	TensorMalformed    refusal.Code = "tensor_malformed"
	DTypeUnknown       refusal.Code = "dtype_unknown"
	OffsetMismatch     refusal.Code = "offset_mismatch"
	HeaderNotCanonical refusal.Code = "header_not_canonical"
	NNCTruncated       refusal.Code = "nnc_truncated"
	NNCMalformed       refusal.Code = "nnc_malformed"
	NNCNotRead         refusal.Code = "nnc_not_read"
	ProfileAbsent      refusal.Code = "profile_absent"
	BindingUnknown     refusal.Code = "binding_unknown"
	DTypeNotInteger    refusal.Code = "dtype_not_integer"
	BindingMismatch    refusal.Code = "binding_mismatch"
	ValueOutOfRange    refusal.Code = "value_out_of_range"
	NativeMalformed    refusal.Code = "native_malformed"
)

// Codes lists every code of §13 in the table's order.
var Codes = []refusal.Code{
	HeaderTruncated, HeaderTooLarge, HeaderMalformed, BadMagic, VersionUnsupported,
	TensorMalformed, DTypeUnknown, OffsetMismatch, HeaderNotCanonical, NNCTruncated,
	NNCMalformed, NNCNotRead, ProfileAbsent, BindingUnknown, DTypeNotInteger,
	BindingMismatch, ValueOutOfRange, NativeMalformed,
}
