package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Peer is one outside implementation run on the peer conv at one thread
// count, beside our CPU fabric at the same GOMAXPROCS.
type Peer struct {
	Name    string `json:"name"`
	Case    string `json:"case"`
	Data    string `json:"data"` // "i8" or "u8": the input's bytes (the weights are i8)
	Threads int    `json:"threads"`
	// Impl is the implementation the peer picked, where it says (oneDNN's
	// impl_info_str).
	Impl string `json:"implementation,omitempty"`
	// Output is what both sides compute: "s32" (the raw sums) or "rq i8",
	// "rq u8" (the sums rounded half-even by 2^qShift and clamped).
	Output       string  `json:"output"`
	MedianNS     float64 `json:"median_ns,omitempty"`
	MinNS        float64 `json:"min_ns,omitempty"`
	Throughput   float64 `json:"per_second,omitempty"`      // at the median
	Ours         float64 `json:"ours_per_second,omitempty"` // our CPU fabric on the same conv, threads and output
	OursOverPeer float64 `json:"ours_over_peer,omitempty"`  // our throughput / the peer's, at the medians
	// Fastest and OursFastest are the throughputs at each side's fastest
	// run, BestOverPeer their ratio: on a machine shared with other work
	// the steadier figures.
	Fastest      float64 `json:"per_second_fastest,omitempty"`
	OursFastest  float64 `json:"ours_per_second_fastest,omitempty"`
	BestOverPeer float64 `json:"ours_over_peer_fastest,omitempty"`
	// OursGraph and OursGraphFastest are our CPU fabric on the same conv
	// as a whole graph decode through the public API (int64 input and
	// output tensors, the input checked and packed, the output widened), at
	// the median and the fastest run; Ours and OursFastest are the same
	// kernels on the peer's task (cpuref.Conv8: 8-bit bytes in, the peer's
	// output type out).
	OursGraph        float64 `json:"ours_graph_per_second,omitempty"`
	OursGraphFastest float64 `json:"ours_graph_per_second_fastest,omitempty"`
	Equal            bool    `json:"outputs_equal"`
	Note             string  `json:"note,omitempty"`
	Skipped          string  `json:"skipped,omitempty"`
}

// PeerNames are the conv peers `waiops bench --peers` knows, in the order
// they run.
var PeerNames = []string{"c", "ort", "ort-qlinear", "onednn"}

// peerConv is the conv every peer runs: 3×3, 64→64, zero padding 1, i8
// weights and i8 data (or u8 data: unsigned), and either the raw int32
// sums as output (shift 0, no bias) or their rq to 8 bits (rqGraph), so
// outputs compare element for element.
type peerConv struct {
	cin, cout, side, k, runs int
	unsigned                 bool
	x, w                     []int64
}

func newPeerConv(side, runs int) *peerConv {
	r := rnd(77)
	return &peerConv{cin: 64, cout: 64, side: side, k: 3, runs: runs,
		x: i8s(r, 64*side*side), w: i8s(r, 64*64*9)}
}

// newPeerConvU8 is the peer conv on u8 data in [0, 255].
func newPeerConvU8(side, runs int) *peerConv {
	r := rnd(78)
	return &peerConv{cin: 64, cout: 64, side: side, k: 3, runs: runs, unsigned: true,
		x: u8s(r, 64*side*side), w: i8s(r, 64*64*9)}
}

func u8s(r *rand.Rand, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(r.IntN(256))
	}
	return v
}

// data is "u8" or "i8", the kind of the input's bytes.
func (p *peerConv) data() string {
	if p.unsigned {
		return "u8"
	}
	return "i8"
}

func (p *peerConv) name() string {
	if p.unsigned {
		return fmt.Sprintf("conv3x3_raw_u8_%d", p.side)
	}
	return fmt.Sprintf("conv3x3_raw_%d", p.side)
}

func (p *peerConv) work() int64 { return int64(p.cout*p.side*p.side) * int64(p.cin*p.k*p.k) }

// qShift is the rq shift of the 8-bit-output peer (QLinearConv, whose
// y_scale is 2^qShift): a sum of 576 i8·i8 products has a standard
// deviation near 2^17, so about 2^6 after the shift, and few outputs clamp.
const qShift = 11

