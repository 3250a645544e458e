//go:build cgo

package gpu

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// openDevice opens the GL device. Without one the test is skipped, unless
// Required (CI sets WAIOPS_REQUIRE_GPU=1), where a missing context fails it
// (docs/CONVENTIONS.md §2: an error, not a skip, where the fabric should exist).
func openDevice(tb testing.TB) *Device {
	tb.Helper()
	d, err := Open()
	if err != nil {
		if Required() {
			tb.Fatalf("%s is set and there is no GL context: %v", RequireEnv, err)
		}
		tb.Skipf("no GL device: %v", err)
	}
	return d
}

// in is a graph input of a test graph: its channels, its clamp range and
// the size it declares (and is fed at).
type in struct {
	c      uint32
	lo, hi int64
	h, w   int
}

// oneOp is a graph of one operator: its inputs as tensors 0.., its outputs
// (derived, with the channels given) after them.
func oneOp(code whg1.Opcode, params any, ins []in, outC ...uint32) *whg1.Graph {
	g := &whg1.Graph{}
	op := whg1.Op{Code: code, Params: params}
	for _, x := range ins {
		t := uint32(len(g.Tensors))
		g.Tensors = append(g.Tensors, whg1.Tensor{Channels: x.c, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: x.lo, Hi: x.hi})
		g.Inputs = append(g.Inputs, whg1.Input{Tensor: t, MaxH: uint32(x.h), MaxW: uint32(x.w)})
		op.In = append(op.In, t)
	}
	for _, c := range outC {
		t := uint32(len(g.Tensors))
		g.Tensors = append(g.Tensors, whg1.Tensor{Channels: c, Exponent: whg1.NoExponent})
		g.Outputs = append(g.Outputs, t)
		op.Out = append(op.Out, t)
	}
	g.Ops = []whg1.Op{op}
	return g
}

// edgeData is a tensor of shape s whose elements start with the range's
// ends and their neighbours, 0, ±1 and the halves of the range, then run
// on uniformly in [lo, hi] (docs/CONVENTIONS.md §2: random inside the bounds, and
// at their ends).
func edgeData(r *rand.Rand, s tensor.Shape, lo, hi int64) *tensor.T {
	t := tensor.New(s)
	edges := []int64{lo, hi, lo + 1, hi - 1, 0, 1, -1, lo / 2, hi / 2, 3, -3, 1 << 30, -1 << 30, 1 << 15, -1 << 15}
	for i := range t.Data {
		if i < len(edges) {
			t.Data[i] = min(max(edges[i], lo), hi)
			continue
		}
		t.Data[i] = lo + int64(r.Uint64N(uint64(hi-lo)+1))
	}
	return t
}

// same decodes g's bytes on the device and on cpuref and requires equal
// outputs (== on every element, no tolerance: docs/CONVENTIONS.md §2), or
// refusals with the same code. It returns the device's refusal, if any.
func same(t *testing.T, d *Device, name string, g *whg1.Graph, inputs []*tensor.T, scalars []int64) error {
	t.Helper()
	b := whg1.Encode(g)
	gg, _, err := certify.Load(b, certify.Acc32)
	if err != nil {
		t.Fatalf("%s: the test graph does not load under acc32: %v", name, err)
	}
	ref, err := cpuref.Load(gg)
	if err != nil {
		t.Fatalf("%s: cpuref: %v", name, err)
	}
	p, err := d.Load(b)
	if err != nil {
		t.Fatalf("%s: gpu Load: %v", name, err)
	}
	defer p.Close()
	want, werr := ref.Decode(inputs, scalars)
	got, gerr := p.Decode(inputs, scalars)
	if werr != nil || gerr != nil {
		// A refused decode: the same code at the same step (§4).
		var wr, gr *refusal.Error
		if !errors.As(werr, &wr) || !errors.As(gerr, &gr) || wr.Code != gr.Code {
			t.Fatalf("%s: cpuref err %v, gpu err %v", name, werr, gerr)
		}
		return gerr
	}
	for k := range want {
		if got[k].Shape != want[k].Shape {
			t.Fatalf("%s: output %d shape %v, cpuref %v", name, k, got[k].Shape, want[k].Shape)
		}
		if !slices.Equal(got[k].Data, want[k].Data) {
			for i := range want[k].Data {
				if got[k].Data[i] != want[k].Data[i] {
					t.Fatalf("%s: output %d element %d = %d, cpuref %d", name, k, i, got[k].Data[i], want[k].Data[i])
				}
			}
		}
	}
	return nil
}

// feed returns edge data for each input of ins, at its declared size.
func feed(r *rand.Rand, ins []in) []*tensor.T {
	out := make([]*tensor.T, len(ins))
	for i, x := range ins {
		out[i] = edgeData(r, tensor.Shape{C: int(x.c), H: x.h, W: x.w}, x.lo, x.hi)
	}
	return out
}

// forEachForm runs f under each form of the kernels a device may take:
// the register forms, texel reads and unpacked tensors of a software
// rasteriser (what llvmpipe picks), and the shared-tile forms and packed
// tensors a hardware GPU takes, with texel reads and with storage reads.
// CI's only GL is llvmpipe, so this is how the hardware forms are proven
// there too.
func forEachForm(t *testing.T, f func(t *testing.T)) {
	d := openDevice(t)
	forms := []struct {
		name            string
		software, texel bool
	}{{"software", true, true}, {"hardware", false, true}, {"hardware-storage", false, false}}
	for _, fm := range forms {
		if fm.texel && !d.Limits().texels() {
			continue // the device has no texel reads to force
		}
		t.Run(fm.name, func(t *testing.T) {
			defer SetForms(d, fm.software, fm.texel, !fm.software)()
			f(t)
		})
	}
}
