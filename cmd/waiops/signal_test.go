//go:build unix

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interrupted starts the built command, waits until ready() holds, sends
// SIGINT, and returns the exit status, stdout and stderr.
func interrupted(t *testing.T, ready func() bool, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(builtCommand(t), args...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for start := time.Now(); !ready(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%v: not ready after 20s: %q", args, se.String())
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v: still running 20s after SIGINT", args)
	}
	return cmd.ProcessState.ExitCode(), so.String(), se.String()
}

// TestInterruptExits130: SIGINT stops a command midway with exit 130,
// "waiops: interrupted" and no refusal on stderr, nothing on stdout, and no
// file left, whole or partial: a command that does not watch the signal
// (prior dcz, stopped while its temporary OUT is open) and one that does
// (prior fetch, stopped while a root is silent).
func TestInterruptExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	t.Run("dcz", func(t *testing.T) {
		dir := t.TempDir()
		pred, in, out := filepath.Join(dir, "pred"), filepath.Join(dir, "in"), filepath.Join(dir, "out")
		os.WriteFile(pred, []byte("the predecessor"), 0o644)
		if err := syscall.Mkfifo(in, 0o600); err != nil {
			t.Fatal(err)
		}
		// The writer's end opens once the command opens the reader's; it
		// stays open, so the command waits for more input.
		fifo := make(chan *os.File, 1)
		go func() {
			f, _ := os.OpenFile(in, os.O_WRONLY, 0)
			f.Write([]byte("some of a successor"))
			fifo <- f
		}()
		defer func() { (<-fifo).Close() }()
		temp := func() bool { m, _ := filepath.Glob(filepath.Join(dir, ".out.*")); return len(m) == 1 }
		rc, so, se := interrupted(t, temp, "prior", "dcz", "--dictionary", pred, in, out)
		if rc != exitInterrupted || so != "" || se != "waiops: interrupted\n" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 130 and the interruption alone", rc, so, se)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(left) != 0 {
			t.Errorf("left %v", left)
		}
	})
	t.Run("fetch", func(t *testing.T) {
		asked := make(chan struct{}, 1)
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked <- struct{}{}
			<-r.Context().Done()
		}))
		defer silent.Close()
		store := t.TempDir()
		rc, so, se := interrupted(t, func() bool { return len(asked) == 1 },
			"prior", "fetch", strings.Repeat("ab", 32), "--store", store, "--root", silent.URL+"/", "--timeout", "60s")
		if rc != exitInterrupted || so != "" || !strings.HasSuffix(se, "waiops: interrupted\n") || strings.Contains(se, "refuse ") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 130, the interruption and no refusal", rc, so, se)
		}
		if left, _ := os.ReadDir(store); len(left) != 0 {
			t.Errorf("the store holds %d files", len(left))
		}
	})
}
