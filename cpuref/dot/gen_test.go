package dot

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGenerated checks that kern_amd64.s and kern_amd64.go are what their
// generator (_gen, avo) writes today, past the first line that names the
// command's output paths. It builds the generator (-short skips it).
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the avo generator")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", ".", "-out", filepath.Join(dir, "kern_amd64.s"), "-stubs", filepath.Join(dir, "kern_amd64.go"), "-pkg", "dot")
	cmd.Dir = "_gen"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	for _, f := range []string{"kern_amd64.s", "kern_amd64.go"} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, got, _ = bytes.Cut(got, []byte("\n"))
		_, want, _ = bytes.Cut(want, []byte("\n"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what _gen writes: run go generate ./cpuref/dot", f)
		}
	}
}
