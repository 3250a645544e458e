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
	OursBaseRSS int64  `json:"ours_base_rss_kib,omitempty"`
	OursPeakRSS int64  `json:"ours_peak_rss_kib,omitempty"`
	PeerBaseRSS int64  `json:"peer_base_rss_kib,omitempty"`
	PeerPeakRSS int64  `json:"peer_peak_rss_kib,omitempty"`
	Note        string `json:"note,omitempty"`
	Skipped     string `json:"skipped,omitempty"`
	Err         string `json:"error,omitempty"`
}

// ortFloat is the float peer's name in a report.
const ortFloat = "onnxruntime fp32"

// RunNetPeers times every network case among cases (graph_synth4,
// bmshj2018) on our CPU fabric and ONNX Runtime on its float twin
// (`--peers ort-float`), at 1 thread and at every core: GOMAXPROCS for ours
// (cpuref splits its rows over that many goroutines), intra-op threads for
// the peer. A peer that is not installed is skipped with the reason; our
// figures are taken all the same.
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
		if !slices.Contains(networkOps, c.Op) {
			continue
		}
		found = true
		base, peak := oursPeakRSS(cpu, c)
		model, in, tw, err := writeTwin(tmp, c, opt.Runs)
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
				np.Skipped = "no float twin: " + err.Error()
			default:
				np.ortRun(peersDir, model, in, tw, th)
			}
			res = append(res, np)
		}
	}
	if !found {
		res = append(res, NetPeer{Peer: ortFloat, Skipped: "no network case in this run (--ops graph_synth4,bmshj2018)"})
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

// writeTwin writes c's float twin as an ONNX model and its input as the
// file ort_net.js reads: four int32 (c, h, w, runs), then float32 data.
func writeTwin(dir string, c *Case, runs int) (model, in string, tw *twin, err error) {
	if tw, err = twinOf(c); err != nil {
		return "", "", nil, err
	}
	model = filepath.Join(dir, c.Name()+".onnx")
	m, err := floatTwinModel(tw)
	if err == nil {
		err = os.WriteFile(model, m, 0o644)
	}
	if err != nil {
		return "", "", nil, err
	}
	var b []byte
	for _, v := range []int{tw.In.C, tw.In.H, tw.In.W, max(runs, 1)} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, f := range tw.X {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	in = filepath.Join(dir, c.Name()+".in")
	return model, in, tw, os.WriteFile(in, b, 0o644)
}

// ortRun runs ort_net.js at th intra-op threads and fills in the peer's
// time, resident sets and the ratio, checking that the twin's output has
// its shape and is finite.
func (np *NetPeer) ortRun(peersDir, model, in string, tw *twin, th int) {
	cmd := exec.Command("node", filepath.Join(peersDir, "ort_net.js"), model, in)
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
	if want := []int{1, tw.Out.C, tw.Out.H, tw.Out.W}; !slices.Equal(r.Dims, want) {
		np.Note = fmt.Sprintf("float twin's output is %v, want %v", r.Dims, want)
	} else if r.Nonfinite > 0 {
		np.Note = fmt.Sprintf("float twin's output has %d elements not finite", r.Nonfinite)
	} else {
		np.Note = "float twin's output: shape right, finite"
	}
}
