package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// Load refuses a graph whose verdict does not meet the profile
// (model_mismatch, §8.6) and loads it under one that it meets, with the
// certificate of a graph loaded on its own.
func TestLoadProfiles(t *testing.T) {
	// The rescale of TestFailsAcc32ByOneUnit: acc64, not acc32.
	b := newGraph(1, 0, math.MaxInt32, 4, 4)
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rqFloor(0, 1)}, 1, 0)
	raw := b.role(t, "g").Bytes
	_, _, err := Load(raw, Acc32)
	wantRefusal(t, err, "model_mismatch")
	_, cert, err := Load(raw, Acc64)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Verdict.Meets(Acc32) || !cert.Verdict.Meets(Acc64) {
		t.Errorf("verdict %+v, want acc64 only", cert.Verdict)
	}
	if cert.Graphs[0].Name != LoadRole || *cert.SetSHA256 != cert.Graphs[0].SHA256 {
		t.Errorf("role %q, set %s, graph %s", cert.Graphs[0].Name, *cert.SetSHA256, cert.Graphs[0].SHA256)
	}
	if _, _, err := Load(raw, "acc16"); err == nil {
		t.Error("profile acc16 loads")
	}
}

// A lut16 whose input range passes [−32767, 32767] is refused at load, as
// is a malformed file (whg1.Parse).
func TestLoadRefusals(t *testing.T) {
	b := newGraph(1, -32768, 0, 4, 4)
	b.op(whg1.OpLut16, &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}, 1, 0)
	_, _, err := Load(b.role(t, "g").Bytes, Acc64)
	wantRefusal(t, err, "model_mismatch")
	_, _, err = Load([]byte("WHG0"), Acc64)
	wantRefusal(t, err, "model_mismatch")
}

// GraphSum takes the caller's digest as the graph's and the set's, not
// hashing the bytes again; Graph's is the SHA-256 of the bytes.
func TestGraphSum(t *testing.T) {
	b := newGraph(1, 0, 9, 2, 2)
	b.op(whg1.OpRelu, nil, 1, 0)
	raw := b.role(t, "g").Bytes
	_, cert, err := Graph(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256(raw); cert.Graphs[0].Sum != want || cert.Graphs[0].SHA256 != hex.EncodeToString(want[:]) {
		t.Fatalf("Graph's digest %s", cert.Graphs[0].SHA256)
	}
	given := [32]byte{1, 2, 3}
	_, cert, err = GraphSum(raw, given)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Graphs[0].Sum != given || *cert.SetSHA256 != hex.EncodeToString(given[:]) {
		t.Fatalf("GraphSum kept %x, set %s; want %x", cert.Graphs[0].Sum, *cert.SetSHA256, given)
	}
}
