// Package spectest is test support shared by every package's fuzz and
// allocation tests: the closed set of refusal codes the specs define, a check
// that an error is a refusal carrying one of them, a measure of what a call
// allocates, and fuzz seeds from a committed corpus. Only tests import it; it imports nothing of the project but
// package refusal, so any package's internal tests can use it.
package spectest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// Source is where a code is defined.
type Source struct {
	Spec    string // integer-operators, prior-carriage or DECISIONS
	Section string
}

// Codes is the closed set of refusal codes: integer-operators §4 and §5E,
// prior-carriage's two refusal tables (§13, §20), the SPEC §3.1 codes it
// names (§2, §7), and the stand-ins of READINGS D-H10. TestCodesMatchSpec
// reads the spec texts, where they are at hand, and keeps this in step.
var Codes = map[refusal.Code]Source{
	// integer-operators §4 refusal points and §5E conditions.
	"model_mismatch":      {"integer-operators", "§4"},
	"too_large":           {"integer-operators", "§4"},
	"field_range":         {"integer-operators", "§4"},
	"geometry_mismatch":   {"integer-operators", "§4"},
	"payload_malformed":   {"integer-operators", "§4"},
	"stream_exhausted":    {"integer-operators", "§5E"},
	"stream_noncanonical": {"integer-operators", "§5E"},

	// prior-carriage §13.
	"header_truncated":     {"prior-carriage", "§13"},
	"header_too_large":     {"prior-carriage", "§13"},
	"header_malformed":     {"prior-carriage", "§13"},
	"bad_magic":            {"prior-carriage", "§13"},
	"version_unsupported":  {"prior-carriage", "§13"},
	"tensor_malformed":     {"prior-carriage", "§13"},
	"dtype_unknown":        {"prior-carriage", "§13"},
	"offset_mismatch":      {"prior-carriage", "§13"},
	"header_not_canonical": {"prior-carriage", "§13"},
	"nnc_truncated":        {"prior-carriage", "§13"},
	"nnc_malformed":        {"prior-carriage", "§13"},
	"nnc_not_read":         {"prior-carriage", "§13"},
	"profile_absent":       {"prior-carriage", "§13"},
	"binding_unknown":      {"prior-carriage", "§13"},
	"dtype_not_integer":    {"prior-carriage", "§13"},
	"binding_mismatch":     {"prior-carriage", "§13"},
	"value_out_of_range":   {"prior-carriage", "§13"},
	"native_malformed":     {"prior-carriage", "§13"},

	// prior-carriage §20.
	"plan_malformed":       {"prior-carriage", "§20"},
	"set_usage_malformed":  {"prior-carriage", "§20"},
	"sealed_malformed":     {"prior-carriage", "§20"},
	"sealed_inner_form":    {"prior-carriage", "§20"},
	"set_key_absent":       {"prior-carriage", "§20"},
	"set_key_mismatch":     {"prior-carriage", "§20"},
	"tree_head_malformed":  {"prior-carriage", "§20"},
	"tree_inner_form":      {"prior-carriage", "§20"},
	"tree_root_mismatch":   {"prior-carriage", "§20"},
	"tree_piece_mismatch":  {"prior-carriage", "§20"},
	"tree_digest_mismatch": {"prior-carriage", "§20"},

	// SPEC §3.1 codes prior-carriage names outside its tables.
	"form_not_registered": {"prior-carriage", "§2"},
	"set_incomplete":      {"prior-carriage", "§7"},

	// READINGS D-H10: stand-ins for http-delivery §13, and SPEC §3.1's.
	"set_location_unavailable": {"DECISIONS", "H10"},
	"content_coding_present":   {"DECISIONS", "H10"},
	"content_range_mismatch":   {"DECISIONS", "H10"},
	"set_too_large":            {"DECISIONS", "H10"},
	"set_digest_mismatch":      {"DECISIONS", "H10"},
	"dcz_malformed":            {"DECISIONS", "H10"},
	"dcz_dictionary_mismatch":  {"DECISIONS", "H10"},
	"dcz_window_too_large":     {"DECISIONS", "H10"},
	"prior_not_held":           {"DECISIONS", "H10"},
	"form_unreadable":          {"DECISIONS", "H10"},
}

// Refusal fails t unless err is a refusal whose code is in Codes and, when
// any are given, one of allowed. It returns the refusal.
func Refusal(t testing.TB, err error, allowed ...refusal.Code) *refusal.Error {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) {
		t.Fatalf("not a refusal: %v", err)
	}
	if _, ok := Codes[r.Code]; !ok {
		t.Fatalf("refusal code %q is not a spec code: %v", r.Code, err)
	}
	if len(allowed) > 0 && !slices.Contains(allowed, r.Code) {
		t.Fatalf("refusal %v: code not among %v", err, allowed)
	}
	return r
}

// Allocated runs fn and returns the bytes it allocated (TotalAlloc's
// growth, which counts what another goroutine allocates meanwhile too, so
// it is an upper bound).
func Allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// MiB is the allocation bound the refusal tests hold readers to: a refused
// input may allocate less than this beyond its own length.
const MiB = 1 << 20

// Bounded runs fn, which must refuse with code, and fails t when it
// allocated MiB or more beyond input bytes. It returns what was allocated.
func Bounded(t testing.TB, input int, code refusal.Code, fn func() error) uint64 {
	t.Helper()
	var err error
	n := Allocated(func() { err = fn() })
	Refusal(t, err, code)
	if n >= uint64(input)+MiB {
		t.Fatalf("%d bytes allocated for an input of %d (bound %d)", n, input, input+MiB)
	}
	return n
}

// Seed adds to f every file under dir that matches one of the patterns
// (filepath.Glob's), and fails f when a pattern matches none: a fuzz target
// seeded from a committed corpus is never seeded from nothing.
func Seed(f *testing.F, dir string, patterns ...string) {
	for _, p := range patterns {
		names, _ := filepath.Glob(filepath.Join(dir, p))
		if len(names) == 0 {
			f.Fatalf("no corpus files %s under %s: run waiops vectors gen", p, dir)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}
