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
			outs[k].add(o, got[k].Data, vals[o.value].d)
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
	var oe []OutputError
	for k, o := range r.Outputs {
		oe = append(oe, outs[k].result(o))
	}
	var le []LayerError
	for k, l := range r.Layers {
		le = append(le, LayerError{Node: l.Node, Op: l.Op, PSNR: lays[k].psnr(), MaxAbs: lays[k].max})
	}
	return oe, le, nil
}

// acc gathers an output's or a layer's error over held-out inputs.
type acc struct{ se, max, n, differ, peak float64 }

// add compares one exact decode of output o with the float model's output
// on the same input, sample by sample.
func (a *acc) add(o OutputInfo, exact []int64, float []float64) {
	for i, v := range exact {
		want := float[i] / o.Scale // in integer units
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

func (a acc) psnr() float64 {
	if a.se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(a.peak*a.peak/(a.se/a.n))
}

// result is output o's error over the decodes added.
func (a acc) result(o OutputInfo) OutputError {
	scale := o.Scale
	if o.Image {
		scale = 1
	}
	return OutputError{Name: o.Name, PSNR: a.psnr(), MaxAbs: a.max * scale, Differ: a.differ / max(a.n, 1)}
}

// Error compares one exact decode of output o with a float decode of the
// same model on the same input (ONNX Runtime's, say), as Measure does with
// the importer's own float evaluator.
func (o OutputInfo) Error(exact []int64, float []float64) OutputError {
	var a acc
	a.add(o, exact, float)
	return a.result(o)
}
