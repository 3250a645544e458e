package vectors

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// FuzzParse reads arbitrary vector files with the §14.1 reader. Parse takes
// only canonical lines, so a file that reads writes back to its own bytes,
// and every outcome it holds is "ok" or a spec code.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"ops", "graphs", "stage"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, name := range files {
			fh, err := os.Open(name)
			if err != nil {
				f.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 1<<22)
			for n := 0; sc.Scan() && n < 2; n++ {
				if len(sc.Bytes()) < 1<<11 {
					f.Add(append(bytes.Clone(sc.Bytes()), '\n'))
				}
			}
			fh.Close()
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		code := func(c refusal.Code) {
			if _, ok := spectest.Codes[c]; !ok {
				t.Fatalf("outcome %q is not a spec code", c)
			}
		}
		for _, v := range file.Graph {
			if v.Load != LoadOK {
				code(v.Load)
			}
			for _, d := range v.Decodes {
				if d.Outputs == nil {
					code(d.Refuse)
				}
			}
		}
		for _, s := range file.Stage {
			if c, ok := s.Expect["refuse"].(string); ok {
				code(refusal.Code(c))
			}
		}
		w, err := file.Marshal()
		if err != nil {
			t.Fatalf("a file that reads does not write: %v", err)
		}
		if !bytes.Equal(w, b) {
			t.Fatalf("written back as\n%s\nfrom\n%s", w, b)
		}
	})
}
