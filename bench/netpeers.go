package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/importer"
	"github.com/waiops/waiops/tensor"
)

// NetPeer is one network case at one thread count: our CPU fabric's whole
// decode and its time by operator, beside a float peer's decode of the
// case's float twin (twin.go). Peak resident sets are in KiB.
type NetPeer struct {
	Peer    string  `json:"peer"`
	Case    string  `json:"case"`
	Threads int     `json:"threads"`
	OursNS  float64 `json:"ours_median_ns"`
	OursSHA string  `json:"ours_outputs_sha256,omitempty"`
	Steps   []Step  `json:"steps,omitempty"`
	// StepsEqual is whether the last step's outputs equal the whole
	// decode's, bit for bit.
	StepsEqual bool `json:"steps_equal_whole"`
	// InDecode is the time of each step inside whole decodes
	// (decodeSteps), and InDecodeEqual whether their outputs equal the
	// measured decode's.
	InDecode      []Step  `json:"in_decode_steps,omitempty"`
	InDecodeEqual bool    `json:"in_decode_equal_whole"`
	PeerNS        float64 `json:"peer_median_ns,omitempty"`
	// Speed is the peer's time over ours: above 1, we decode faster.
	Speed float64 `json:"ours_speed_over_peer,omitempty"`
	// Ours*RSS is one load and decode in this process (oursPeakRSS), the
	// peer's its whole process: before the model was made and at the peak.
	OursBaseRSS int64 `json:"ours_base_rss_kib,omitempty"`
	OursPeakRSS int64 `json:"ours_peak_rss_kib,omitempty"`
	PeerBaseRSS int64 `json:"peer_base_rss_kib,omitempty"`
	PeerPeakRSS int64 `json:"peer_peak_rss_kib,omitempty"`
	// AgainstPeer is, for an imported case, our output against the
	// peer's float decode of the same ONNX (importer.OutputInfo.Error).
	AgainstPeer *importer.OutputError `json:"ours_against_peer,omitempty"`
	Note        string                `json:"note,omitempty"`
	Skipped     string                `json:"skipped,omitempty"`
	Err         string                `json:"error,omitempty"`
}

// ortFloat is the float peer's name in a report.
const ortFloat = "onnxruntime fp32"

// RunNetPeers times every network case among cases (graph_synth4,
// bmshj2018, tinycodec) on our CPU fabric and ONNX Runtime on its float
// model (`--peers ort-float`): a whole network's float twin, an imported
// network's own ONNX. Each runs at 1 thread and at every core: GOMAXPROCS
// for ours (cpuref splits its rows over that many goroutines), intra-op
// threads for the peer. A peer that is not installed is skipped with the
// reason; our figures are taken all the same.
func RunNetPeers(peersDir string, cases []*Case, opt Options) []NetPeer {
	var res []NetPeer
	tmp, err := os.MkdirTemp("", "waiops-netpeers")
	if err != nil {
		return append(res, NetPeer{Peer: ortFloat, Err: err.Error()})
	}
	defer os.RemoveAll(tmp)
	skip := ortMissing(peersDir)
	cpu := fabric.NewCPU()
	found := false
	for _, c := range cases {
		if !slices.Contains(networkOps, c.Op) && c.Float == nil {
			continue
		}
		found = true
		base, peak := oursPeakRSS(cpu, c)
		pm, err := writePeerModel(tmp, c, opt.Runs)
		for _, th := range threadCounts() {
			np := NetPeer{Peer: ortFloat, Case: c.Name(), Threads: th, OursBaseRSS: base, OursPeakRSS: peak}
			prev := runtime.GOMAXPROCS(th)
			fig, outs := measure(cpu, c, opt)
			if fig.Err == "" {
				var last []*tensor.T
				np.Steps, last = runSteps(cpu, c, opt)
				np.StepsEqual = last != nil && equal(outs, last)
				np.InDecode, last = decodeSteps(c, opt)
				np.InDecodeEqual = last != nil && equal(outs, last)
			}
			runtime.GOMAXPROCS(prev)
			np.OursNS, np.OursSHA, np.Err = fig.MedianNS, fig.OutputsSHA256, fig.Err
			switch {
			case skip != "":
				np.Skipped = skip
			case err != nil:
				np.Skipped = "no float model: " + err.Error()
			default:
				np.ortRun(peersDir, pm, th, outs)
			}
			res = append(res, np)
		}
	}
	if !found {
		res = append(res, NetPeer{Peer: ortFloat, Skipped: "no network case in this run (--ops graph_synth4,bmshj2018,tinycodec)"})
	}
	return res
}

// threadCounts are 1 and every core (just 1 on a 1-core machine).
func threadCounts() []int {
	if n := runtime.NumCPU(); n > 1 {
		return []int{1, n}
	}
	return []int{1}
}

