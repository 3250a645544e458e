// Package bench measures waiops honestly: every operator family over a size
// sweep and whole networks (graph_synth4, bmshj2018), on every fabric
// present, with the GPU/CPU ratio taken in the same run and each fabric's
// outputs compared for equality, and beside outside peers: a C loop and
// ONNX Runtime on one conv, ONNX Runtime fp32 on each network's float twin.
// `waiops bench` drives it and writes bench.json, bench.md and PNG plots.
//
// Timing uses floating point; nothing here is an integer path of the spec.
package bench

import (
	"fmt"
	"io"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
)

// Options sets how many timed runs each figure takes, after Warmup untimed ones.
type Options struct {
	Runs, Warmup int
	// Budget caps the timed runs of one figure: past it the figure keeps
	// the runs made so far (at least one).
	Budget time.Duration
	// Split adds, on the GL fabric, one decode with its time split by kind
	// of GL call (gpu.Program.DecodeSplit) after the timed ones, which it
	// leaves as they are.
	Split bool
}

// Figure is one case on one fabric.
type Figure struct {
	Case       string  `json:"case"`
	Op         string  `json:"op"`
	Size       int     `json:"size"`
	Fabric     string  `json:"fabric"`
	Unit       string  `json:"unit"`
	Work       int64   `json:"work"`
	Runs       int     `json:"runs"`
	MedianNS   float64 `json:"median_ns"`
	MinNS      float64 `json:"min_ns"`
	MaxNS      float64 `json:"max_ns"`
	Throughput float64 `json:"per_second"` // Work per second at the median
	// EqualToFirst is whether this fabric's outputs equal the first
	// fabric's, bit for bit (always true for the first).
	EqualToFirst bool `json:"equal_to_first"`
	// OutputsSHA256 is outputsSHA256 of the last timed decode's outputs.
	OutputsSHA256 string `json:"outputs_sha256,omitempty"`
	// Split is one more decode's time split (Options.Split, GL fabric only).
	Split    *gpu.Split `json:"gpu_split,omitempty"`
	SplitErr string     `json:"gpu_split_error,omitempty"`
	Err      string     `json:"error,omitempty"`
}

// Run measures every case on every fabric. progress, when not nil, gets a
// one-line progress bar redrawn after each figure.
func Run(fabrics []fabric.Fabric, cases []*Case, opt Options, progress io.Writer) []Figure {
	var figs []Figure
	total := len(fabrics) * len(cases)
	for i, c := range cases {
		var first []*tensor.T
		for j, f := range fabrics {
			fig, outs := measure(f, c, opt)
			figs = append(figs, compareFirst(fig, outs, j == 0, &first))
			if progress != nil {
				drawBar(progress, i*len(fabrics)+j+1, total, c.Name()+" "+f.Name())
			}
		}
	}
	if progress != nil {
		fmt.Fprintln(progress)
	}
	return figs
}

// measure loads c on f and times its decodes.
func measure(f fabric.Fabric, c *Case, opt Options) (Figure, []*tensor.T) {
	fig := Figure{Case: c.Name(), Op: c.Op, Size: c.Size, Fabric: f.Name(), Unit: c.Unit, Work: c.Work}
	dec, _, err := f.Load(c.Graph)
	if err != nil {
		fig.Err = err.Error()
		return fig, nil
	}
	fig, outs := timeRuns(fig, opt, func() ([]*tensor.T, error) { return dec.Decode(c.Input, nil) })
	if sd, ok := dec.(splitDecoder); ok && opt.Split && fig.Err == "" {
		if _, s, err := sd.DecodeSplit(c.Input, nil); err == nil {
			fig.Split = &s
		} else {
			fig.SplitErr = err.Error()
		}
	}
	return fig, outs
}

// splitDecoder is a decoder that can split a decode's time (the GL
// fabric's Program).
type splitDecoder interface {
	DecodeSplit(inputs []*tensor.T, scalars []int64) ([]*tensor.T, gpu.Split, error)
}

