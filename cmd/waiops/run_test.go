package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// accumulator is a hand-written graph: out = clamp(x + s, -1000, 1000),
// where x is a checked data input in [-100, 100] and s a state input that
// starts at 1 and carries out from one decode to the next (§10.3).
func accumulator() []byte {
	ten := func(p whg1.Policy, lo, hi int64) whg1.Tensor {
		return whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent, Policy: p, Lo: lo, Hi: hi}
	}
	return whg1.Encode(&whg1.Graph{
		Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs: []whg1.Input{
			{Tensor: 0, MaxH: 1, MaxW: 2},
			{Tensor: 1, MaxH: 1, MaxW: 2, Kind: whg1.StateInput, Src: 0, Init: 1},
		},
		Outputs: []uint32{2},
		Tensors: []whg1.Tensor{ten(whg1.Check, -100, 100), ten(whg1.Clamp, -1000, 1000), ten(whg1.Clamp, -1000, 1000)},
		Ops:     []whg1.Op{{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}}},
	})
}

func runWith(t *testing.T, inputs string, extra ...string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	g := filepath.Join(dir, "acc.whg1")
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(g, accumulator(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, []byte(inputs), 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	args := append([]string{"run", g}, extra...)
	args = append(args, "--inputs", in) // flags after the positional argument
	rc := dispatch(args, &so, &se)
	return so.String(), se.String(), rc
}

func TestRunOneDecode(t *testing.T) {
	// x = [-3, 5], s = init 1 everywhere: out = [-2, 6].
	out, errOut, rc := runWith(t, `[{"data":["-3","5"],"shape":["1","1","2"]}]`, "--fabric", "cpu")
	if rc != 0 {
		t.Fatalf("exit %d: %s %s", rc, out, errOut)
	}
	if want := `[{"data":["-2","6"],"shape":["1","1","2"]}]` + "\n"; out != want {
		t.Fatalf("stdout %q, want %q", out, want)
	}
	if errOut != "fabric: cpu\n" {
		t.Fatalf("stderr %q", errOut)
	}
}

func TestRunSequenceCarriesStateAcrossARefusal(t *testing.T) {
	// decode 0: [1, 2] + init 1 → [2, 3]; decode 1: 200 is outside the
	// check range [-100, 100] → field_range, state unchanged; decode 2:
	// [10, 10] + [2, 3] → [12, 13]; decode 3: [-100, 100] + [12, 13].
	in := `{"decodes":[
	 {"inputs":[{"data":["1","2"],"shape":["1","1","2"]}]},
	 {"inputs":[{"data":["200","0"],"shape":["1","1","2"]}]},
	 {"inputs":[{"data":["10","10"],"shape":["1","1","2"]}]},
	 {"inputs":[{"data":["-100","100"],"shape":["1","1","2"]}]}]}`
	out, errOut, rc := runWith(t, in, "--fabric=cpu")
	if rc != 0 {
		t.Fatalf("exit %d: %s %s", rc, out, errOut)
	}
	want := `{"decodes":[{"outputs":[{"data":["2","3"],"shape":["1","1","2"]}]},{"refuse":"field_range"},` +
		`{"outputs":[{"data":["12","13"],"shape":["1","1","2"]}]},{"outputs":[{"data":["-88","113"],"shape":["1","1","2"]}]}]}` + "\n"
	if out != want {
		t.Fatalf("stdout\n%s\nwant\n%s", out, want)
	}
}

func TestRunRefusedDecodePrintsCode(t *testing.T) {
	out, errOut, rc := runWith(t, `[{"data":["-101","5"],"shape":["1","1","2"]}]`, "--fabric", "cpu")
	if rc != 3 || out != "" || !strings.HasPrefix(errOut, "fabric: cpu\nrefuse field_range: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", rc, out, errOut)
	}
	// Input 0 declares max_w 2: a 3-wide input is too_large at run step 1.
	out, errOut, rc = runWith(t, `[{"data":["1","2","3"],"shape":["1","1","3"]}]`, "--fabric", "cpu")
	if rc != 3 || out != "" || !strings.HasPrefix(errOut, "fabric: cpu\nrefuse too_large: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", rc, out, errOut)
	}
}

// TestRunZeroSideIsModelMismatch: an input with a zero side is read, and
// §4 run step 1 refuses it (H ≥ 1 and W ≥ 1, model_mismatch): one decode
// prints the refusal and exits 3; in a sequence it is that decode's outcome,
// named on stderr, and the state stays as it was (init 1: [4, 5] + 1 = [5, 6]).
func TestRunZeroSideIsModelMismatch(t *testing.T) {
	for _, in := range []string{`[{"data":[],"shape":["1","0","8"]}]`, `[{"data":[],"shape":["1","1","0"]}]`} {
		out, errOut, rc := runWith(t, in, "--fabric", "cpu")
		if rc != 3 || out != "" || !strings.HasPrefix(errOut, "fabric: cpu\nrefuse model_mismatch: ") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", in, rc, out, errOut)
		}
	}
	in := `{"decodes":[{"inputs":[{"data":[],"shape":["1","0","8"]}]},{"inputs":[{"data":["4","5"],"shape":["1","1","2"]}]}]}`
	out, errOut, rc := runWith(t, in, "--fabric", "cpu")
	want := `{"decodes":[{"refuse":"model_mismatch"},{"outputs":[{"data":["5","6"],"shape":["1","1","2"]}]}]}` + "\n"
	if rc != 0 || out != want || !strings.Contains(errOut, "refuse model_mismatch: decode 0: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", rc, out, errOut, want)
	}
}
