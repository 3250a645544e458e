// Package refusal is the one error type every waiops package uses to refuse
// input: a code from the spec's closed set and a reason a person can read.
//
// Match it with errors.As:
//
//	var r *refusal.Error
//	if errors.As(err, &r) && r.Code == refusal.ModelMismatch { ... }
package refusal

import "fmt"

// Code is a refusal code exactly as the specs spell it.
type Code string

// The codes of integer-operators (§4, §5E, §10.5).
const (
	ModelMismatch    Code = "model_mismatch"
	TooLarge         Code = "too_large"
	FieldRange       Code = "field_range"
	GeometryMismatch Code = "geometry_mismatch"
	PayloadMalformed Code = "payload_malformed"
)

// Error is a refusal. At is the stage-operator refusal index of §14.1 where
// one applies; it is ignored elsewhere.
type Error struct {
	Code Code
	Msg  string
	At   int64
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Msg }

// New returns a refusal with a formatted reason.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// NewAt returns a stage refusal carrying the §14.1 index at.
func NewAt(code Code, at int64, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), At: at}
}
