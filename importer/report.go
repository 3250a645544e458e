package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/waiops/waiops/certify"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Report is what `waiops import --report` writes as report.json.
type Report struct {
	Model   string `json:"model"`
	Profile string `json:"profile"` // the profile asked for
	Verdict struct {
		Acc32 bool `json:"acc32"`
		Acc64 bool `json:"acc64"`
	} `json:"verdict"`
	Acts        int      `json:"acts_bits"`
	Weights     int      `json:"weights_bits"`
	ScaleRule   string   `json:"scale_rule"`
	Calibration []string `json:"calibration_inputs"`
	HeldOut     []string `json:"held_out_inputs"`
	// HeldOutIsCalibration says no held-out inputs were given, so the
	// figures are on the calibration inputs.
	HeldOutIsCalibration bool          `json:"held_out_is_calibration"`
	Outputs              []OutputError `json:"outputs"`
	Layers               []ReportLayer `json:"layers"`
}

// ReportLayer is one row of the per-layer table: the layer's scales and
// ranges, its error, and its operator's certified intervals (§8.5).
type ReportLayer struct {
	LayerInfo
	PSNR   float64 `json:"psnr_db"`
	MaxAbs float64 `json:"max_abs_error"`
	// Out is the certificate's interval of the output tensor, after its
	// policy; Intermediates the operator's §8.5 intervals.
	Out           Bound            `json:"certified_out"`
	Intermediates map[string]Bound `json:"certified_intermediates"`
}

// Bound is a certified interval: its ends (decimal, as §8.5 writes them)
// and bits.
type Bound struct {
	Lo   string `json:"lo"`
	Hi   string `json:"hi"`
	Bits int    `json:"bits"`
}

func boundOf(iv certify.Interval) Bound {
	return Bound{Lo: iv.Lo.String(), Hi: iv.Hi.String(), Bits: iv.Bits()}
}

func (b Bound) String() string { return fmt.Sprintf("[%s, %s] (%d bits)", b.Lo, b.Hi, b.Bits) }

// scaleRule is the rule of integer.go, for the report.
func scaleRule(acts int) string {
	h := Headroom(acts)
	return fmt.Sprintf("activation scale = %.2f × max|v| over the calibration inputs / Q (Q = 2^(acts−1) − 1 = %d), "+
		"tensor clamped to [−Q, Q]; latents at scale 1, clamped to ±⌈%.2f × max|latent|⌉; weights per output channel "+
		"max|w| / Qw, raised where the accumulator bound of the profile needs it", h, 1<<(acts-1)-1, 2*h)
}

// NewReport gathers the report of an import measured on held-out inputs.
func NewReport(r *Result, model string, cal, held []Latent, heldIsCal bool, oe []OutputError, le []LayerError) *Report {
	rep := &Report{Model: model, Profile: string(r.Options.Profile), Acts: r.Options.Acts, Weights: r.Options.Weights,
		ScaleRule: scaleRule(r.Options.Acts), HeldOutIsCalibration: heldIsCal, Outputs: oe}
	rep.Verdict.Acc32, rep.Verdict.Acc64 = r.Cert.Verdict.Acc32, r.Cert.Verdict.Acc64
	for _, l := range cal {
		rep.Calibration = append(rep.Calibration, l.Name)
	}
	for _, l := range held {
		rep.HeldOut = append(rep.HeldOut, l.Name)
	}
	nodes := r.Cert.Graphs[0].Nodes
	tensors := r.Cert.Graphs[0].Tensors
	for k, l := range r.Layers {
		row := ReportLayer{LayerInfo: l, PSNR: le[k].PSNR, MaxAbs: le[k].MaxAbs, Intermediates: map[string]Bound{}}
		row.Out = boundOf(tensors[r.g.Ops[l.OpIndex].Out[0]])
		for key, iv := range nodes[l.OpIndex].Intermediates {
			row.Intermediates[key] = boundOf(iv)
		}
		rep.Layers = append(rep.Layers, row)
	}
	return rep
}

// finite writes ±Inf (an exact match) as a large number JSON can hold.
func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return math.Copysign(999, v)
	}
	return v
}

