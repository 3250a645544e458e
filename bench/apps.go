package bench

import (
	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// loaderOf lets a driver load its lowered graphs on fabric f.
func loaderOf(f plan.Fabric) drivers.Loader {
	return func(b []byte) (whg1.Decoder, *whg1.Graph, string, error) {
		dec, g, err := f.Load(b)
		return dec, g, f.Name(), err
	}
}

// framesOf turns decoded frames into tensors so that fabrics compare with
// the same equality as graph outputs.
func framesOf(fs []drivers.Frame) []*tensor.T {
	out := make([]*tensor.T, len(fs))
	for i, f := range fs {
		d := make([]int64, len(f.RGB))
		for j, b := range f.RGB {
			d[j] = int64(b)
		}
		out[i] = &tensor.T{Shape: tensor.Shape{C: 1, H: f.H, W: 3 * f.W}, Data: d}
	}
	return out
}

// Apps times the decoders users run: an int_synth decode of a
// 4-layer set at 256×256 output, lowering and certificate included as a
// sink without a cache makes it, and a world/1 render of 32 frames, on
// every fabric, in frames per second. want picks which of "int_synth" and
// "world" run (Sweep.Wants).
func Apps(fabrics []plan.Fabric, opt Options, want func(op string) bool) []Figure {
	set, payload := drivers.SampleSynth()
	tNet, gsNet := drivers.SampleWorld()
	z0 := tensor.New(tensor.Shape{C: 2, H: 64, W: 64})
	rows := make([][]int64, 31)
	for i := range rows {
		rows[i] = []int64{1, -1, 0}
	}
	var figs []Figure
	var firstSynth, firstWorld []*tensor.T
	for j, f := range fabrics {
		load := loaderOf(f)
		if want("int_synth") {
			fig := Figure{Case: "int_synth_256", Op: "int_synth", Size: 256, Fabric: f.Name(), Unit: "frame", Work: 1}
			fig, outs := timeRuns(fig, opt, func() ([]*tensor.T, error) {
				fr, _, err := drivers.DecodeSynth(load, set, payload)
				return framesOf([]drivers.Frame{fr}), err
			})
			figs = append(figs, compareFirst(fig, outs, j == 0, &firstSynth))
		}
		if want("world") {
			fig := Figure{Case: "world_32x64", Op: "world", Size: 64, Fabric: f.Name(), Unit: "frame", Work: 32}
			fig, outs := timeRuns(fig, opt, func() ([]*tensor.T, error) {
				frs, _, err := drivers.RenderWorld(load, tNet, gsNet, z0, rows)
				return framesOf(frs), err
			})
			figs = append(figs, compareFirst(fig, outs, j == 0, &firstWorld))
		}
	}
	return figs
}
