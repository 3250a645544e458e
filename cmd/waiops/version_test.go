package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/waiops/waiops/cpuref/dot"
)

// TestVersion: five lines, the Go version and the kernels cpuref/dot picks
// on this machine among them.
func TestVersion(t *testing.T) {
	so, se, rc := call("version")
	lines := strings.Split(strings.TrimSuffix(so, "\n"), "\n")
	if rc != 0 || se != "" || len(lines) != 5 {
		t.Fatalf("exit %d, stderr %q, stdout %q", rc, se, so)
	}
	for i, p := range []string{"waiops ", "commit ", "go " + runtime.Version() + " ", "build CGO_ENABLED=", "kernels mac16 " + dot.Selected() + ", mac8 " + dot.Selected8()} {
		if !strings.HasPrefix(lines[i], p) {
			t.Errorf("line %d %q, want it to open %q", i, lines[i], p)
		}
	}
}
