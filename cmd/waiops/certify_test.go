package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// writeGraph writes a one-conv graph (taps 3 and −2 over [lo, hi]) with an
// output of the given policy, and returns its path.
func writeGraph(t *testing.T, name string, lo, hi int64, out whg1.Tensor) string {
	t.Helper()
	g := &whg1.Graph{
		Tensors: []whg1.Tensor{{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: lo, Hi: hi}, out},
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 4, MaxW: 4}},
		Outputs: []uint32{1},
		Ops: []whg1.Op{{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{
			Cout: 1, KH: 1, KW: 2, SH: 1, SW: 1, Groups: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{3, -2}}}},
	}
	path := filepath.Join(t.TempDir(), name+".whg1")
	if err := os.WriteFile(path, whg1.Encode(g), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCertifyCommand(t *testing.T) {
	derived := whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent}
	path := writeGraph(t, "synthesis", -1, 1, derived)
	var so, se bytes.Buffer
	sum := strings.Repeat("ab", 32)
	if rc := dispatch([]string{"certify", path, "--capability", "wai.test", "--set-sha256", sum}, &so, &se); rc != 0 {
		t.Fatalf("exit %d: %s", rc, se.String())
	}
	b, _ := os.ReadFile(path)
	g, err := whg1.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	capability := "wai.test"
	want, err := certify.Certify(&capability, "whg1", &sum, []certify.Role{{Name: "synthesis", Bytes: b, Graph: g}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(so.Bytes(), want.Bytes()) {
		t.Errorf("stdout\n%s\nwant\n%s", so.Bytes(), want.Bytes())
	}

	// §8.4: conv.acc = [−5X, 5X], so acc32 allows X = ⌊(2^31 − 1)/5⌋.
	so.Reset()
	if rc := dispatch([]string{"certify", "--admissible", "0", "--profile", "acc32", path}, &so, &se); rc != 0 {
		t.Fatalf("exit %d: %s", rc, se.String())
	}
	if got, want := so.String(), "-429496729 429496729\n"; got != want {
		t.Errorf("admissible %q, want %q", got, want)
	}

	// A check range the producer result [−5, 5] misses is refused at load.
	bad := writeGraph(t, "bad", -1, 1, whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: 6, Hi: 9})
	so.Reset()
	se.Reset()
	if rc := dispatch([]string{"certify", bad}, &so, &se); rc != 3 || so.Len() != 0 || !strings.HasPrefix(se.String(), "refuse model_mismatch: ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3 and a model_mismatch refusal on stderr", rc, so.String(), se.String())
	}
	if rc := dispatch([]string{"certify", "--set-sha256", "XY", path}, &so, &se); rc != 2 {
		t.Errorf("a bad digest gave exit %d, want 2", rc)
	}
}
