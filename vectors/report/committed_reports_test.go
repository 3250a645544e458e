package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/vectors"
)

// Every committed conformance report under docs/conformance states the
// digest of the corpus as it is now: a report of an older corpus is stale
// and must be regenerated (docs/conformance/README.md says how).
func TestCommittedReportsMatchCorpus(t *testing.T) {
	c, err := vectors.Project("..")
	if err != nil {
		t.Fatal(err)
	}
	reports, err := filepath.Glob("../../docs/conformance/*/conformance.json")
	if err != nil || len(reports) == 0 {
		t.Fatalf("no committed reports found (%v)", err)
	}
	for _, p := range reports {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Corpus string `json:"corpus_sha256"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Corpus != c.SHA256 {
			t.Errorf("%s states corpus %s; the corpus is %s (%d files): regenerate it", p, r.Corpus, c.SHA256, len(c.Files))
		}
	}
}