// timeRuns makes opt.Warmup untimed calls of run, then up to opt.Runs timed
// ones, and fills in fig's statistics; it returns the last outputs.
func timeRuns(fig Figure, opt Options, run func() ([]*tensor.T, error)) (Figure, []*tensor.T) {
	var outs []*tensor.T
	var err error
	for range opt.Warmup {
		if outs, err = run(); err != nil {
			fig.Err = err.Error()
			return fig, nil
		}
	}
	var ns []float64
	start := time.Now()
	for len(ns) < opt.Runs && (len(ns) == 0 || time.Since(start) < opt.Budget) {
		t0 := time.Now()
		outs, err = run()
		d := time.Since(t0)
		if err != nil {
			fig.Err = err.Error()
			return fig, nil
		}
		ns = append(ns, float64(d.Nanoseconds()))
	}
	slices.Sort(ns)
	fig.Runs = len(ns)
	fig.MedianNS = stat.Quantile(0.5, stat.Empirical, ns, nil)
	fig.MinNS, fig.MaxNS = ns[0], ns[len(ns)-1]
	fig.Throughput = float64(fig.Work) / (fig.MedianNS / 1e9)
	fig.OutputsSHA256 = outputsSHA256(outs)
	return fig, outs
}

// compareFirst records the first fabric's outputs in *first and marks
// whether each later fabric's outputs equal them.
func compareFirst(fig Figure, outs []*tensor.T, isFirst bool, first *[]*tensor.T) Figure {
	if isFirst {
		*first = outs
		fig.EqualToFirst = outs != nil
	} else {
		fig.EqualToFirst = outs != nil && equal(*first, outs)
	}
	return fig
}

func equal(a, b []*tensor.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Shape != b[i].Shape || !slices.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func drawBar(w io.Writer, done, total int, what string) {
	const width = 30
	n := done * width / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(w, "\r[%s] %3d/%d %-40.40s", bar, done, total, what)
}

// Ratio is the GPU/CPU throughput ratio of one case, measured in one run.
type Ratio struct {
	Case  string  `json:"case"`
	Ratio float64 `json:"gpu_over_cpu"`
}

// Ratios pairs each case's gpu and cpu figures.
func Ratios(figs []Figure) []Ratio {
	cpu := map[string]Figure{}
	for _, f := range figs {
		if f.Fabric == "cpu" && f.Err == "" {
			cpu[f.Case] = f
		}
	}
	var rs []Ratio
	for _, f := range figs {
		if c, ok := cpu[f.Case]; ok && f.Fabric == "gpu" && f.Err == "" {
			rs = append(rs, Ratio{f.Case, f.Throughput / c.Throughput})
		}
	}
	return rs
}

// Slope is a least-squares fit of median time against work for one
// operator on one fabric: how cost grows with size.
type Slope struct {
	Op          string  `json:"op"`
	Fabric      string  `json:"fabric"`
	NSPerUnit   float64 `json:"ns_per_unit"`
	InterceptNS float64 `json:"intercept_ns"`
	R2          float64 `json:"r2"`
}

// Slopes fits every operator family with at least two sizes of different
// work (the imported network's pictures are all one size: nothing to fit).
func Slopes(figs []Figure) []Slope {
	type key struct{ op, fabric string }
	xs, ys := map[key][]float64{}, map[key][]float64{}
	var order []key
	for _, f := range figs {
		if f.Err != "" {
			continue
		}
		k := key{f.Op, f.Fabric}
		if _, ok := xs[k]; !ok {
			order = append(order, k)
		}
		xs[k] = append(xs[k], float64(f.Work))
		ys[k] = append(ys[k], f.MedianNS)
	}
	var out []Slope
	for _, k := range order {
		if slices.Min(xs[k]) == slices.Max(xs[k]) {
			continue
		}
		a, b := stat.LinearRegression(xs[k], ys[k], nil, false)
		r2 := stat.RSquared(xs[k], ys[k], nil, a, b)
		out = append(out, Slope{k.op, k.fabric, b, a, r2})
	}
	return out
}
