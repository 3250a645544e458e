package fabric

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// FuzzLoadDecode feeds arbitrary bytes through the whole path of a decode on
// the CPU reference: parse (§10.5 steps 1–7), the bounds pass (step 8) and,
// for a graph that loads and declares small sizes, one decode at its
// declared sizes. Nothing may panic or hang; a refusal carries one of §4's
// codes.
// Seeds are the graphs of the committed corpus.
func FuzzLoadDecode(f *testing.F) {
	seedGraphs(f)
	cpu := NewCPU()
	f.Fuzz(func(t *testing.T, b []byte) {
		dec, g, err := cpu.Load(b)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch, refusal.TooLarge)
			return
		}
		in, ok := smallInputs(g)
		if !ok {
			return
		}
		scalars := make([]int64, len(g.Scalars))
		for i, s := range g.Scalars {
			scalars[i] = s.Lo
		}
		if _, err := whg1.NewSequence(g, dec).Decode(in, scalars); err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch, refusal.TooLarge, refusal.FieldRange, refusal.GeometryMismatch)
		}
	})
}

// seedGraphs adds the graphs of the first vectors of each operator's file
// in the committed corpus as seeds.
func seedGraphs(f *testing.F) {
	files, _ := filepath.Glob("../vectors/ops/*.jsonl")
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<22)
		for n := 0; sc.Scan() && n < 8; n++ {
			var v struct{ Graph string }
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				if b, err := hex.DecodeString(v.Graph); err == nil && len(b) < 1<<16 {
					f.Add(b)
				}
			}
		}
		fh.Close()
	}
}

// smallInputs builds each data input at its declared size, filled with its
// range's low end, when every input is at most 4096 elements.
func smallInputs(g *whg1.Graph) ([]*tensor.T, bool) {
	if !g.SizesDeclared() {
		return nil, false
	}
	var in []*tensor.T
	for _, r := range g.Inputs {
		if r.Kind != whg1.DataInput {
			continue
		}
		rec := g.Tensors[r.Tensor]
		s := tensor.Shape{C: int(rec.Channels), H: int(r.MaxH), W: int(r.MaxW)}
		if uint64(rec.Channels)*uint64(r.MaxH)*uint64(r.MaxW) > 4096 {
			return nil, false
		}
		t := tensor.New(s)
		for i := range t.Data {
			t.Data[i] = rec.Lo
		}
		in = append(in, t)
	}
	return in, true
}
