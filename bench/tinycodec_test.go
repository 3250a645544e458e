package bench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/importer"
	"github.com/waiops/waiops/tensor"
)

// TestTinycodecCases: the imported network's cases are the example's two
// held-out pictures, its graph the one `waiops import` makes of the files
// on disk with no flags (the embedded files are those), certified at
// acc32, and the CPU fabric's decode of each whole 32×32 latent equals the
// importer's own exact decode (cpuref on its graph), a 3×256×256 picture
// of 8-bit samples, ≥ 50 dB from the float model (the importer's quality bar at i16).
// Work: 32·48·25·32² + 48·48·25·64² + 48·3·25·128² = 334 233 600 MACs.
func TestTinycodecCases(t *testing.T) {
	cs, err := tinycodecCases(0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
	}
	if !slices.Equal(names, []string{"tinycodec_astronaut", "tinycodec_chelsea"}) {
		t.Fatalf("cases %v", names)
	}
	dir := filepath.Join("..", "examples", "tinycodec")
	model, err := os.ReadFile(filepath.Join(dir, "synthesis.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := importer.ReadLatents(filepath.Join(dir, "calib"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := importer.Import(model, cal, importer.Options{Acts: 16, Weights: 16, Profile: certify.Acc32})
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := cpuref.LoadBytes(r.Graph)
	if err != nil {
		t.Fatal(err)
	}
	held, err := importer.ReadLatents(filepath.Join(dir, "heldout"))
	if err != nil {
		t.Fatal(err)
	}
	oe, _, err := r.Measure(held)
	if err != nil || oe[0].PSNR < 50 {
		t.Fatalf("against the float model: %+v %v", oe, err)
	}
	cpu := fabric.NewCPU()
	for i, c := range cs {
		if !bytes.Equal(c.Graph, r.Graph) || !bytes.Equal(c.Float.ONNX, model) {
			t.Fatalf("%s: the graph or ONNX differs from the import of the files on disk", c.Name())
		}
		if _, _, err := certify.Load(c.Graph, certify.Acc32); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if c.Input[0].Shape != (tensor.Shape{C: 32, H: 32, W: 32}) || !slices.Equal(c.Input[0].Data, held[i].T.Data) ||
			c.Size != 32 || c.Work != 334233600 || c.Unit != "MAC" {
			t.Fatalf("%s: input %v, size %d, work %d %s", c.Name(), c.Input[0].Shape, c.Size, c.Work, c.Unit)
		}
		dec, _, err := cpu.Load(c.Graph)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.Decode(c.Input, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Decode(c.Input, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(got, want) || got[0].Shape != (tensor.Shape{C: 3, H: 256, W: 256}) ||
			slices.Min(got[0].Data) < 0 || slices.Max(got[0].Data) > 255 {
			t.Fatalf("%s: the CPU fabric's %v differs from the importer's exact decode %v, or is no picture", c.Name(), got[0].Shape, want[0].Shape)
		}
	}
}

// TestTinycodecQuick: quick crops each latent to its top-left 8×8, a
// 64×64 picture of 32·48·25·8² + 48·48·25·16² + 48·3·25·32² = 20 889 600
// MACs, and the fabrics present decode it to equal outputs.
func TestTinycodecQuick(t *testing.T) {
	s := DefaultSweep(true)
	s.Ops = []string{tinycodecOp}
	cs := mustCases(t, s)
	if len(cs) != 2 || cs[0].Work != 20889600 || cs[1].Input[0].Shape != (tensor.Shape{C: 32, H: 8, W: 8}) {
		t.Fatalf("cases %+v", cs)
	}
	fabrics, _, err := fabric.Fabrics("all")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Run(fabrics, cs, Options{Runs: 1, Budget: 1}, nil) {
		if f.Err != "" || !f.EqualToFirst {
			t.Fatalf("%s on %s: %s, equal %v", f.Case, f.Fabric, f.Err, f.EqualToFirst)
		}
	}
}

// TestCorner: the top-left 2×2 of a 2×3×3 tensor holding 0…17, every
// channel; a corner wider than the tensor is the whole tensor.
func TestCorner(t *testing.T) {
	x := tensor.New(tensor.Shape{C: 2, H: 3, W: 3})
	for i := range x.Data {
		x.Data[i] = int64(i)
	}
	c := corner(x, 2)
	if c.Shape != (tensor.Shape{C: 2, H: 2, W: 2}) || !slices.Equal(c.Data, []int64{0, 1, 3, 4, 9, 10, 12, 13}) {
		t.Fatalf("corner %v %v", c.Shape, c.Data)
	}
	if c := corner(x, 5); c.Shape != x.Shape || !slices.Equal(c.Data, x.Data) {
		t.Fatalf("a corner of 5: %v %v", c.Shape, c.Data)
	}
}

// TestTinycodecOnORT: where onnxruntime-node is installed, the float peer
// runs the imported network's own ONNX on the quick (8×8) latents at each
// thread count, and our picture is within 50 dB of its (the importer's quality bar).
func TestTinycodecOnORT(t *testing.T) {
	needORT(t)
	cs, err := tinycodecCases(8)
	if err != nil {
		t.Fatal(err)
	}
	ps := RunNetPeers("peers", cs, Options{Runs: 1, Budget: 1})
	if len(ps) != 2*len(threadCounts()) {
		t.Fatalf("%d entries", len(ps))
	}
	for _, p := range ps {
		e := p.AgainstPeer
		if p.Skipped != "" || p.Err != "" || p.PeerNS <= 0 || e == nil || e.PSNR < 50 || math.IsInf(e.PSNR, 1) ||
			e.MaxAbs > 3 || !strings.HasPrefix(p.Note, "same ONNX; ours against its output: PSNR ") {
			t.Fatalf("entry %+v, against the peer %+v", p, e)
		}
	}
}

// TestSlopesNeedTwoWorks: a family whose figures all have one work (the
// imported network's two pictures) gets no fit; two works get one.
func TestSlopesNeedTwoWorks(t *testing.T) {
	figs := []Figure{
		{Op: "tinycodec", Fabric: "cpu", Work: 100, MedianNS: 10},
		{Op: "tinycodec", Fabric: "cpu", Work: 100, MedianNS: 12},
		{Op: "conv1x1", Fabric: "cpu", Work: 100, MedianNS: 10},
		{Op: "conv1x1", Fabric: "cpu", Work: 200, MedianNS: 20},
	}
	s := Slopes(figs)
	if len(s) != 1 || s[0].Op != "conv1x1" || math.Abs(s[0].NSPerUnit-0.1) > 1e-12 {
		t.Fatalf("slopes %+v", s)
	}
}
