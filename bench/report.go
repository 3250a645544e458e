package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/gpu"
)

// Report is everything one `waiops bench` run measured.
type Report struct {
	Machine map[string]string            `json:"machine"`
	Fabrics map[string]map[string]string `json:"fabrics"` // name → identity
	Notes   []string                     `json:"notes,omitempty"`
	Figures []Figure                     `json:"figures"`
	Ratios  []Ratio                      `json:"ratios"`
	Slopes  []Slope                      `json:"slopes"`
	Peers   []Peer                       `json:"peers,omitempty"`
	// Headlines are the best int8 library peer at each data kind and
	// thread count (Headlines).
	Headlines []Headline `json:"peer_headlines,omitempty"`
	// NetPeers are the whole networks against a float peer (RunNetPeers).
	NetPeers []NetPeer `json:"network_peers,omitempty"`
}

// Machine describes the host the run was made on, with the CPU fabric's
// dot-product kernels picked on it (cpuref/dot: Mac16's and Mac8's).
func Machine() map[string]string {
	m := map[string]string{"goos": runtime.GOOS, "goarch": runtime.GOARCH,
		"go": runtime.Version(), "cpus": fmt.Sprint(runtime.NumCPU()),
		"dot16": dot.Selected(), "dot8": dot.Selected8()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m["cpu"] = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// Write puts bench.json, bench.md and one PNG per operator family in dir.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.md"), []byte(r.markdown()), 0o644); err != nil {
		return err
	}
	if err := r.plots(dir); err != nil {
		return err
	}
	return r.netPlot(dir)
}

