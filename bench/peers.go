package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Peer is one outside implementation run on the peer conv.
type Peer struct {
	Name         string  `json:"name"`
	Case         string  `json:"case"`
	MedianNS     float64 `json:"median_ns,omitempty"`
	Throughput   float64 `json:"per_second,omitempty"`
	OursOverPeer float64 `json:"ours_over_peer,omitempty"` // our throughput / the peer's
	Equal        bool    `json:"outputs_equal"`
	Note         string  `json:"note,omitempty"`
	Skipped      string  `json:"skipped,omitempty"`
}

// peerConv is the conv every peer runs: 3×3, 64→64, zero padding 1, i8
// data and weights, and the raw int32 sums as output (shift 0, no bias), so
// outputs compare element for element.
type peerConv struct {
	cin, cout, side, k, runs int
	x, w                     []int64
}

func newPeerConv(side, runs int) *peerConv {
	r := rnd(77)
	return &peerConv{cin: 64, cout: 64, side: side, k: 3, runs: runs,
		x: i8s(r, 64*side*side), w: i8s(r, 64*64*9)}
}

func (p *peerConv) name() string { return fmt.Sprintf("conv3x3_raw_%d", p.side) }

func (p *peerConv) work() int64 { return int64(p.cout*p.side*p.side) * int64(p.cin*p.k*p.k) }

// graph is the same conv as a WHG1 graph for our fabrics.
func (p *peerConv) graph() []byte {
	b := newBuilder(p.cin, p.side, p.side)
	t := b.op(whg1.OpConv, &whg1.Conv{Cout: uint32(p.cout), KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1,
		Groups: 1, WBytes: 1, RQ: shiftRQ(0), W: p.w}, p.cout, true, 0)
	return b.bytes(t)
}

// benchCase is the peer conv as a case of our own sweep ("conv3x3_raw").
func (p *peerConv) benchCase() *Case {
	return &Case{Op: "conv3x3_raw", Size: p.side, Graph: p.graph(),
		Input: []*tensor.T{{Shape: tensor.Shape{C: p.cin, H: p.side, W: p.side}, Data: p.x}}, Work: p.work(), Unit: "MAC"}
}

// file is the input both peers read: six int32 then the int8 data.
func (p *peerConv) file() []byte {
	var buf bytes.Buffer
	for _, v := range []int32{int32(p.cin), int32(p.cout), int32(p.side), int32(p.side), int32(p.k), int32(p.runs)} {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	for _, v := range p.x {
		buf.WriteByte(byte(int8(v)))
	}
	for _, v := range p.w {
		buf.WriteByte(byte(int8(v)))
	}
	return buf.Bytes()
}

// RunPeers runs the named peers ("c", "ort") against our CPU fabric on the
// peer conv. peersDir holds conv.c, ort_conv.js and node_modules.
func RunPeers(names []string, peersDir string, side, runs int) []Peer {
	p := newPeerConv(side, runs)
	cpu := fabric.NewCPU()
	ours, outs := measure(cpu, p.benchCase(), Options{Runs: runs, Warmup: 1, Budget: 1 << 62})
	var res []Peer
	tmp, err := os.MkdirTemp("", "waiops-peers")
	if err != nil {
		return []Peer{{Name: "all", Case: p.name(), Skipped: err.Error()}}
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, "in.bin")
	if err := os.WriteFile(in, p.file(), 0o644); err != nil {
		return []Peer{{Name: "all", Case: p.name(), Skipped: err.Error()}}
	}
	for _, n := range names {
		switch n {
		case "c":
			pr, out := runC(peersDir, tmp, in)
			res = append(res, finish(pr, out, p, ours, outs))
		case "ort":
			for _, th := range []string{"1", strconv.Itoa(runtime.NumCPU())} {
				pr, out := runORT(p, peersDir, tmp, in, th)
				res = append(res, finish(pr, out, p, ours, outs))
			}
		default:
			res = append(res, Peer{Name: n, Case: p.name(), Skipped: "unknown peer (want c or ort)"})
		}
	}
	return res
}

// finish fills in the case, the ratio to ours and the equality check.
func finish(pr Peer, outPath string, p *peerConv, ours Figure, outs []*tensor.T) Peer {
	pr.Case = p.name()
	if pr.Skipped != "" {
		return pr
	}
	pr.Throughput = float64(p.work()) / (pr.MedianNS / 1e9)
	pr.OursOverPeer = ours.Throughput / pr.Throughput
	out, err := os.ReadFile(outPath)
	if err != nil || len(outs) != 1 || len(out) != 4*len(outs[0].Data) {
		pr.Note = "peer output missing or of the wrong size"
		return pr
	}
	pr.Equal = true
	for i, v := range outs[0].Data {
		if int64(int32(binary.LittleEndian.Uint32(out[4*i:]))) != v {
			pr.Equal = false
			pr.Note = fmt.Sprintf("first difference at element %d", i)
			break
		}
	}
	return pr
}

// runPeer runs a peer command that prints its median ns.
func runPeer(name string, cmd *exec.Cmd) Peer {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return Peer{Name: name, Skipped: fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))}
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(stdout)), 64)
	if err != nil {
		return Peer{Name: name, Skipped: "unreadable timing: " + string(stdout)}
	}
	return Peer{Name: name, MedianNS: ns}
}

// runC builds and runs conv.c; it returns the peer and its output file.
func runC(peersDir, tmp, in string) (Peer, string) {
	if _, err := exec.LookPath("gcc"); err != nil {
		return Peer{Name: "c", Skipped: "gcc not installed"}, ""
	}
	bin := filepath.Join(tmp, "conv")
	build := exec.Command("gcc", "-O3", "-march=native", "-o", bin, filepath.Join(peersDir, "conv.c"))
	if out, err := build.CombinedOutput(); err != nil {
		return Peer{Name: "c", Skipped: "build failed: " + string(out)}, ""
	}
	out := filepath.Join(tmp, "c.out")
	return runPeer("c -O3 -march=native, 1 thread", exec.Command(bin, in, out)), out
}

// runORT runs ort_conv.js with the given thread count.
func runORT(p *peerConv, peersDir, tmp, in, threads string) (Peer, string) {
	name := "onnxruntime ConvInteger, " + threads + " thread(s)"
	if _, err := exec.LookPath("node"); err != nil {
		return Peer{Name: name, Skipped: "node not installed"}, ""
	}
	if _, err := os.Stat(filepath.Join(peersDir, "node_modules", "onnxruntime-node")); err != nil {
		return Peer{Name: name, Skipped: "onnxruntime-node not installed (see bench/peers/README.md)"}, ""
	}
	model := filepath.Join(tmp, "conv.onnx")
	if err := os.WriteFile(model, convIntegerModel(p), 0o644); err != nil {
		return Peer{Name: name, Skipped: err.Error()}, ""
	}
	out := filepath.Join(tmp, "ort"+threads+".out")
	cmd := exec.Command("node", filepath.Join(peersDir, "ort_conv.js"), model, in, out)
	cmd.Env = append(os.Environ(), "ORT_THREADS="+threads)
	return runPeer(name, cmd), out
}
