package certify_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// FuzzCertify runs the certificate pass (§8) on arbitrary graphs. A graph
// that does not parse, or that the pass refuses, is refused with a §10.5
// code; a graph that parses writes back to bytes that parse and write back
// the same; a certificate is canonical JSON (§8.5), the same on a second pass,
// and agrees with the load against each profile (§8.6): a graph loads at a
// profile exactly when its verdict meets it, and acc32 implies acc64.
func FuzzCertify(f *testing.F) {
	files, _ := filepath.Glob("../vectors/ops/*.jsonl")
	more, _ := filepath.Glob("../vectors/graphs/*.jsonl")
	for _, name := range append(files, more...) {
		fh, err := os.Open(name)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<22)
		for n := 0; sc.Scan() && n < 4; n++ {
			var v struct{ Graph string }
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				if b, err := hex.DecodeString(v.Graph); err == nil && len(b) < 1<<12 {
					f.Add(b)
				}
			}
		}
		fh.Close()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := whg1.Parse(b)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch, refusal.TooLarge)
			return
		}
		// The encoder writes what Parse read in a form that parses to a
		// graph it writes the same way again.
		e := whg1.Encode(g)
		if g2, err := whg1.Parse(e); err != nil {
			t.Fatalf("the graph as written back does not parse: %v", err)
		} else if !bytes.Equal(whg1.Encode(g2), e) {
			t.Fatal("the graph written back twice differs")
		}
		roles := []certify.Role{{Name: certify.LoadRole, Bytes: b, Graph: g}}
		c, err := certify.Certify(nil, "fuzz", nil, roles)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch)
			for _, p := range []certify.Profile{certify.Acc32, certify.Acc64} {
				if _, _, err := certify.Load(b, p); err == nil {
					t.Fatalf("a graph the pass refuses loads at %s", p)
				}
			}
			return
		}
		cb := c.Bytes()
		if v, err := cjson.Unmarshal(cb); err != nil {
			t.Fatalf("the certificate is not canonical JSON: %v", err)
		} else if w, err := cjson.Marshal(v); err != nil || !bytes.Equal(w, cb) {
			t.Fatalf("the certificate is not in its canonical form: %v", err)
		}
		c2, err := certify.Certify(nil, "fuzz", nil, roles)
		if err != nil || !bytes.Equal(c2.Bytes(), cb) {
			t.Fatalf("a second pass differs: %v", err)
		}
		v := c.Verdict
		if v.Acc32 && !v.Acc64 {
			t.Fatal("acc32 without acc64")
		}
		for _, p := range []certify.Profile{certify.Acc32, certify.Acc64} {
			_, _, err := certify.Load(b, p)
			if err != nil {
				spectest.Refusal(t, err, refusal.ModelMismatch, refusal.TooLarge)
			}
			if (err == nil) != v.Meets(p) {
				t.Fatalf("%s: the verdict says %v, the load %v", p, v.Meets(p), err)
			}
		}
	})
}