func (r *Report) markdown() string {
	var b strings.Builder
	b.WriteString("# waiops bench\n\n")
	fmt.Fprintf(&b, "Machine: %s, %s/%s, %s CPUs, %s; CPU fabric's kernels: Mac16 %s, Mac8 %s.\n\n", r.Machine["cpu"],
		r.Machine["goos"], r.Machine["goarch"], r.Machine["cpus"], r.Machine["go"], r.Machine["dot16"], r.Machine["dot8"])
	for _, name := range sortedKeys(r.Fabrics) {
		fmt.Fprintf(&b, "- fabric `%s`: %s\n", name, identityLine(r.Fabrics[name]))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", n)
	}
	b.WriteString("\n| case | fabric | runs | median | min | max | throughput | equal |\n|---|---|---|---|---|---|---|---|\n")
	for _, f := range r.Figures {
		if f.Err != "" {
			fmt.Fprintf(&b, "| %s | %s | – | – | – | – | refused: %s | – |\n", f.Case, f.Fabric, f.Err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %v |\n", f.Case, f.Fabric, f.Runs,
			dur(f.MedianNS), dur(f.MinNS), dur(f.MaxNS), rate(f.Throughput, f.Unit), f.EqualToFirst)
	}
	r.splitTable(&b)
	if len(r.Ratios) > 0 {
		b.WriteString("\n## GPU / CPU (same run)\n\n| case | ratio |\n|---|---|\n")
		for _, x := range r.Ratios {
			fmt.Fprintf(&b, "| %s | %.3g |\n", x.Case, x.Ratio)
		}
	}
	if len(r.Slopes) > 0 {
		b.WriteString("\n## Cost against work (least squares over the size sweep)\n\n| op | fabric | ns per unit | intercept | R² |\n|---|---|---|---|---|\n")
	}
	for _, s := range r.Slopes {
		fmt.Fprintf(&b, "| %s | %s | %.4f | %s | %.3f |\n", s.Op, s.Fabric, s.NSPerUnit, dur(s.InterceptNS), s.R2)
	}
	r.peerMarkdown(&b)
	r.netMarkdown(&b)
	return b.String()
}

// peerMarkdown is the conv peers' table, each peer beside our CPU fabric
// at the same threads and output, then the headline ratios.
func (r *Report) peerMarkdown(b *strings.Builder) {
	if len(r.Peers) == 0 {
		return
	}
	b.WriteString("\n## Peers (same conv, same data, same threads)\n\n" +
		"conv 3×3 64→64, zero padding 1, i8 weights, i8 or u8 data. Output s32: the raw sums; " +
		"rq: the sums rounded half-even by 2^" + fmt.Sprint(qShift) + " and clamped to the data's 8 bits, " +
		"on both sides. Each side does the same task: the 8-bit input in its layout in memory, the conv, the output in the peer's type " +
		"(s32, or 8-bit bytes); ours is cpuref.Conv8 (the CPU fabric's kernels: the input's bytes packed, the tiles, the epilogue) " +
		"at GOMAXPROCS = threads. Ours (graph) is the same conv as a whole graph decode through the public API, int64 tensors in and out, " +
		"beside it. Peer and ours are throughputs at the medians; " +
		"ours / peer is at the medians and (fastest) at each side's fastest run.\n\n" +
		"| data | threads | peer | implementation | output | median | peer | ours | ours / peer | (fastest) | ours (graph) | outputs equal | note |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Peers {
		if p.Skipped != "" {
			fmt.Fprintf(b, "| %s | %d | %s | – | – | – | – | – | – | – | – | – | skipped: %s |\n", p.Data, p.Threads, p.Name, p.Skipped)
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %s | %v | %s |\n", p.Data, p.Threads, p.Name, orDash(p.Impl),
			p.Output, dur(p.MedianNS), rate(p.Throughput, "MAC"), rate(p.Ours, "MAC"), p.OursOverPeer, p.BestOverPeer,
			rate(p.OursGraph, "MAC"), p.Equal, p.Note)
	}
	if len(r.Headlines) == 0 {
		return
	}
	b.WriteString("\n### Ours / the best int8 peer at equal threads\n\n" +
		"The library peer (not the C loop) with the fastest run whose outputs equal ours, per data kind and thread count; " +
		"where it used AMX, which our kernels do not, also the fastest without.\n\n" +
		"| data | threads | peers | best peer | implementation | output | peer, fastest run | ours, fastest run | ours / peer, fastest | ours / peer, medians |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for _, h := range r.Headlines {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %.3f | %.3f |\n", h.Data, h.Threads, h.Scope, h.Peer, orDash(h.Impl), h.Output,
			rate(h.Fastest, "MAC"), rate(h.OursFastest, "MAC"), h.BestOverPeer, h.OursOverPeer)
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func identityLine(id map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(id) {
		parts = append(parts, k+"="+id[k])
	}
	return strings.Join(parts, ", ")
}

func dur(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func rate(perSec float64, unit string) string {
	switch {
	case perSec >= 1e9:
		return fmt.Sprintf("%.2f G%s/s", perSec/1e9, unit)
	case perSec >= 1e6:
		return fmt.Sprintf("%.1f M%s/s", perSec/1e6, unit)
	}
	return fmt.Sprintf("%.0f %s/s", perSec, unit)
}

// plots draws throughput against input side, one line per fabric, one PNG
// per operator family.
func (r *Report) plots(dir string) error {
	byOp := map[string]map[string]plotter.XYs{}
	unit := map[string]string{}
	var ops []string
	for _, f := range r.Figures {
		if f.Err != "" {
			continue
		}
		if byOp[f.Op] == nil {
			byOp[f.Op] = map[string]plotter.XYs{}
			ops = append(ops, f.Op)
		}
		byOp[f.Op][f.Fabric] = append(byOp[f.Op][f.Fabric], plotter.XY{X: float64(f.Size), Y: f.Throughput})
		unit[f.Op] = f.Unit
	}
	for _, op := range ops {
		p := plot.New()
		p.Title.Text = op
		p.X.Label.Text = "input side"
		// Throughput in the prefix its largest value reads best in (G MAC/s,
		// not 5e+09), and headroom above the lines for the legend, so it
		// covers no point.
		top := 0.0
		for _, xys := range byOp[op] {
			for _, xy := range xys {
				top = max(top, xy.Y)
			}
		}
		scale, prefix := axisScale(top)
		p.Y.Label.Text = prefix + unit[op] + "/s"
		var args []any
		for _, fab := range sortedKeys(byOp[op]) {
			xys := make(plotter.XYs, len(byOp[op][fab]))
			for i, xy := range byOp[op][fab] {
				xys[i] = plotter.XY{X: xy.X, Y: xy.Y / scale}
			}
			args = append(args, fab, xys)
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
		p.Y.Min = 0
		p.Y.Max = top / scale * (1.25 + 0.12*float64(len(args)/2))
		p.Legend.Top, p.Legend.Left = true, true
		if err := p.Save(5*vg.Inch, 3.5*vg.Inch, filepath.Join(dir, op+".png")); err != nil {
			return err
		}
	}
	return nil
}

// axisScale is the divisor and SI prefix that write v with at most three
// digits before the point.
func axisScale(v float64) (float64, string) {
	switch {
	case v >= 1e9:
		return 1e9, "G "
	case v >= 1e6:
		return 1e6, "M "
	case v >= 1e3:
		return 1e3, "k "
	}
	return 1, ""
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// splitTable is the GL fabric's time split (Options.Split), one row per
// figure that has one: where one decode's time went, and the throughput
// the device time alone would give.
func (r *Report) splitTable(b *strings.Builder) {
	head := false
	for _, f := range r.Figures {
		s := f.Split
		if s == nil {
			if f.SplitErr != "" {
				fmt.Fprintf(b, "\n- %s on %s: no split (%s)\n", f.Case, f.Fabric, f.SplitErr)
			}
			continue
		}
		if !head {
			b.WriteString("\n## GL time split (one more decode per figure, timer queries)\n\n" +
				"upload, alloc, dispatch, wait and readback are the host's time in those GL calls; " +
				"kernel is the device's time for the dispatches (GL_TIME_ELAPSED); " +
				"host is the rest (input policy, conversions, Go). " +
				"Where kernel reads about 1 ns a dispatch, the implementation ran the work inside the dispatch call " +
				"(llvmpipe does) and dispatch holds it; no kernel-only throughput is given then. " +
				"host/elem is host over the elements uploaded and read back; device memory is what the loaded graph holds " +
				"(parameters and its pool of tensor buffers).\n\n" +
				"| case | total | upload | alloc | dispatch (n) | kernel | wait | readback | host | host/elem | device memory | kernel-only throughput | top shader |\n" +
				"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
			head = true
		}
		kt := "–"
		if s.KernelNS >= minKernelNS*int64(s.Dispatches) {
			kt = rate(float64(f.Work)/(float64(s.KernelNS)/1e9), f.Unit)
		}
		top := "–"
		if i := topShader(s.Shaders); i >= 0 {
			top = fmt.Sprintf("%s ×%d, %s", s.Shaders[i].Shader, s.Shaders[i].Dispatches, dur(float64(s.Shaders[i].KernelNS)))
		}
		perElem := "–"
		if n := s.IOElems; n > 0 {
			perElem = fmt.Sprintf("%.1f ns", float64(s.HostNS())/float64(n))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s (%d) | %s | %s | %s | %s | %s | %.1f MiB | %s | %s |\n", f.Case,
			dur(float64(s.TotalNS)), dur(float64(s.UploadNS)), dur(float64(s.AllocNS)), dur(float64(s.DispatchNS)), s.Dispatches,
			dur(float64(s.KernelNS)), dur(float64(s.WaitNS)), dur(float64(s.ReadbackNS)), dur(float64(s.HostNS())), perElem,
			float64(s.DeviceBytes)/(1<<20), kt, top)
	}
}

// minKernelNS is the device time per dispatch under which a split's kernel
// time is taken as not measured (llvmpipe reports 1 ns).
const minKernelNS = 1000

// topShader is the index of the shader with the most device time, -1 for
// none.
func topShader(ss []gpu.ShaderTime) int {
	best := -1
	for i, s := range ss {
		if best < 0 || s.KernelNS > ss[best].KernelNS {
			best = i
		}
	}
	return best
}
