//go:build cgo

package gpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// TestDecodeSplit: a split decode of add (§5.5) then abs (a relu would
// fold into the add: folds) gives the plain decode's outputs and counts each GL call of the decode: two inputs of
// 2×3×5 uploaded at i16 (2 × 60 bytes) and read so by the add, the add's
// and the abs's outputs taken from the pool, one add, one abs and one
// wire.comp dispatch (the output packed), one 60-byte readback; and the
// next plain decode records nothing.
func TestDecodeSplit(t *testing.T) {
	d := openDevice(t)
	ins := []in{{2, -1000, 1000, 3, 5}, {2, -1000, 1000, 3, 5}}
	g := oneOp(whg1.OpAdd, nil, ins, 2)
	g.Tensors = append(g.Tensors, whg1.Tensor{Channels: 2, Exponent: whg1.NoExponent})
	g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpAbs, In: []uint32{2}, Out: []uint32{3}})
	g.Outputs = []uint32{3}
	p, err := d.Load(whg1.Encode(g))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := feed(rand.New(rand.NewPCG(17, 1)), ins)
	want, err := p.Decode(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, s, err := p.DecodeSplit(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Data, want[0].Data) {
		t.Fatal("a split decode's outputs differ from the plain decode's")
	}
	// The plain decode before made the buffers: the split one takes them
	// from the program's pool and allocates none.
	// Each input's [-1000, 1000] and the output's [0, 2000] cross as i16
	// and u16: 30 elements in 60 bytes, the output packed by abs's store
	// (no wire.comp dispatch).
	if s.Uploads != 2 || s.UploadBytes != 120 || s.Allocs != 0 || s.Dispatches != 2 ||
		s.Readbacks != 1 || s.ReadbackBytes != 60 || s.IOElems != 90 {
		t.Fatalf("split counts %+v", s)
	}
	if len(s.Shaders) != 2 || s.Shaders[0].Shader != "add" || s.Shaders[1].Shader != "abs" ||
		s.Shaders[0].Dispatches != 1 || s.Shaders[1].Dispatches != 1 {
		t.Fatalf("split shaders %+v", s.Shaders)
	}
	if s.TotalNS <= 0 || s.HostNS() < 0 {
		t.Fatalf("split times %+v, host %d", s, s.HostNS())
	}
	if recording != nil {
		t.Fatal("a recorder is left after DecodeSplit")
	}
	if s.TimerBits > 0 && s.KernelNS != s.Shaders[0].KernelNS+s.Shaders[1].KernelNS {
		t.Fatalf("kernel time %d is not the shaders' sum %+v", s.KernelNS, s.Shaders)
	}
}

// TestFeatures: the extension list is sorted and holds none empty, and
// the work-group limits agree with the ones Open checked.
func TestFeatures(t *testing.T) {
	d := openDevice(t)
	f, err := d.Features()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(f.Extensions) || slices.Contains(f.Extensions, "") {
		t.Fatalf("extensions %q", f.Extensions)
	}
	if f.MaxGroupSize[0] != d.lim.MaxGroupSize[0] || f.MaxGroupCount[1] != d.lim.MaxGroupCount[1] {
		t.Fatalf("features %v %v, limits %v %v", f.MaxGroupSize, f.MaxGroupCount, d.lim.MaxGroupSize, d.lim.MaxGroupCount)
	}
}
