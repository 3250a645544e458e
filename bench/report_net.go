package bench

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// netMarkdown is the whole-network section: each network case's decode
// time, ours against the float peer per thread count, and where our time
// goes by operator.
func (r *Report) netMarkdown(b *strings.Builder) {
	if len(r.NetPeers) == 0 {
		return
	}
	b.WriteString("\n## Whole networks against a float peer\n\n" +
		"Ours is the CPU fabric's exact decode. For graph_synth4 and bmshj2018 the peer decodes the network's float twin " +
		"(same shapes, fp32 weights, igdn as x·√(β + γ·x²)), whose outputs are checked for shape and finiteness only; " +
		"for tinycodec, the imported network, it decodes the very ONNX the graph was imported from, " +
		"and the note gives our output against the peer's (PSNR in 8-bit steps, largest difference, share of samples that differ after rounding). " +
		"Speed is the peer's time over ours: above 1, we decode faster. " +
		"Peak RSS: ours is one load and decode inside this process, from its resident set before " +
		"(shown after the slash); the peer's is its whole process, from its resident set before the model was loaded.\n\n" +
		"| case | threads | ours | peer | peer time | ours speed / peer | ours peak RSS | peer peak RSS | note |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.NetPeers {
		ours := "–"
		if p.Err != "" {
			ours = "refused: " + p.Err
		} else if p.OursNS > 0 {
			ours = dur(p.OursNS)
		}
		peer, speed, note := "–", "–", p.Note
		if p.Skipped != "" {
			note = "skipped: " + p.Skipped
		} else if p.PeerNS > 0 {
			peer = dur(p.PeerNS)
			speed = fmt.Sprintf("%.2f", p.Speed)
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", p.Case, p.Threads, ours, p.Peer, peer, speed,
			rss(p.OursPeakRSS, p.OursBaseRSS), rss(p.PeerPeakRSS, p.PeerBaseRSS), note)
	}
	for _, p := range r.NetPeers {
		stepTable(b, fmt.Sprintf("Where %s's time goes at %d thread(s), inside the whole decode", p.Case, p.Threads),
			"Each step's wall time inside whole decodes (the median of the runs): a relu, clamp or leaky "+
				"folded into its producer runs in that producer's step and has no row of its own, and the "+
				"tensors between steps are at the widths the decode stores them.", "the steps' outputs", p.InDecode, p.OursNS, p.InDecodeEqual)
		stepTable(b, fmt.Sprintf("Where %s's time goes at %d thread(s), operator by operator", p.Case, p.Threads),
			"Each operator alone, as a one-op graph on the previous one's outputs (int64 tensors in and out, "+
				"no folding across operators).", "the last step's outputs", p.Steps, p.OursNS, p.StepsEqual)
	}
}

// stepTable writes one table of where a network's time goes, a row a step,
// with the shares by operator and the steps' sum beside the whole decode's
// time (whole); what says whose outputs equal says of.
func stepTable(b *strings.Builder, title, intro, what string, steps []Step, whole float64, equal bool) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s\n\n%s\n\n| # | op | output | time | share |\n|---|---|---|---|---|\n", title, intro)
	sum, kinds, order := 0.0, map[string]float64{}, []string{}
	for _, s := range steps {
		sum += s.MedianNS
		if _, ok := kinds[s.Op]; !ok {
			order = append(order, s.Op)
		}
		kinds[s.Op] += s.MedianNS
	}
	for _, s := range steps {
		if s.Err != "" {
			fmt.Fprintf(b, "| %d | %s | – | refused: %s | – |\n", s.Index, s.Op, s.Err)
			continue
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %.1f %% |\n", s.Index, s.Op, s.Out, dur(s.MedianNS), 100*s.MedianNS/sum)
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s %.1f %%", k, 100*kinds[k]/sum))
	}
	fmt.Fprintf(b, "\nBy operator: %s. The steps sum to %s; the whole decode took %s; "+
		"%s equal the whole decode's: %v.\n", strings.Join(parts, ", "), dur(sum), dur(whole), what, equal)
}

// rss is a peak resident set with the one before it, in MiB.
func rss(peak, base int64) string {
	if peak == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f / %.0f MiB", float64(peak)/1024, float64(base)/1024)
}

// netPlot draws networks.png: each network case's decode time in ms, ours
// beside the float peer's, one group of bars per case and thread count.
func (r *Report) netPlot(dir string) error {
	var ours, peer plotter.Values
	var labels []string
	top := 0.0
	for _, p := range r.NetPeers {
		if p.OursNS <= 0 {
			continue
		}
		top = max(top, p.OursNS/1e6, p.PeerNS/1e6)
		ours = append(ours, p.OursNS/1e6)
		peer = append(peer, p.PeerNS/1e6) // 0 where the peer was skipped
		labels = append(labels, fmt.Sprintf("%s\n%d thread(s)", p.Case, p.Threads))
	}
	if len(ours) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = "whole-network decode time"
	p.Y.Label.Text = "ms per decode"
	w := vg.Points(14)
	for i, v := range []struct {
		name string
		vals plotter.Values
	}{{"ours, exact (CPU fabric)", ours}, {ortFloat + " (float model)", peer}} {
		bars, err := plotter.NewBarChart(v.vals, w)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(2*i-1) / 2
		p.Add(bars)
		p.Legend.Add(v.name, bars)
	}
	p.Legend.Top = true
	p.NominalX(labels...)
	p.Y.Min, p.Y.Max = 0, top*1.35 // headroom: the legend covers no bar
	return p.Save(vg.Length(max(5, 1.4*float64(len(labels))))*vg.Inch, 3.5*vg.Inch, filepath.Join(dir, "networks.png"))
}
