package corpus

import (
	"strings"
	"testing"
)

const dir = "../../vectors/carriage"

// TestCorpus: every case of the committed corpus passes
// (TestCorpusCommitted compares its bytes with Files()).
func TestCorpus(t *testing.T) {
	r, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Failures {
		t.Error(f)
	}
	if r.Passed == 0 {
		t.Error("no case passed")
	}
}

// TestReach: every code a family lists is reached by a case.
func TestReach(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	lines := string(files["cases.jsonl"])
	for _, c := range reach {
		if !strings.Contains(lines, `{"refuse":"`+string(c)+`"}`) {
			t.Errorf("no case reaches %s", c)
		}
	}
}
