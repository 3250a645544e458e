package carriage

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

const corpusFiles = "../vectors/carriage/files"

// code is the refusal code of err, or "" when err is not a refusal.
func code(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// FuzzUsage: a statement is refused set_usage_malformed, or it is
// accepted with fields that pass §18.1's rules again, and a statement
// written from them reads back to the same fields.
func FuzzUsage(f *testing.F) {
	spectest.Seed(f, corpusFiles, "usage/*.json", "*-usage.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ReadUsage(b)
		if err != nil {
			if c := code(err); c != SetUsageMalformed {
				t.Fatalf("refused with %q (%v), want set_usage_malformed", c, err)
			}
			return
		}
		if len(b) > MaxUsage {
			t.Fatalf("a statement of %d bytes accepted", len(b))
		}
		if u.Licence != nil {
			if err := CheckLicence(*u.Licence); err != nil {
				t.Fatalf("accepted licence %q fails again: %v", *u.Licence, err)
			}
		}
		if u.Terms != nil {
			if err := checkTerms(*u.Terms); err != nil {
				t.Fatalf("accepted terms %q fail again: %v", *u.Terms, err)
			}
		}
		str := func(s *string) any {
			if s == nil {
				return nil
			}
			return *s
		}
		var ai any
		if u.AIUsage != nil {
			ai = cjson.Raw(u.AIUsage)
		}
		again, err := cjson.Marshal(map[string]any{
			"kind": "wai-set-usage", "licence": str(u.Licence), "terms": str(u.Terms),
			"content_derived": u.ContentDerived, "redistribute": u.Redistribute, "ai_usage": ai,
		})
		if err != nil {
			t.Fatalf("the accepted fields do not write: %v", err)
		}
		v, err := ReadUsage(again)
		if err != nil {
			t.Fatalf("written again, %s is refused: %v", again, err)
		}
		if str(v.Licence) != str(u.Licence) || str(v.Terms) != str(u.Terms) || v.ContentDerived != u.ContentDerived ||
			v.Redistribute != u.Redistribute || !bytes.Equal(v.AIUsage, u.AIUsage) {
			t.Fatalf("written again, the fields differ: %+v, %+v", u, v)
		}
	})
}

// FuzzSealedHeader: a sealed set's header is refused by §18.2 steps 1 to 3
// with their codes, or accepted and then: it marshals to the bytes it was
// read from, the file is exactly its size plus L, Open without a key is
// set_key_absent, and where the test key opens it, sealing the plaintext
// again under the header gives the same bytes.
func FuzzSealedHeader(f *testing.F) {
	spectest.Seed(f, corpusFiles, "*.wsk1", "sealed/*.wsk1")
	steps := []refusal.Code{SealedMalformed, SealedInnerForm, SetUsageMalformed}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if c := code(err); !slices.Contains(steps, c) {
				t.Fatalf("refused with %q (%v), not a code of §18.2 steps 1 to 3", c, err)
			}
			return
		}
		if !bytes.Equal(h.Marshal(), b[:h.Size()]) {
			t.Fatal("the header does not marshal to its bytes")
		}
		if int64(len(b)) != h.Size()+int64(h.Length) {
			t.Fatalf("%d bytes accepted for a header of %d and L %d", len(b), h.Size(), h.Length)
		}
		if _, err := Open(bytes.NewReader(b), int64(len(b)), Keys{}, &bytes.Buffer{}); code(err) != SetKeyAbsent {
			t.Fatalf("opened with no keys: %v, want set_key_absent", err)
		}
		key := [16]byte([]byte("wai-ops test key"))
		var plain bytes.Buffer
		_, err = Open(bytes.NewReader(b), int64(len(b)), Keys{h.KID: key}, &plain)
		if err != nil {
			if code(err) != SetKeyMismatch {
				t.Fatalf("opened under the test key: %v, want a result or set_key_mismatch", err)
			}
			return
		}
		var again bytes.Buffer
		if _, _, err := Seal(&again, bytes.NewReader(plain.Bytes()), int64(plain.Len()), key, *h); err != nil {
			t.Fatalf("sealing the opened plaintext again: %v", err)
		}
		if !bytes.Equal(again.Bytes(), b) {
			t.Fatal("sealed again, the bytes differ")
		}
	})
}

// FuzzListing: a listing is refused prior_not_held, or it is accepted and
// then every path passes docs/READINGS.md D-H1's rule, the paths ascend each once,
// and Marshal writes exactly the bytes it was read from (H1: a listing is
// its canonical JSON).
func FuzzListing(f *testing.F) {
	spectest.Seed(f, corpusFiles, "sets/*.listing")
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadListing(b)
		if err != nil {
			if c := code(err); c != PriorNotHeld {
				t.Fatalf("refused with %q (%v), want prior_not_held", c, err)
			}
			return
		}
		for i, file := range l.Files {
			if err := CheckPath(file.Path); err != nil {
				t.Fatalf("accepted path %q fails H1's rule: %v", file.Path, err)
			}
			if i > 0 && l.Files[i-1].Path >= file.Path {
				t.Fatalf("accepted paths %q then %q", l.Files[i-1].Path, file.Path)
			}
		}
		again, err := l.Marshal()
		if err != nil {
			t.Fatalf("the accepted listing does not marshal: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("marshalled again, the listing differs:\n%s\n%s", b, again)
		}
	})
}
