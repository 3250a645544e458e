package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformOneWrong: the first two vectors of the committed phase-form
// file, the second claiming one wrong element, give exactly "1 passed, 1 failed", exit
// 1, a failure line naming it, and both report files.
func TestConformOneWrong(t *testing.T) {
	b, err := os.ReadFile("../../vectors/graphs/phase_form.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	i := strings.Index(lines[1], `"outputs":[{"data":["`) + len(`"outputs":[{"data":["`)
	i += strings.IndexByte(lines[1][i:], '"')
	lines[1] = lines[1][:i] + "1" + lines[1][i:] // a digit appended to the first element
	dir := t.TempDir()
	p := filepath.Join(dir, "phase.jsonl")
	if err := os.WriteFile(p, []byte(lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	rep := filepath.Join(dir, "report")
	rc := dispatch([]string{"conform", "--fabric", "cpu", "--vectors", p, "--report", rep}, &so, &se)
	out := strings.Split(strings.TrimSpace(so.String()), "\n")
	if rc != 1 || out[len(out)-1] != "1 passed, 1 failed" || len(out) != 2 ||
		!strings.Contains(out[0], "phase_form_conv_pixel_shuffle_crop_cin2_cout2_k3_s2_p1_op1 decode 0: output 0 element 0") {
		t.Fatalf("exit %d\n%s%s", rc, so.String(), se.String())
	}
	for _, f := range []string{"conformance.json", "conformance.html"} {
		if _, err := os.Stat(filepath.Join(rep, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestVectorsGenCheck: gen writes a corpus that check accepts; a stale
// byte makes check fail naming the file and line.
func TestVectorsGenCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the whole corpus")
	}
	dir := t.TempDir()
	var so, se bytes.Buffer
	if rc := dispatch([]string{"vectors", "gen", "--out", dir}, &so, &se); rc != 0 {
		t.Fatalf("gen: exit %d: %s%s", rc, so.String(), se.String())
	}
	so.Reset()
	if rc := dispatch([]string{"vectors", "check", dir}, &so, &se); rc != 0 || !strings.HasPrefix(so.String(), "ok ") {
		t.Fatalf("check: exit %d: %s%s", rc, so.String(), se.String())
	}
	p := filepath.Join(dir, "ops", "relu.jsonl")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(b, []byte(`"profiles":["acc32","acc64"]`), []byte(`"profiles":["acc64"]`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	so.Reset()
	if rc := dispatch([]string{"vectors", "check", dir}, &so, &se); rc != 1 || !strings.Contains(so.String(), "ops/relu.jsonl: line 1 differs") {
		t.Fatalf("check after edit: exit %d: %s", rc, so.String())
	}
}

// TestConformUnreadableLine: the committed run_steps file with its line 2
// cut short after its id and a zero-sided decode among the rest: line 2 is one vector
// failed, named by its id and line, and every other line still runs and
// passes (the refusal of §4 run step 1 is what step1_input0_h0 expects).
func TestConformUnreadableLine(t *testing.T) {
	b, err := os.ReadFile("../../vectors/graphs/run_steps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = lines[:len(lines)-1] // the empty text after the last LF
	id := lines[1][strings.Index(lines[1], `"id":"`)+6:]
	id = id[:strings.IndexByte(id, '"')]
	lines[1] = lines[1][:strings.Index(lines[1], `,"load":`)] + "\n" // cut after its id
	p := filepath.Join(t.TempDir(), "run_steps.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	rc := dispatch([]string{"conform", "--fabric", "cpu", p}, &so, &se)
	out := strings.Split(strings.TrimSpace(so.String()), "\n")
	want := []string{
		"cpu: FAIL run_steps.jsonl " + id + " line 2: unreadable: unexpected EOF",
		fmt.Sprintf("%d passed, 1 failed", len(lines)-1),
	}
	if rc != 1 || len(out) != 2 || out[0] != want[0] || out[1] != want[1] || !strings.Contains(string(b), `"id":"step1_input0_h0"`) {
		t.Fatalf("exit %d\n%s%s\nwant\n%s", rc, so.String(), se.String(), strings.Join(want, "\n"))
	}
}