// conv is the peer conv's operator: raw int32 sums, or (rq) the sums by
// §5.1's rq with shift qShift, rounding half_even, whose output range
// (outRange) is the input's 8 bits.
func (p *peerConv) conv(rq bool) *whg1.Conv {
	c := &whg1.Conv{Cout: uint32(p.cout), KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1,
		Groups: 1, WBytes: 1, RQ: shiftRQ(0), W: p.w}
	if rq {
		// §5.1 rq: R_half_even(p, s), then the tensor's clamp policy.
		c.RQ = whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{qShift}}
	}
	return c
}

// outRange is the clamp of the rq output: the input's 8-bit range.
func (p *peerConv) outRange() (lo, hi int64) {
	if p.unsigned {
		return 0, 255
	}
	return i8lo, i8hi
}

// graph is the same conv as a WHG1 graph for our fabrics, its rq output
// clamped to outRange.
func (p *peerConv) graph(rq bool) []byte {
	b := newBuilder(p.cin, p.side, p.side)
	lo, hi := p.outRange()
	if p.unsigned {
		b.g.Tensors[0].Lo, b.g.Tensors[0].Hi = lo, hi
	}
	t := b.op(whg1.OpConv, p.conv(rq), p.cout, !rq, 0)
	if rq {
		b.g.Tensors[t].Lo, b.g.Tensors[t].Hi = lo, hi
	}
	return b.bytes(t)
}

// output names what graph(rq) computes, as Peer.Output.
func (p *peerConv) output(rq bool) string {
	if rq {
		return "rq " + p.data()
	}
	return "s32"
}

// benchCase is the peer conv as a case of our own sweep ("conv3x3_raw").
func (p *peerConv) benchCase() *Case { return p.caseOf(false) }

func (p *peerConv) caseOf(rq bool) *Case {
	return &Case{Op: "conv3x3_raw", Size: p.side, Graph: p.graph(rq),
		Input: []*tensor.T{{Shape: tensor.Shape{C: p.cin, H: p.side, W: p.side}, Data: p.x}}, Work: p.work(), Unit: "MAC"}
}

