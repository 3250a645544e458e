package importer

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/tensor"
)

// OutputError is the exact decode against the float model on one output,
// over every held-out input.
type OutputError struct {
	Name string  `json:"name"`
	PSNR float64 `json:"psnr_db"` // peak: 255 for a picture, else the float output's largest |v|
	// MaxAbs is the largest |exact − float| in the output's real units
	// (8-bit sample units for a picture).
	MaxAbs float64 `json:"max_abs_error"`
	// Differ is the share of samples whose exact integer differs from the
	// float value rounded (and clamped) to the output's integer range.
	Differ float64 `json:"share_differing"`
}

// LayerError is one layer's error on the held-out inputs: the exact
// value, read at its scale, against the float value, relative to the
// layer's calibrated range.
type LayerError struct {
	Node   string  `json:"node"`
	Op     string  `json:"op"`
	PSNR   float64 `json:"psnr_db"` // peak: the calibrated range
	MaxAbs float64 `json:"max_abs_error"`
}

// Measure decodes every held-out latent with the exact graph (cpuref) and
// with the float evaluator, and compares them output by output and layer
// by layer. Each layer's value is read from a probe graph: the imported
// graph with every layer's tensor as an extra output.
func (r *Result) Measure(held []Latent) ([]OutputError, []LayerError, error) {
	probe := *r.g
	probe.Outputs = append([]uint32(nil), r.g.Outputs...)
	for _, l := range r.Layers {
		probe.Outputs = append(probe.Outputs, r.g.Ops[l.OpIndex].Out[0])
	}
	prog, err := cpuref.Load(&probe)
	if err != nil {
		return nil, nil, fmt.Errorf("the probe graph does not load: %w", err)
	}
	type acc struct{ se, max, n, differ, peak float64 }
	outs := make([]acc, len(r.Outputs))
	lays := make([]acc, len(r.Layers))
	for _, h := range held {
		vals, err := r.net.evaluate(floatOf(h.T))
		if err != nil {
			return nil, nil, fmt.Errorf("held-out input %s: %w", h.Name, err)
		}
		got, err := prog.Decode([]*tensor.T{h.T}, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("held-out input %s: %w", h.Name, err)
		}
		for k, o := range r.Outputs {
			a := &outs[k]
			f := vals[o.value]
			for i, v := range got[k].Data {
				want := f.d[i] / o.Scale // in integer units
				if o.Image {
					// The float codec's picture: its output clamped to [0, 1].
					want = min(max(want, 0), 255)
				}
				d := math.Abs(float64(v) + o.Offset - want)
				if o.Image {
					a.peak = 255
				} else {
					a.peak = max(a.peak, math.Abs(want))
				}
				a.se += d * d
				a.max = max(a.max, d)
				a.n++
				if float64(v) != math.Round(min(max(want-o.Offset, float64(o.Lo)), float64(o.Hi))) {
					a.differ++
				}
			}
		}
		for k, l := range r.Layers {
			a := &lays[k]
			f := vals[l.value]
			t := got[len(r.Outputs)+k]
			for i, v := range t.Data {
				want := f.d[i]
				if l.image {
					want = min(max(want, 0), 1)
				}
				d := math.Abs((float64(v)+l.off)*l.Scale - want)
				a.se += d * d
				a.max = max(a.max, d)
				a.n++
			}
			a.peak = l.Range
		}
	}
	psnr := func(a acc) float64 {
		if a.se == 0 {
			return math.Inf(1)
		}
		return 10 * math.Log10(a.peak*a.peak/(a.se/a.n))
	}
	var oe []OutputError
	for k, o := range r.Outputs {
		a := outs[k]
		scale := o.Scale
		if o.Image {
			scale = 1
		}
		oe = append(oe, OutputError{Name: o.Name, PSNR: psnr(a), MaxAbs: a.max * scale, Differ: a.differ / max(a.n, 1)})
	}
	var le []LayerError
	for k, l := range r.Layers {
		le = append(le, LayerError{Node: l.Node, Op: l.Op, PSNR: psnr(lays[k]), MaxAbs: lays[k].max})
	}
	return oe, le, nil
}
