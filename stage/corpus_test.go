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

// corpusDir is where the committed stage vectors live.
const corpusDir = "../vectors/stage"

// TestCorpusIntent checks that every vector evaluates to the outcome its
// generator meant (its id's claim), and that ids are unique per file.
func TestCorpusIntent(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range corpusCases() {
		key := c.op + "/" + c.id
		if seen[key] {
			t.Errorf("duplicate id %s", key)
		}
		seen[key] = true
		if !c.meetsIntent() {
			code, at := c.outcome()
			t.Errorf("%s: got %q at %d, want %q at %d", key, code, at, c.want, c.wantAt)
		}
	}
}

// TestCorpusCoverage checks §14.1 item 7's stage cases are present.
func TestCorpusCoverage(t *testing.T) {
	files := Corpus()
	if len(files) != len(evaluators) {
		t.Errorf("%d files for %d operators", len(files), len(evaluators))
	}
	ids := map[string]map[string]any{}
	for _, vs := range files {
		for _, v := range vs {
			ids[v["op"].(string)+"/"+v["id"].(string)] = v["expect"].(map[string]any)
		}
	}
	for _, tr := range []string{"t4097", "t2"} {
		for _, esc := range []string{"lenient", "strict_lo-3_hi5"} {
			for _, end := range []string{"canonical", "final_only"} {
				if _, ok := ids["rans64_decode/"+tr+"_"+esc+"_"+end+"_roundtrip"]; !ok {
					t.Errorf("no round trip for %s %s %s", tr, esc, end)
				}
			}
		}
		for _, sc := range strictScenarios {
			for _, end := range []string{"canonical", "final_only"} {
				if _, ok := ids["rans64_decode/"+tr+"_strict_lo-3_hi5_"+end+"_"+sc.name]; !ok {
					t.Errorf("no strict %s %s %s", tr, end, sc.name)
				}
			}
		}
	}
	// A bound of 128 and one of 255 with their escapes taken.
	for _, id := range []string{"sgm_bound128_escape_spans13_16_7_6_5_0_1_2_3", "sgm_bound255_escape_spans13_16_7_6_5_0_1_2_3"} {
		e := ids["mans_decode/"+id]
		if e == nil || e["symbols"] == nil {
			t.Fatalf("%s: no decoded symbols: %v", id, e)
		}
	}
	for _, c := range corpusCases() {
		if c.op != "mans_decode" || !strings.Contains(c.id, "escape") {
			continue
		}
		if got := mansEscapes(t, c); got == 0 {
			t.Errorf("%s takes no escape", c.id)
		}
	}
}

// mansEscapes decodes a mans case and counts its escapes.
func mansEscapes(t *testing.T, c corpusCase) int {
	t.Helper()
	var d MansDecoder
	if _, err := evalMansWith(&d, &operands{op: c.op, m: decoded(c.in).(map[string]any)}); err != nil {
		t.Fatalf("%s: %v", c.id, err)
	}
	return d.Escapes
}

// TestCorpusFiles checks that there is one committed file per operator
// (TestCorpusCommitted compares their bytes with CorpusFiles), and that
// re-evaluating every committed vector's in reproduces its expect.
func TestCorpusFiles(t *testing.T) {
	committed, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	if len(committed) != len(evaluators) {
		t.Fatalf("%d files committed for %d operators", len(committed), len(evaluators))
	}
	for _, g := range committed {
		have, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(have))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			v, err := cjson.Unmarshal(sc.Bytes())
			if err != nil {
				t.Fatalf("%s: %v", g, err)
			}
			vec := v.(map[string]any)
			got, _ := cjson.Marshal(ExpectOf(vec["op"].(string), vec["modes"].(map[string]any), vec["in"].(map[string]any)))
			exp, _ := cjson.Marshal(vec["expect"])
			if !bytes.Equal(got, exp) {
				t.Errorf("%s %s: expect %s, evaluated %s", filepath.Base(g), vec["id"], exp, got)
			}
		}
	}
}
