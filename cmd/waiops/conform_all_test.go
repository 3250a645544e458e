package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformAllReportsPerFabric: --fabric all writes each fabric's report
// in its own subdirectory, the CPU's always, however many fabrics are
// present.
func TestConformAllReportsPerFabric(t *testing.T) {
	rep := t.TempDir()
	so, se, rc := call("conform", "--fabric", "all", "--report", rep, filepath.Join("..", "..", "vectors", "ops", "relu.jsonl"))
	if rc != 0 || !strings.HasSuffix(so, " passed, 0 failed\n") {
		t.Fatalf("exit %d: %s%s", rc, so, se)
	}
	for _, f := range []string{"conformance.json", "conformance.html"} {
		if _, err := os.Stat(filepath.Join(rep, "cpu", f)); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(filepath.Join(rep, f)); err == nil {
			t.Errorf("%s written beside the fabrics' directories", f)
		}
	}
}