// file is the input every peer reads: six int32 then the 8-bit data (i8
// or u8, as the peer is told) and the int8 weights.
func (p *peerConv) file() []byte {
	var buf bytes.Buffer
	for _, v := range []int32{int32(p.cin), int32(p.cout), int32(p.side), int32(p.side), int32(p.k), int32(p.runs)} {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	for _, v := range p.x {
		buf.WriteByte(byte(v))
	}
	for _, v := range p.w {
		buf.WriteByte(byte(v))
	}
	return buf.Bytes()
}

// peerRun is one peer's run on one conv at one thread count: its figure
// and the file holding its int32 outputs (NCHW).
type peerRun struct {
	Peer
	out string
}

// RunPeers runs the named peers (PeerNames) against our CPU fabric on the
// peer conv, on i8 data and then on u8 data, at 1 thread and at every core
// (the C loop at 1 only): GOMAXPROCS for ours, the peer's own threads
// setting for it. peersDir holds the peers' sources and node_modules. A
// peer that cannot run here is a Peer with Skipped set; the rest go on.
func RunPeers(names []string, peersDir string, side, runs int) []Peer {
	var res []Peer
	for _, n := range names {
		if !slices.Contains(PeerNames, n) {
			res = append(res, Peer{Name: n, Skipped: "unknown peer (want " + strings.Join(PeerNames, ", ") + ")"})
		}
	}
	tmp, err := os.MkdirTemp("", "waiops-peers")
	if err != nil {
		return append(res, Peer{Name: "all", Skipped: err.Error()})
	}
	defer os.RemoveAll(tmp)
	bins, missing := buildPeers(names, peersDir, tmp)
	cpu := fabric.NewCPU()
	for _, p := range []*peerConv{newPeerConv(side, runs), newPeerConvU8(side, runs)} {
		in := filepath.Join(tmp, p.name()+".in")
		if err := os.WriteFile(in, p.file(), 0o644); err != nil {
			return append(res, Peer{Name: "all", Case: p.name(), Skipped: err.Error()})
		}
		for _, th := range threadCounts() {
			prev := runtime.GOMAXPROCS(th)
			ours := map[bool]oursFigure{false: measureOurs(cpu, p, false, runs)}
			if slices.Contains(names, "ort-qlinear") {
				ours[true] = measureOurs(cpu, p, true, runs)
			}
			runtime.GOMAXPROCS(prev)
			for _, n := range names {
				if n == "c" && th != 1 {
					continue // the C loop is one thread
				}
				if why, ok := missing[n]; ok {
					res = append(res, Peer{Name: n, Case: p.name(), Data: p.data(), Threads: th, Skipped: why})
					continue
				}
				for _, pr := range runPeer(n, p, bins, peersDir, tmp, in, th) {
					res = append(res, finish(pr, p, th, ours[strings.HasPrefix(pr.Output, "rq")]))
				}
			}
		}
	}
	return res
}

// oursFigure is our throughput on one form of the peer conv, on the
// peer's task (kernel) and as a graph decode (graph), and its outputs.
type oursFigure struct {
	perSecond, fastest  float64 // the peer's task, at the median and at the fastest run
	graph, graphFastest float64 // the graph decode, likewise
	outs                []*tensor.T
	err                 string
}

// measureOurs times p on our side both ways: the graph decode through the
// CPU fabric, then cpuref.Conv8 on the input's bytes into the peer's
// output type (int32 sums, or the rq'd bytes), whose outputs, widened
// after the timed runs, are the ones compared with the peer's; the two
// must agree.
func measureOurs(cpu fabric.Fabric, p *peerConv, rq bool, runs int) oursFigure {
	opt := Options{Runs: runs, Warmup: 1, Budget: 1 << 62}
	fig, gouts := measure(cpu, p.caseOf(rq), opt)
	if fig.Err != "" {
		return oursFigure{err: fig.Err}
	}
	of := oursFigure{graph: fig.Throughput, graphFastest: float64(fig.Work) / (fig.MinNS / 1e9)}
	lo, hi := p.outRange()
	if !rq {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	in := tensor.Shape{C: p.cin, H: p.side, W: p.side}
	c, err := cpuref.NewConv8(p.conv(rq), in, lo, hi)
	if err != nil {
		return oursFigure{err: err.Error()}
	}
	run, widen := conv8Run[int8](c, p.x, rq)
	if p.unsigned {
		run, widen = conv8Run[uint8](c, p.x, rq)
	}
	kfig, _ := timeRuns(Figure{Work: p.work()}, opt, run)
	if kfig.Err != "" {
		return oursFigure{err: kfig.Err}
	}
	outs := widen()
	of.perSecond, of.fastest, of.outs = kfig.Throughput, float64(kfig.Work)/(kfig.MinNS/1e9), outs
	if len(gouts) != 1 || len(outs) != 1 || !slices.Equal(gouts[0].Data, outs[0].Data) {
		of.err = "cpuref.Conv8's outputs differ from the graph decode's"
	}
	return of
}

// conv8Run is a timed run of c on x's values as In bytes, into int32
// (raw) or into bytes of the input's type (rq), and the last run's outputs
// widened to int64, formed after the timed runs (outs).
func conv8Run[In int8 | uint8](c *cpuref.Conv8, x []int64, rq bool) (run func() ([]*tensor.T, error), outs func() []*tensor.T) {
	xs := make([]In, len(x))
	for i, v := range x {
		xs[i] = In(v)
	}
	n := c.Out().Elems()
	y32, y8 := make([]int32, n), make([]In, n)
	run = func() ([]*tensor.T, error) {
		if rq {
			return nil, cpuref.RunConv8(c, y8, xs)
		}
		return nil, cpuref.RunConv8(c, y32, xs)
	}
	outs = func() []*tensor.T {
		t := tensor.New(c.Out())
		for i := range t.Data {
			if rq {
				t.Data[i] = int64(y8[i])
			} else {
				t.Data[i] = int64(y32[i])
			}
		}
		return []*tensor.T{t}
	}
	return run, outs
}

// runPeer runs peer n on p at th threads: none, one or two runs (oneDNN
// twice when its own pick is AMX: as picked, and capped at AVX-512 VNNI,
// the instruction set our kernels use).
func runPeer(n string, p *peerConv, bins map[string]string, peersDir, tmp, in string, th int) []peerRun {
	base := Peer{Name: n, Case: p.name(), Data: p.data(), Threads: th, Output: p.output(false)}
	out := filepath.Join(tmp, fmt.Sprintf("%s.%s.%d.out", n, p.data(), th))
	switch n {
	case "c":
		return []peerRun{timed(base, exec.Command(bins[n], in, out, p.data()), out)}
	case "ort", "ort-qlinear":
		rq := n == "ort-qlinear"
		base.Output = p.output(rq)
		model := filepath.Join(tmp, fmt.Sprintf("%s.%s.onnx", n, p.data()))
		m, err := convIntegerModel(p)
		layout := "nchw"
		if rq {
			m, err = qlinearConvModel(p)
			layout = "nhwc"
		}
		if err == nil {
			err = os.WriteFile(model, m, 0o644)
		}
		if err != nil {
			base.Skipped = err.Error()
			return []peerRun{{Peer: base}}
		}
		cmd := exec.Command("node", filepath.Join(peersDir, "ort_conv.js"), model, in, out, p.data(), layout)
		cmd.Env = append(os.Environ(), "ORT_THREADS="+strconv.Itoa(th))
		return []peerRun{timed(base, cmd, out)}
	case "onednn":
		xt := map[string]string{"i8": "s8", "u8": "u8"}[p.data()]
		cmd := exec.Command(bins[n], in, out, xt)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+strconv.Itoa(th))
		first := timed(base, cmd, out)
		runs := []peerRun{first}
		if first.Skipped == "" && strings.Contains(first.Impl, "amx") {
			capped := filepath.Join(tmp, fmt.Sprintf("%s.%s.%d.vnni.out", n, p.data(), th))
			cmd := exec.Command(bins[n], in, capped, xt)
			cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+strconv.Itoa(th), "ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI")
			base.Name = n + " (ISA capped at avx512_core_vnni)"
			runs = append(runs, timed(base, cmd, capped))
		}
		return runs
	}
	return nil
}

