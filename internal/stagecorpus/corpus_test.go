package stagecorpus

import "testing"

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
}
