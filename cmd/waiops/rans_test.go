package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ransRun runs the command line with in on stdin and returns its exit
// status and stdout, or stderr where the status is not 0; a status not 0
// with anything on stdout is an error.
func ransRun(t *testing.T, in string, args ...string) (int, string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader(in)
	defer func() { stdin = old }()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	if code == 0 {
		return code, stdout.String()
	}
	if stdout.Len() != 0 {
		t.Errorf("%v: exit %d with stdout %q", args, code, stdout.String())
	}
	return code, stderr.String()
}

// TestRansCommands: the hand-worked stream of stage's tests (symbol 1 of
// four equal slots is 00 40 00 00 02 00 00 00), encode and decode both
// ways, modes as flags and as a member, and a refusal.
func TestRansCommands(t *testing.T) {
	tables := `"tables":[{"cdf":["0","16384","32768","49152","65536"],"offset":"0"}],"reads":["0"]`
	code, out := ransRun(t, `{"symbols":["1"],`+tables+`}`, "rans", "encode")
	if code != 0 || out != `{"stream":"0040000002000000"}`+"\n" {
		t.Errorf("encode: %d %q", code, out)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "in.json")
	if err := os.WriteFile(file, []byte(`{"stream":"0040000002000000",`+tables+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = ransRun(t, "", "rans", "decode", file, "-escape", "strict", "-lo", "0", "-hi", "3")
	if code != 0 || out != `{"symbols":["1"]}`+"\n" {
		t.Errorf("decode: %d %q", code, out)
	}
	modes := `"modes":{"table":"t4097","escape":"strict","lo":"2","hi":"3","end":"final_only"},`
	code, out = ransRun(t, `{"stream":"0040000002000000",`+modes+tables+`}`, "rans", "decode")
	if code != 3 || !strings.HasPrefix(out, "refuse field_range: ") {
		t.Errorf("strict(2, 3): %d %q", code, out)
	}
	code, out = ransRun(t, `{"stream":"0040000002000000",`+modes+tables+`}`, "rans", "decode", "-end", "canonical")
	if code != 2 || !strings.Contains(out, "not both") {
		t.Errorf("modes twice: %d %q", code, out)
	}
	code, out = ransRun(t, `{"stream":"00400000",`+tables+`}`, "rans", "decode")
	if code != 3 || !strings.HasPrefix(out, "refuse model_mismatch: ") {
		t.Errorf("short stream: %d %q", code, out)
	}
}
