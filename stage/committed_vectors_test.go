package stage

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/cjson"
)

// corpusDir is where the committed stage vectors live; internal/stagecorpus
// generates them, and its TestCorpusCommitted holds them to it byte for byte.
const corpusDir = "../vectors/stage"

// committedVector is one §14.1 stage vector as its file holds it.
type committedVector struct {
	op, id    string
	modes, in map[string]any
	expect    any
}

// committedVectors reads every committed stage vector, file by file in
// name order, each file's vectors in order.
func committedVectors(tb testing.TB) []committedVector {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	var out []committedVector
	for _, g := range files {
		have, err := os.ReadFile(g)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(have))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			v, err := cjson.Unmarshal(sc.Bytes())
			if err != nil {
				tb.Fatalf("%s: %v", g, err)
			}
			m := v.(map[string]any)
			out = append(out, committedVector{op: m["op"].(string), id: m["id"].(string),
				modes: m["modes"].(map[string]any), in: m["in"].(map[string]any), expect: m["expect"]})
		}
		if err := sc.Err(); err != nil {
			tb.Fatalf("%s: %v", g, err)
		}
	}
	return out
}

// TestCorpusFiles checks that there is one committed file per operator and
// that re-evaluating every committed vector's in reproduces its expect.
func TestCorpusFiles(t *testing.T) {
	committed, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	if len(committed) != len(evaluators) {
		t.Fatalf("%d files committed for %d operators", len(committed), len(evaluators))
	}
	for _, v := range committedVectors(t) {
		got, _ := cjson.Marshal(ExpectOf(v.op, v.modes, v.in))
		exp, _ := cjson.Marshal(v.expect)
		if !bytes.Equal(got, exp) {
			t.Errorf("%s %s: expect %s, evaluated %s", v.op, v.id, exp, got)
		}
	}
}

// TestCorpusMansEscapes: every committed mans vector whose id says escape
// takes at least one (§5E E8), so the corpus covers the escape path.
func TestCorpusMansEscapes(t *testing.T) {
	n := 0
	for _, v := range committedVectors(t) {
		if v.op != "mans_decode" || !strings.Contains(v.id, "escape") {
			continue
		}
		n++
		var d MansDecoder
		if _, err := evalMansWith(&d, &operands{op: v.op, m: v.in}); err != nil {
			t.Fatalf("%s: %v", v.id, err)
		}
		if d.Escapes == 0 {
			t.Errorf("%s takes no escape", v.id)
		}
	}
	if n == 0 {
		t.Fatal("no mans vector names an escape")
	}
}