// buildPeers compiles the C peers named and checks for the rest's
// runtime: bins maps a C peer to its binary, missing a peer that cannot run
// here to why.
func buildPeers(names []string, peersDir, tmp string) (bins, missing map[string]string) {
	bins, missing = map[string]string{}, map[string]string{}
	_, gccErr := exec.LookPath("gcc")
	for _, n := range names {
		var src string
		var libs []string
		switch n {
		case "c":
			src = "conv.c"
		case "onednn":
			src, libs = "onednn_conv.c", []string{"-ldnnl"}
		case "ort", "ort-qlinear":
			if why := ortMissing(peersDir); why != "" {
				missing[n] = why
			}
			continue
		default:
			continue
		}
		if gccErr != nil {
			missing[n] = "gcc not installed"
			continue
		}
		if _, err := os.Stat(filepath.Join(peersDir, src)); err != nil {
			missing[n] = src + " not in " + peersDir
			continue
		}
		bin := filepath.Join(tmp, n)
		args := append([]string{"-O3", "-march=native", "-o", bin, filepath.Join(peersDir, src)}, libs...)
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			why := "build failed: " + strings.TrimSpace(string(out))
			if n == "onednn" && strings.Contains(string(out), "dnnl.h") {
				why = "oneDNN not installed (apt-get install libdnnl-dev; see bench/peers/README.md)"
			}
			missing[n] = why
			continue
		}
		bins[n] = bin
	}
	return bins, missing
}

// timed runs a peer's command and reads its stdout (parsePeerOutput).
func timed(pr Peer, cmd *exec.Cmd, out string) peerRun {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		pr.Skipped = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
		return peerRun{Peer: pr}
	}
	med, fastest, impl, err := parsePeerOutput(string(stdout))
	if err != nil {
		pr.Skipped = err.Error()
		return peerRun{Peer: pr}
	}
	pr.MedianNS, pr.MinNS, pr.Impl = med, fastest, impl
	return peerRun{Peer: pr, out: out}
}

// parsePeerOutput reads a peer's stdout: the median and the fastest run's
// time in nanoseconds, then, optionally, the implementation it picked, all
// separated by spaces.
func parsePeerOutput(s string) (median, fastest float64, impl string, err error) {
	f := strings.Fields(s)
	if len(f) >= 2 {
		median, err = strconv.ParseFloat(f[0], 64)
		if err == nil {
			fastest, err = strconv.ParseFloat(f[1], 64)
		}
	}
	if len(f) < 2 || err != nil || fastest <= 0 || fastest > median {
		return 0, 0, "", fmt.Errorf("unreadable timing: %q", s)
	}
	return median, fastest, strings.Join(f[2:], " "), nil
}

