package bench

import (
	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/tensor"
)

// Apps times the decoders users run: an int_synth decode of a
// 4-layer set at 256×256 output, lowering and certificate included as a
// sink without a cache makes it, and a world/1 render of 32 frames, on
// every fabric, in frames per second. Each fabric loads the lowered
// graphs itself (a fabric is a fabric.Loader). want picks which of
// "int_synth" and "world" run (Sweep.Wants).
func Apps(fabrics []fabric.Fabric, opt Options, want func(op string) bool) []Figure {
	set, payload := setcorpus.SampleSynth()
	tNet, gsNet := setcorpus.SampleWorld()
	z0 := tensor.New(tensor.Shape{C: 2, H: 64, W: 64})
	rows := make([][]int64, 31)
	for i := range rows {
		rows[i] = []int64{1, -1, 0}
	}
	var figs []Figure
	var firstSynth, firstWorld []*tensor.T
	for j, f := range fabrics {
		if want("int_synth") {
			fig := Figure{Case: "int_synth_256", Op: "int_synth", Size: 256, Fabric: f.Name(), Unit: "frame", Work: 1}
			fig, outs := timeRuns(fig, opt, func() ([]*tensor.T, error) {
				fr, err := drivers.DecodeSynth(f, set, payload)
				return []*tensor.T{fr}, err
			})
			figs = append(figs, compareFirst(fig, outs, j == 0, &firstSynth))
		}
		if want("world") {
			fig := Figure{Case: "world_32x64", Op: "world", Size: 64, Fabric: f.Name(), Unit: "frame", Work: 32}
			fig, outs := timeRuns(fig, opt, func() ([]*tensor.T, error) { return drivers.RenderWorld(f, tNet, gsNet, z0, rows) })
			figs = append(figs, compareFirst(fig, outs, j == 0, &firstWorld))
		}
	}
	return figs
}
