package gen

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/vectors/report"
	"github.com/waiops/waiops/whg1"
)

// The tests below run a corpus end to end (conform.Run, report.Write and
// Check) on graphs built with the generator's helpers, so they live here:
// gen may import conform and report, neither imports gen.

// handFile is a vector file written by hand: relu on [−3, 0, 5] gives
// [0, 0, 5]; add of [1, 2] and [3, −7] gives [4, −5], but the second vector
// claims [4, −4] so that it fails at output 0 element 1.
func handFile(t *testing.T) string {
	t.Helper()
	in := []whg1.Tensor{chk(1, -9, 9)}
	relu := hex.EncodeToString(whg1.Encode(one(whg1.OpRelu, nil, in, []whg1.Tensor{der(1)}, 0, 0)))
	add := hex.EncodeToString(whg1.Encode(one(whg1.OpAdd, nil, []whg1.Tensor{chk(1, -9, 9), chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)))
	lines := []string{
		fmt.Sprintf(`{"decodes":[{"expect":{"outputs":[{"data":["0","0","5"],"shape":["1","1","3"]}]},"inputs":[{"data":["-3","0","5"],"shape":["1","1","3"]}],"scalars":[]}],"graph":"%s","id":"relu_hand","load":"ok","profiles":["acc32","acc64"]}`, relu),
		fmt.Sprintf(`{"decodes":[{"expect":{"outputs":[{"data":["4","-4"],"shape":["1","1","2"]}]},"inputs":[{"data":["1","2"],"shape":["1","1","2"]},{"data":["3","-7"],"shape":["1","1","2"]}],"scalars":[]}],"graph":"%s","id":"add_hand_wrong","load":"ok","profiles":["acc32","acc64"]}`, add),
		// Tagged acc32 only: the acc64 fabric does not run it.
		fmt.Sprintf(`{"decodes":[],"graph":"%s","id":"acc32_only","load":"ok","profiles":["acc32"]}`, relu),
	}
	p := filepath.Join(t.TempDir(), "hand.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunHandWritten(t *testing.T) {
	c, err := vectors.Open([]string{handFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	r := conform.Run(fabric.NewCPU(), c, nil)
	if r.Passed != 1 || r.Failed != 1 {
		t.Fatalf("%d passed, %d failed; want 1 passed, 1 failed (%v)", r.Passed, r.Failed, r.Failures)
	}
	f := r.Failures[0]
	if f.ID != "add_hand_wrong" || f.Decode != 0 || f.What != "output 0 element 1 (c=0, y=0, x=1): got -5, want -4" {
		t.Fatalf("failure %+v", f)
	}
	if tl := r.Groups["hand"]; tl == nil || tl.Passed != 1 || tl.Failed != 1 {
		t.Fatalf("groups %v", r.Groups)
	}
	dir := t.TempDir()
	if err := report.Write(r, dir); err != nil {
		t.Fatal(err)
	}
	j, _ := os.ReadFile(filepath.Join(dir, "conformance.json"))
	h, _ := os.ReadFile(filepath.Join(dir, "conformance.html"))
	for _, want := range []string{`"corpus_sha256":"` + c.SHA256, `"id":"add_hand_wrong"`, `"failed":"1"`, `"fabric":"cpu"`, `"goarch":"`} {
		if !strings.Contains(string(j), want) {
			t.Errorf("conformance.json lacks %s:\n%s", want, j)
		}
	}
	for _, want := range []string{"1 passed, 1 failed", "add_hand_wrong", c.SHA256, "<li>docs/READINGS.md D-A: text lost in rendering"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("conformance.html lacks %s", want)
		}
	}
}

// TestRunUnreadableLines: in a file of five lines, a graph that is not
// lowercase hex (line 2) and a line cut short (line 4) are each one vector
// failed, named by id and line, and the three vectors around them still
// run: relu of [−3, 0, 5] is [0, 0, 5]; a decode whose input is [1, 0, 3]
// is refused model_mismatch by §4 run step 1 (H ≥ 1), which is what it
// expects; add of [1, 2] and [3, −7] is [4, −5].
func TestRunUnreadableLines(t *testing.T) {
	relu := hex.EncodeToString(whg1.Encode(one(whg1.OpRelu, nil, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)))
	add := hex.EncodeToString(whg1.Encode(one(whg1.OpAdd, nil, []whg1.Tensor{chk(1, -9, 9), chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)))
	lines := []string{
		fmt.Sprintf(`{"decodes":[{"expect":{"outputs":[{"data":["0","0","5"],"shape":["1","1","3"]}]},"inputs":[{"data":["-3","0","5"],"shape":["1","1","3"]}],"scalars":[]}],"graph":"%s","id":"relu_hand","load":"ok","profiles":["acc32","acc64"]}`, relu),
		fmt.Sprintf(`{"decodes":[],"graph":"%s","id":"upper_hex","load":"ok","profiles":["acc32","acc64"]}`, strings.ToUpper(relu)),
		fmt.Sprintf(`{"decodes":[{"expect":{"refuse":"model_mismatch"},"inputs":[{"data":[],"shape":["1","0","3"]}],"scalars":[]}],"graph":"%s","id":"relu_h0","load":"ok","profiles":["acc32","acc64"]}`, relu),
		`{"decodes":[{"expect":{"outputs":[{"data":["0"`,
		fmt.Sprintf(`{"decodes":[{"expect":{"outputs":[{"data":["4","-5"],"shape":["1","1","2"]}]},"inputs":[{"data":["1","2"],"shape":["1","1","2"]},{"data":["3","-7"],"shape":["1","1","2"]}],"scalars":[]}],"graph":"%s","id":"add_hand","load":"ok","profiles":["acc32","acc64"]}`, add),
	}
	p := filepath.Join(t.TempDir(), "five.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := vectors.Open([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	r := conform.Run(fabric.NewCPU(), c, nil)
	if r.Passed != 3 || r.Failed != 2 || len(r.Failures) != 2 {
		t.Fatalf("%d passed, %d failed; want 3 passed, 2 failed (%v)", r.Passed, r.Failed, r.Failures)
	}
	if f := r.Failures[0]; f.ID != "upper_hex" || f.Line != 2 || !strings.Contains(f.What, "lowercase") {
		t.Errorf("failure 0: %+v", f)
	}
	if f := r.Failures[1]; f.ID != "" || f.Line != 4 || f.String() != "FAIL five.jsonl (no id) line 4: unreadable: unexpected EOF" {
		t.Errorf("failure 1: %+v, %s", f, f)
	}
	if _, err := Check(c); err == nil || !strings.Contains(err.Error(), "line 2 (upper_hex)") {
		t.Errorf("Check: %v", err)
	}
	dir := t.TempDir()
	if err := report.Write(r, dir); err != nil {
		t.Fatal(err)
	}
	if j, _ := os.ReadFile(filepath.Join(dir, "conformance.json")); !strings.Contains(string(j), `"line":"4"`) {
		t.Errorf("conformance.json names no line:\n%s", j)
	}
}