// Write writes report.json, report.md and layers.png into dir.
func (rep *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c := *rep
	c.Outputs = append([]OutputError(nil), rep.Outputs...)
	for i := range c.Outputs {
		c.Outputs[i].PSNR = finite(c.Outputs[i].PSNR)
	}
	c.Layers = append([]ReportLayer(nil), rep.Layers...)
	for i := range c.Layers {
		c.Layers[i].PSNR = finite(c.Layers[i].PSNR)
	}
	j, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	return rep.plot(filepath.Join(dir, "layers.png"))
}

func (rep *Report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Import of %s\n\n", rep.Model)
	fmt.Fprintf(&b, "Profile asked: **%s**. Certificate verdict: acc32 %v, acc64 %v.\n", rep.Profile, rep.Verdict.Acc32, rep.Verdict.Acc64)
	fmt.Fprintf(&b, "Activations i%d, weights i%d.\n\nScale rule: %s.\n\n", rep.Acts, rep.Weights, rep.ScaleRule)
	fmt.Fprintf(&b, "Calibration inputs: %s.\n", strings.Join(rep.Calibration, ", "))
	if rep.HeldOutIsCalibration {
		b.WriteString("No held-out inputs were given: the figures below are on the calibration inputs.\n\n")
	} else {
		fmt.Fprintf(&b, "Held-out inputs: %s.\n\n", strings.Join(rep.HeldOut, ", "))
	}
	b.WriteString("## The exact decode against the float model\n\n")
	b.WriteString("A picture output (3 channels) is compared as 8-bit samples with the float output clamped to [0, 1] and scaled by 255; PSNR's peak is 255 there and the largest |float| elsewhere.\n\n")
	b.WriteString("| output | PSNR (dB) | max abs error | share of samples differing after rounding |\n|---|---|---|---|\n")
	for _, o := range rep.Outputs {
		fmt.Fprintf(&b, "| %s | %.2f | %.4g | %.4f |\n", o.Name, o.PSNR, o.MaxAbs, o.Differ)
	}
	b.WriteString("\n## Layers\n\nEach layer's exact value, read at its scale, against the float value; PSNR's peak is the layer's calibrated range. ")
	b.WriteString("The certified interval is the certificate's (§8.5) for the operator's output tensor, after its policy.\n\n")
	b.WriteString("| # | node | ONNX | op | calibrated range | scale | integer range | weight scales | PSNR (dB) | max abs error | certified out | widest intermediate |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, l := range rep.Layers {
		ws := ""
		if l.WScaleHi > 0 {
			ws = fmt.Sprintf("%.3g–%.3g", l.WScaleLo, l.WScaleHi)
			if l.Raised > 0 {
				ws += fmt.Sprintf(" (%d raised)", l.Raised)
			}
		}
		var wide Bound
		wideKey := ""
		for k, v := range l.Intermediates {
			if wideKey == "" || v.Bits > wide.Bits || v.Bits == wide.Bits && k < wideKey {
				wide, wideKey = v, k
			}
		}
		widest := ""
		if wideKey != "" {
			widest = wideKey + " " + wide.String()
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.4g | %.4g | [%d, %d] | %s | %.2f | %.4g | %s | %s |\n",
			i, l.Node, l.ONNXOp, l.Op, l.Range, l.Scale, l.Lo, l.Hi, ws, l.PSNR, l.MaxAbs, l.Out, widest)
	}
	b.WriteString("\n![error by layer](layers.png)\n")
	return b.String()
}

// plot draws each layer's PSNR against the float model.
func (rep *Report) plot(path string) error {
	p := plot.New()
	p.Title.Text = "exact decode against the float model, by layer"
	p.X.Label.Text = "layer"
	p.Y.Label.Text = "PSNR (dB), peak = calibrated range"
	var xys plotter.XYs
	for i, l := range rep.Layers {
		xys = append(xys, plotter.XY{X: float64(i), Y: min(finite(l.PSNR), 150)})
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	p.Add(line, points, plotter.NewGrid())
	return p.Save(6*vg.Inch, 3.5*vg.Inch, path)
}
