package stagecorpus_test

import (
	"testing"

	"github.com/waiops/waiops/vectors/gen"
)

// TestCorpusCommitted: vectors/stage holds exactly the files CorpusFiles
// generates, byte for byte, no file more or less (`waiops vectors gen --out
// vectors` writes them; nothing else does).
func TestCorpusCommitted(t *testing.T) {
	s, err := gen.CheckPart("../../vectors", "stage")
	if err != nil {
		t.Fatalf("%v (regenerate with: go run ./cmd/waiops vectors gen --out vectors)", err)
	}
	t.Logf("%d files", s.Files)
}
