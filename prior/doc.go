// Package prior reads and writes integer priors in the tensor-file forms of
// prior-carriage: safetensors (§9.1), GGUF version 3 (§9.2) and the NNC
// subset (§12, Appendix A), each with its canonical writer (§11), and loads
// a file of the wai-int/1 profile (§10) into the native artifact (WHM1 or
// WSR1, docs/READINGS.md D-D) that the kernels read, byte for byte.
//
// Use it to turn a pinned prior file into the native bytes a decoder reads
// (Load), to make the canonical file of a native artifact (Encode), or to
// read any file of the three forms (Read). It does not read floating-point
// values: a floating-point tensor's bytes are handed over as they stand.
// Every refusal is a *refusal.Error carrying a code of §13.
//
// # Readings
//
// Besides D-D and F, this package reads the spec so where its
// text leaves a choice (a conformance report should name these):
//
//   - §12.1: a bitstream with no NNR_MPS is nnc_malformed; a unit of a
//     reserved type (7 to 63) is nnc_not_read, naming the type.
//   - Appendix A: every context the payload does not initialise, the one
//     numbered L − 2 among them, starts at initialisation 0 (the measured
//     implementation's default).
//   - §9.2 step 3: a count's least size is compared with the whole file's
//     length, as the text says (step 5 compares an array's with the bytes
//     left); step 6: each dimension is checked non-zero as it is read, the Q8_0 and
//     size rules after the offset; step 7: the padding bytes present are
//     checked zero before the file's end is.
//   - §9.1 step 7: with no tensors the data is empty; tensors of no bytes
//     order by (begin, end).
//   - Writers (§11, §12.3): a type the form has no name for is dtype_unknown
//     (NNC names I8 to I64 and F32); a name, rank or shape the form cannot
//     describe is tensor_malformed.
//   - Encoding (§10.3): the binding is the native artifact's magic (WHM1,
//     WSR1; anything else is native_malformed); the artifact is read first
//     (native_malformed), then its structure (binding_mismatch), then its
//     values pass §10.3 step 5 (value_out_of_range), so no file is written
//     that a sink would refuse. A WHM1 of no layers has a tensor form.
//   - §10.3 step 4: under NNC every type is I32 and step 5 bounds each value
//     by the binding's type; a wsr1/1 weight of no dimensions is
//     binding_mismatch; for whm1/1, every index a name layer.NNN.… gives
//     must have its kind tensor; a layer index not in plain decimal
//     (wsr1/1) or not three digits (whm1/1) names no layer and fails the
//     exact-names check.
package prior

import "github.com/waiops/waiops/refusal"

// The refusal codes of prior-carriage §13.
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
