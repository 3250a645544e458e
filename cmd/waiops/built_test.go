package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the command built once for the tests that run it as a process
// (signals, a window, a server); the file stays for the process's life.
var built struct {
	sync.Once
	path string
	err  error
}

// builtCommand builds the command once and returns its path.
func builtCommand(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "waiops-test")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "waiops")
		if out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}
