package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/carriage/amortise"
	"github.com/waiops/waiops/carriage/tree"
	"github.com/zeebo/blake3"
)

// TestPriorTreeCommands: tree writes a head, head prints its fields
// (§19.1), verify passes the set and names a changed piece;
// flags stand before or after the positionals; refusals exit 3.
func TestPriorTreeCommands(t *testing.T) {
	tmp := t.TempDir()
	set := make([]byte, 5*2048+7) // g = 1: 6 pieces, the last of 7 bytes
	for i := range set {
		set[i] = byte(i * 13)
	}
	in, head := filepath.Join(tmp, "set"), filepath.Join(tmp, "set.wtr1")
	os.WriteFile(in, set, 0o644)
	if so, se, rc := run("prior", "tree", in, head, "--g", "1", "--inner-form", "wai.prior.gguf"); rc != 0 || so != "" {
		t.Fatalf("tree: %d %q %q", rc, so, se)
	}
	inner, root := sha256.Sum256(set), blake3.Sum256(set)
	want := `{"g":"1","inner":"` + hex.EncodeToString(inner[:]) + `","inner_form":"wai.prior.gguf","length":"10247","pieces":"6","root":"` + hex.EncodeToString(root[:]) + `"}` + "\n"
	if so, se, rc := run("prior", "head", head); rc != 0 || so != want {
		t.Fatalf("head: %d %q %q\nwant %q", rc, so, se, want)
	}
	if so, _, rc := run("prior", "verify", head, in); rc != 0 || so != "ok\n" {
		t.Fatalf("verify: %d %q", rc, so)
	}
	set[2*2048+100] ^= 1
	changed := filepath.Join(tmp, "changed")
	os.WriteFile(changed, set, 0o644)
	so, se, rc := run("prior", "verify", head, changed)
	if rc != 3 || so != "" || !strings.HasPrefix(se, "piece 2: tree_piece_mismatch\nrefuse tree_piece_mismatch: ") || strings.Count(se, "\n") != 2 {
		t.Fatalf("verify changed: %d %q %q", rc, so, se)
	}
	set[2*2048+100] ^= 1
	os.WriteFile(changed, append(set, 0), 0o644)
	if so, se, rc := run("prior", "verify", head, changed); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse tree_digest_mismatch: ") {
		t.Fatalf("verify long: %d %q, stdout %q", rc, se, so)
	}
	// A set of one piece has no head, and no OUT is written.
	small, out := filepath.Join(tmp, "small"), filepath.Join(tmp, "small.wtr1")
	os.WriteFile(small, set[:1024], 0o644)
	if so, se, rc := run("prior", "tree", "--g", "0", small, out); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse tree_head_malformed: ") {
		t.Fatalf("tree small: %d %q, stdout %q", rc, se, so)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused head wrote OUT")
	}
	if so, se, rc := run("prior", "tree", "--g", "1", "--inner-form", "wai.prior.set", in, out); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse tree_inner_form: ") {
		t.Fatalf("tree listing form: %d %q, stdout %q", rc, se, so)
	}
	b, _ := os.ReadFile(head)
	b[4] = 17
	os.WriteFile(out, b, 0o644)
	if so, se, rc := run("prior", "head", out); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse tree_head_malformed: g is 17") {
		t.Fatalf("head g 17: %d %q, stdout %q", rc, se, so)
	}
	if _, _, rc := run("prior", "tree", in, out); rc != 2 {
		t.Errorf("tree without --g: exit %d", rc)
	}
}

// TestPriorPlanCommand: a worked plan's outcome line and a refused plan.
func TestPriorPlanCommand(t *testing.T) {
	tmp := t.TempDir()
	p := filepath.Join(tmp, "plan.json")
	os.WriteFile(p, []byte(amortise.WorkedPlans[0].Plan), 0o644)
	want := `{"sinks":[{"bytes_received":"3500","bytes_without_set":"4000","evicted":[],"fetched":["g1"],` +
		`"generations":[{"cost":"1000","id":"g1","net":"500","saving":"1500","worth_holding":true},` +
		`{"cost":"5000","id":"g2","net":"-4000","saving":"1000","worth_holding":false}],` +
		`"id":"s1","kept":["g1"],"titles":[{"id":"t1","rendition":"pinned"},{"id":"t2","rendition":"classical"}]}],` +
		`"span":{"from":"2026-01-01T00:00:00Z","to":"2026-02-01T00:00:00Z"}}` + "\n"
	if so, se, rc := run("prior", "plan", p); rc != 0 || so != want {
		t.Fatalf("plan: %d %q %q", rc, so, se)
	}
	os.WriteFile(p, []byte(`{"span":{}}`), 0o644)
	if so, se, rc := run("prior", "plan", p); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse plan_malformed: ") {
		t.Fatalf("plan malformed: %d %q, stdout %q", rc, se, so)
	}
}

// TestPriorVerifyPieces: every failing piece has its line, in order, before
// the refusal; a head file past the largest head §19.1 allows is refused
// tree_head_malformed from its first MaxHeadSize + 1 bytes.
func TestPriorVerifyPieces(t *testing.T) {
	tmp := t.TempDir()
	set := make([]byte, 5*1024+3) // g = 0: 6 pieces
	for i := range set {
		set[i] = byte(i * 7)
	}
	in, head, changed := filepath.Join(tmp, "set"), filepath.Join(tmp, "set.wtr1"), filepath.Join(tmp, "changed")
	os.WriteFile(in, set, 0o644)
	if _, _, rc := run("prior", "tree", "--g", "0", in, head); rc != 0 {
		t.Fatalf("tree: exit %d", rc)
	}
	set[1*1024] ^= 1
	set[5*1024+2] ^= 1
	os.WriteFile(changed, set, 0o644)
	so, se, rc := run("prior", "verify", head, changed)
	if rc != 3 || so != "" || !strings.HasPrefix(se, "piece 1: tree_piece_mismatch\npiece 5: tree_piece_mismatch\nrefuse tree_piece_mismatch: ") || strings.Count(se, "\n") != 3 {
		t.Errorf("verify two changed pieces: exit %d: %q %q", rc, so, se)
	}
	big := filepath.Join(tmp, "big.wtr1")
	os.WriteFile(big, append([]byte("WTR1"), make([]byte, tree.MaxHeadSize+10)...), 0o644)
	if so, se, rc := run("prior", "head", big); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse tree_head_malformed: ") {
		t.Errorf("head past the largest: exit %d: %q, stdout %q", rc, se, so)
	}
}