// ortMissing says why ONNX Runtime cannot run here, or "" when it can.
func ortMissing(peersDir string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node not installed"
	}
	if _, err := os.Stat(filepath.Join(peersDir, "node_modules", "onnxruntime-node")); err != nil {
		return "onnxruntime-node not installed (see bench/peers/README.md)"
	}
	return ""
}

// peerModel is what the float peer runs for one case: the ONNX model, its
// input as ort_net.js reads it, and the output shape it must give (nil
// for an imported case, whose output is ours' shape and is compared with
// ours besides).
type peerModel struct {
	model, in string
	out       *tensor.Shape
	float     *floatModel
}

// writePeerModel writes c's float model, an imported case's own ONNX or a
// network's float twin, as an ONNX model and its input as the file
// ort_net.js reads: four int32 (c, h, w, runs), then float32 data (an
// imported case's latents are whole numbers, exact in float32).
func writePeerModel(dir string, c *Case, runs int) (*peerModel, error) {
	pm := &peerModel{model: filepath.Join(dir, c.Name()+".onnx"), in: filepath.Join(dir, c.Name()+".in"), float: c.Float}
	var m []byte
	var in tensor.Shape
	var x []float32
	if c.Float != nil {
		m, in = c.Float.ONNX, c.Input[0].Shape
		x = make([]float32, len(c.Input[0].Data))
		for i, v := range c.Input[0].Data {
			x[i] = float32(v)
		}
	} else {
		tw, err := twinOf(c)
		if err != nil {
			return nil, err
		}
		if m, err = floatTwinModel(tw); err != nil {
			return nil, err
		}
		in, x, pm.out = tw.In, tw.X, &tw.Out
	}
	if err := os.WriteFile(pm.model, m, 0o644); err != nil {
		return nil, err
	}
	var b []byte
	for _, v := range []int{in.C, in.H, in.W, max(runs, 1)} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, f := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return pm, os.WriteFile(pm.in, b, 0o644)
}

// ortRun runs ort_net.js at th intra-op threads and fills in the peer's
// time, resident sets and the ratio. A twin's output is checked for its
// shape and finiteness; an imported case's is compared with ours, our
// decode's outputs.
func (np *NetPeer) ortRun(peersDir string, pm *peerModel, th int, ours []*tensor.T) {
	outFile := pm.in + ".out"
	cmd := exec.Command("node", filepath.Join(peersDir, "ort_net.js"), pm.model, pm.in, outFile)
	cmd.Env = append(os.Environ(), "ORT_THREADS="+strconv.Itoa(th))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		np.Skipped = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
		return
	}
	var r struct {
		MedianNS  float64 `json:"median_ns"`
		Dims      []int   `json:"dims"`
		Nonfinite int     `json:"nonfinite"`
		Base      int64   `json:"base_rss_kib"`
		Peak      int64   `json:"peak_rss_kib"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.MedianNS <= 0 {
		np.Skipped = "unreadable result: " + strings.TrimSpace(string(out))
		return
	}
	np.PeerNS, np.PeerBaseRSS, np.PeerPeakRSS = r.MedianNS, r.Base, r.Peak
	if np.OursNS > 0 {
		np.Speed = np.PeerNS / np.OursNS
	}
	what, want := "float twin", pm.out
	if pm.float != nil {
		if len(ours) == 0 {
			np.Note = "our decode failed: nothing to compare"
			return
		}
		what, want = "same ONNX", &ours[0].Shape
	}
	switch {
	case !slices.Equal(r.Dims, []int{1, want.C, want.H, want.W}):
		np.Note = fmt.Sprintf("%s: its output is %v, want %v", what, r.Dims, []int{1, want.C, want.H, want.W})
	case r.Nonfinite > 0:
		np.Note = fmt.Sprintf("%s: its output has %d elements not finite", what, r.Nonfinite)
	case pm.float == nil:
		np.Note = "float twin's output: shape right, finite"
	default:
		np.compare(pm.float.Out, ours[0], outFile)
	}
}

// compare sets how our output reads against the peer's float32 output in
// file, as the importer's report reads it against its float evaluator's.
func (np *NetPeer) compare(o importer.OutputInfo, ours *tensor.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil || len(b) != 4*len(ours.Data) {
		np.Note = fmt.Sprintf("same ONNX: its output unreadable (%d bytes, %v)", len(b), err)
		return
	}
	f := make([]float64, len(ours.Data))
	for i := range f {
		f[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	e := o.Error(ours.Data, f)
	np.AgainstPeer = &e
	np.Note = fmt.Sprintf("same ONNX; ours against its output: PSNR %.1f dB, max |error| %.3g, %.1f %% of samples differ",
		e.PSNR, e.MaxAbs, 100*e.Differ)
}
