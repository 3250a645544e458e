package setcorpus

import (
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/vectors/conform"
)

// TestGraphCases runs every lowered graph vector on the CPU reference: the
// acc64-failing set's graphs refuse at load, the others decode their two
// inputs and refuse the third (field_range) where there is one.
func TestGraphCases(t *testing.T) {
	cases, err := GraphCases()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("id %s twice", c.ID)
		}
		ids[c.ID] = true
		dec, _, err := fabric.NewCPU().Load(c.Graph)
		if len(c.Decodes) == 0 {
			if conform.CodeOf(err) != refusal.ModelMismatch {
				t.Errorf("%s: load %v, want model_mismatch", c.ID, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for i, d := range c.Decodes {
			_, err := dec.Decode(d.Inputs, d.Scalars)
			if want := refusal.Code(""); i == 2 {
				want = refusal.FieldRange
				if conform.CodeOf(err) != want {
					t.Errorf("%s decode %d: %v, want %s", c.ID, i, err, want)
				}
			} else if err != nil {
				t.Errorf("%s decode %d: %v", c.ID, i, err)
			}
		}
	}
	if len(cases) != 15 { // 1 + 1 + 2 + 1 + 1 + 3 + 2 + 2 + 2 roles
		t.Errorf("%d cases", len(cases))
	}
}