// finish fills in the ratio to ours at the same threads and output, and
// the equality check of the peer's int32 NCHW outputs with ours.
func finish(pr peerRun, p *peerConv, th int, ours oursFigure) Peer {
	if pr.Skipped != "" {
		return pr.Peer
	}
	if ours.err != "" {
		pr.Note = "ours: " + ours.err
		return pr.Peer
	}
	pr.Throughput = float64(p.work()) / (pr.MedianNS / 1e9)
	pr.Ours = ours.perSecond
	pr.OursOverPeer = ours.perSecond / pr.Throughput
	pr.Fastest, pr.OursFastest = float64(p.work())/(pr.MinNS/1e9), ours.fastest
	pr.BestOverPeer = ours.fastest / pr.Fastest
	pr.OursGraph, pr.OursGraphFastest = ours.graph, ours.graphFastest
	out, err := os.ReadFile(pr.out)
	if err != nil || len(ours.outs) != 1 || len(out) != 4*len(ours.outs[0].Data) {
		pr.Note = "peer output missing or of the wrong size"
		return pr.Peer
	}
	pr.Equal = true
	for i, v := range ours.outs[0].Data {
		if int64(int32(binary.LittleEndian.Uint32(out[4*i:]))) != v {
			pr.Equal = false
			pr.Note = fmt.Sprintf("first difference at element %d", i)
			break
		}
	}
	return pr.Peer
}

// Headline is, for one data kind and thread count, the fastest int8
// library peer whose outputs equal ours (the C loop is no library), and
// our throughput over its, at the medians and at each side's fastest run.
// The fastest peer is the one with the fastest run, the steadier figure on
// a shared machine. Scope says which peers competed: every one, or (when
// the fastest used AMX, which our kernels do not) those without AMX.
type Headline struct {
	Data         string  `json:"data"`
	Threads      int     `json:"threads"`
	Scope        string  `json:"scope"`
	Peer         string  `json:"best_peer"`
	Impl         string  `json:"implementation,omitempty"`
	Output       string  `json:"output"`
	Throughput   float64 `json:"peer_per_second"`
	Ours         float64 `json:"ours_per_second"`
	OursOverPeer float64 `json:"ours_over_peer"`
	Fastest      float64 `json:"peer_per_second_fastest"`
	OursFastest  float64 `json:"ours_per_second_fastest"`
	BestOverPeer float64 `json:"ours_over_peer_fastest"`
}

// Headline scopes.
const (
	anyISA   = "any ISA"
	noAMXISA = "without AMX"
)

// Headlines picks each data kind and thread count's best peer, in the
// order the peers ran, and after it the best without AMX when the best
// used AMX.
func Headlines(peers []Peer) []Headline {
	var hs []Headline
	at := map[[3]string]int{}
	for _, p := range peers {
		if p.Skipped != "" || !p.Equal || p.Name == "c" || p.Fastest <= 0 {
			continue
		}
		for _, scope := range []string{anyISA, noAMXISA} {
			if scope == noAMXISA && strings.Contains(p.Impl, "amx") {
				continue
			}
			k := [3]string{p.Data, strconv.Itoa(p.Threads), scope}
			h := Headline{p.Data, p.Threads, scope, p.Name, p.Impl, p.Output, p.Throughput, p.Ours, p.OursOverPeer,
				p.Fastest, p.OursFastest, p.BestOverPeer}
			i, ok := at[k]
			switch {
			case !ok:
				at[k] = len(hs)
				hs = append(hs, h)
			case p.Fastest > hs[i].Fastest:
				hs[i] = h
			}
		}
	}
	// The without-AMX row stays only where it differs from its any-ISA row.
	var out []Headline
	for _, h := range hs {
		if h.Scope == noAMXISA {
			if a := hs[at[[3]string{h.Data, strconv.Itoa(h.Threads), anyISA}]]; a.Peer == h.Peer && a.Impl == h.Impl {
				continue
			}
		}
		out = append(out, h)
	}
	return out
}
