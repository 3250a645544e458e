package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusSet finds a committed §14.3 set of a capability whose certificate
// holds every one of marks, and returns its directory.
func corpusSet(t *testing.T, capability string, marks ...string) string {
	t.Helper()
	certs, _ := filepath.Glob(filepath.Join("..", "..", "vectors", "certificates", capability, "*.json"))
next:
	for _, c := range certs {
		cert, _ := os.ReadFile(c)
		for _, m := range marks {
			if !bytes.Contains(cert, []byte(m)) {
				continue next
			}
		}
		return strings.TrimSuffix(c, ".json")
	}
	t.Fatalf("no %s set with %v in the corpus", capability, marks)
	return ""
}

func run(args ...string) (string, string, int) {
	var so, se bytes.Buffer
	rc := dispatch(args, &so, &se)
	return so.String(), se.String(), rc
}

// TestLowerCommand lowers the corpus's whm1/1 pair, once by name and once
// by position, and gets the committed graphs and certificate.
func TestLowerCommand(t *testing.T) {
	set := corpusSet(t, "wai.neural.int_hyper")
	tmp := t.TempDir()
	// By position, with names the lowering does not know: h_s first.
	hs, _ := os.ReadFile(filepath.Join(set, "set", "h_s.whm"))
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	os.WriteFile(a, hs, 0o644)
	gs, _ := os.ReadFile(filepath.Join(set, "set", "g_s.whm"))
	os.WriteFile(b, gs, 0o644)
	for _, files := range [][]string{
		{filepath.Join(set, "set", "g_s.whm"), filepath.Join(set, "set", "h_s.whm")}, // by name, in any order
		{a, b}, // by position
	} {
		out := filepath.Join(tmp, "out")
		args := append([]string{"lower", "--lowering", "whm1/1", "--capability", "wai.neural.int_hyper"}, files...)
		if so, se, rc := run(append(args, "--out", out)...); rc != 0 {
			t.Fatalf("rc %d: %s %s", rc, so, se)
		}
		for _, f := range []string{"h_s.whg1", "g_s.whg1"} {
			got, _ := os.ReadFile(filepath.Join(out, f))
			want, _ := os.ReadFile(filepath.Join(set, f))
			if len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("%s differs from the corpus", f)
			}
		}
		got, _ := os.ReadFile(filepath.Join(out, "certificate.json"))
		if want, _ := os.ReadFile(set + ".json"); !bytes.Equal(got, want) {
			t.Errorf("certificate differs from the corpus")
		}
		os.RemoveAll(out)
	}
}

// TestLowerAcc64Failure: the graphs and certificate are written, then the
// set is refused (§14.3).
func TestLowerAcc64Failure(t *testing.T) {
	set := corpusSet(t, "wai.image.jpegai", `"acc64":false`)
	out := filepath.Join(t.TempDir(), "out")
	files, _ := filepath.Glob(filepath.Join(set, "set", "*"))
	so, se, rc := run(append(append([]string{"lower", "--lowering", "jpegai-int/1"}, files...), "--out", out)...)
	if rc != 3 || so != "" || !strings.HasPrefix(se, "refuse model_mismatch: ") {
		t.Fatalf("rc %d, %q %q", rc, so, se)
	}
	for _, f := range []string{"hs_y.whg1", "hs_uv.whg1", "certificate.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// A load check that fails writes nothing.
	bad := filepath.Join(t.TempDir(), "int_synth.json")
	os.WriteFile(bad, []byte(`{"layers":[]}`), 0o644)
	so, se, rc = run("lower", "--lowering", "int_synth/1", bad, "--out", out+"2")
	if _, err := os.Stat(out + "2"); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse payload_malformed: ") || err == nil {
		t.Errorf("rc %d, %q %q, out written: %v", rc, so, se, err == nil)
	}
}
