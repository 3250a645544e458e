package tensor

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waiops/waiops/cjson"
)

// FuzzFromJSON reads arbitrary JSON texts as §14.1 tensors. A tensor that
// reads writes back to a text that reads to the same tensor, and a
// canonical text (§8.5) that reads writes back to itself.
func FuzzFromJSON(f *testing.F) {
	f.Add([]byte(`{"data":["1","-2"],"shape":["1","1","2"]}`))
	f.Add([]byte(`{"data":[],"shape":["0","3","3"]}`))
	// The first input tensor of each operator's first vector.
	files, _ := filepath.Glob("../vectors/ops/*.jsonl")
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<22)
		if sc.Scan() {
			v, err := cjson.Unmarshal(sc.Bytes())
			if err == nil {
				if ds, ok := v.(map[string]any)["decodes"].([]any); ok && len(ds) > 0 {
					if in, ok := ds[0].(map[string]any)["inputs"].([]any); ok && len(in) > 0 {
						if b, err := cjson.Marshal(in[0]); err == nil && len(b) < 1<<14 {
							f.Add(b)
						}
					}
				}
			}
		}
		fh.Close()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := cjson.Unmarshal(b)
		if err != nil {
			return
		}
		x, err := FromJSON(v)
		if err != nil {
			return
		}
		if len(x.Data) != x.Shape.Elems() {
			t.Fatalf("%d elements for %v", len(x.Data), x.Shape)
		}
		w, err := cjson.Marshal(x.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if c, err := cjson.Marshal(v); err == nil && bytes.Equal(c, b) && !bytes.Equal(w, b) {
			t.Fatalf("canonical %s writes back as %s", b, w)
		}
		v2, err := cjson.Unmarshal(w)
		if err != nil {
			t.Fatal(err)
		}
		y, err := FromJSON(v2)
		if err != nil || y.Shape != x.Shape || !slices.Equal(y.Data, x.Data) {
			t.Fatalf("written back as %s, which reads as %v (%v)", w, y, err)
		}
	})
}
