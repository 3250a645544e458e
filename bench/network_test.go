package bench

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestBmshjShape: bmshj2018 at a 2×3 latent is conv_transpose, igdn three
// times, then conv_transpose to 3 channels, certified at acc64, decoding
// to 3×32×48 (each 5×5 stride-2 layer doubles the sides: (H−1)·2 − 4 + 5 + 1).
// Its work is each layer's cin·cout·25 MACs per input pixel:
// 192·128·25·6 + 128·128·25·24 + 128·128·25·96 + 128·3·25·384 = 56 524 800.
func TestBmshjShape(t *testing.T) {
	c := bmshjCase(2)
	if c.Name() != "bmshj2018_2" || c.Work != 56524800 || c.Input[0].Shape != (tensor.Shape{C: 192, H: 2, W: 3}) {
		t.Fatalf("case %s, work %d, input %v", c.Name(), c.Work, c.Input[0].Shape)
	}
	g, _, err := certify.Load(c.Graph, certify.Acc64)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, op := range g.Ops {
		ops = append(ops, op.Code.String())
	}
	want := []string{"conv_transpose", "igdn", "conv_transpose", "igdn", "conv_transpose", "igdn", "conv_transpose"}
	if !slices.Equal(ops, want) {
		t.Fatalf("ops %v, want %v", ops, want)
	}
	if p := g.Ops[0].Params.(*whg1.ConvT); p.KH != 5 || p.SH != 2 || p.PH != 2 || p.OPH != 1 || p.Cout != 128 {
		t.Fatalf("first layer %+v", p)
	}
	dec, _, err := fabric.NewCPU().Load(c.Graph)
	if err != nil {
		t.Fatal(err)
	}
	out, err := dec.Decode(c.Input, nil)
	if err != nil || out[0].Shape != (tensor.Shape{C: 3, H: 32, W: 48}) {
		t.Fatalf("decode: %v %v", err, out)
	}
	// §3's 2^26 elements: the widest tensor is 128 × 8h × 12h; h = 73
	// (584 × 872 · 128 = 65 183 744) fits, 74 (592 × 888 · 128 =
	// 67 289 088) does not.
	if !bmshjFits(73) || bmshjFits(74) || bmshjW(32) != 48 {
		t.Fatal("bmshjFits should take 73 and not 74, and a 32-high latent be 48 wide")
	}
}

// TestSweepBmshj: the default sweep holds bmshj2018 at a 32×48 latent
// (768×512), quick at 1×1, and --ops graph_synth4 leaves it out.
func TestSweepBmshj(t *testing.T) {
	if !slices.Equal(DefaultSweep(false).BmshjSides, []int{32}) || !slices.Equal(DefaultSweep(true).BmshjSides, []int{1}) {
		t.Fatal("bmshj sides")
	}
	s := Sweep{SynthSides: []int{1}, BmshjSides: []int{1}, Ops: []string{"graph_synth4"}}
	for _, c := range mustCases(t, s) {
		if c.Op != "graph_synth4" {
			t.Fatalf("case %s", c.Name())
		}
	}
	s.Ops = []string{"bmshj2018"}
	if cs := mustCases(t, s); len(cs) != 1 || cs[0].Name() != "bmshj2018_1" {
		t.Fatalf("cases %v", cs)
	}
}

// TestTwinShapesAndScale: the twin of graph_synth4 keeps its 12 layers
// (relu included) and shapes, 64×1×1 → 64×16×16; a conv_transpose's float
// weight is the integer one times √(3/fan)/128 with fan = 64·9/4 = 144;
// igdn's γ is γ/(16·64) and β is 1; the input is x/128.
func TestTwinShapesAndScale(t *testing.T) {
	c := synthCase(1)
	tw, err := twinOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(tw.Layers) != 12 || tw.Out != (tensor.Shape{C: 64, H: 16, W: 16}) {
		t.Fatalf("%d layers, out %v", len(tw.Layers), tw.Out)
	}
	g, _ := whg1.Parse(c.Graph)
	w := g.Ops[0].Params.(*whg1.ConvT).W
	if got, want := tw.Layers[0].W[5], float32(float64(w[5])*math.Sqrt(3.0/144)/128); got != want {
		t.Fatalf("weight %g, want %g", got, want)
	}
	gm := g.Ops[1].Params.(*whg1.IGDN).Gamma
	if l := tw.Layers[1]; l.Op != "igdn" || l.W[7] != float32(gm[7])/1024 || l.B[3] != 1 {
		t.Fatalf("igdn layer %s γ %g β %g", l.Op, l.W[7], l.B[3])
	}
	if tw.Layers[2].Op != "relu" || tw.X[0] != float32(c.Input[0].Data[0])/128 {
		t.Fatal("relu layer or input scale")
	}
}

// TestStepsEqualWhole: the chain of one-op graphs computes the whole
// graph's integers, and names each op with its output's shape.
func TestStepsEqualWhole(t *testing.T) {
	c := bmshjCase(1)
	cpu := fabric.NewCPU()
	dec, _, err := cpu.Load(c.Graph)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := dec.Decode(c.Input, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps, last := runSteps(cpu, c, Options{Runs: 1, Budget: 1})
	if len(steps) != 7 || steps[6].Out != "3×16×16" || steps[1].Op != "igdn" || steps[1].Out != "128×2×2" {
		t.Fatalf("steps %+v", steps)
	}
	if !equal(whole, last) {
		t.Fatal("the steps' outputs differ from the whole decode's")
	}
}

// TestDecodeSteps: inside the whole decode, graph_synth4's relus run in
// igdn's steps (8 steps for its 12 ops: conv_transpose and igdn four
// times), bmshj2018 has a step an op, each named with its output's shape,
// and the outputs are the whole decode's.
func TestDecodeSteps(t *testing.T) {
	for _, c := range []*Case{synthCase(1), bmshjCase(1)} {
		dec, _, err := fabric.NewCPU().Load(c.Graph)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := dec.Decode(c.Input, nil)
		if err != nil {
			t.Fatal(err)
		}
		steps, last := decodeSteps(c, Options{Runs: 2, Warmup: 1})
		var ops []string
		for _, s := range steps {
			ops = append(ops, s.Op+" "+s.Out)
			if s.MedianNS <= 0 {
				t.Errorf("%s: step %+v has no time", c.Name(), s)
			}
		}
		want := "conv_transpose 64×2×2,igdn 64×2×2,conv_transpose 64×4×4,igdn 64×4×4,conv_transpose 64×8×8,igdn 64×8×8,conv_transpose 64×16×16,igdn 64×16×16"
		if c.Op == "bmshj2018" {
			want = "conv_transpose 128×2×2,igdn 128×2×2,conv_transpose 128×4×4,igdn 128×4×4,conv_transpose 128×8×8,igdn 128×8×8,conv_transpose 3×16×16"
		}
		if got := strings.Join(ops, ","); got != want {
			t.Errorf("%s: steps %s, want %s", c.Name(), got, want)
		}
		if !equal(whole, last) {
			t.Errorf("%s: the in-decode steps' outputs differ from the whole decode's", c.Name())
		}
	}
}

// TestOursPeakRSS: on Linux one decode's peak resident set is at least
// the one before it.
func TestOursPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc/self/status, Linux's")
	}
	base, peak := oursPeakRSS(fabric.NewCPU(), bmshjCase(1))
	if base <= 0 || peak < base {
		t.Fatalf("base %d KiB, peak %d KiB", base, peak)
	}
}

// TestNetPeerSkipsWithoutORT: without onnxruntime-node the float peer is
// skipped with the reason and our figures are still taken.
func TestNetPeerSkipsWithoutORT(t *testing.T) {
	cs := mustCases(t, Sweep{SynthSides: []int{1}, Ops: []string{"graph_synth4", "conv3x3"}, Sides: []int{4}})
	ps := RunNetPeers(t.TempDir(), cs, Options{Runs: 1, Budget: 1})
	if len(ps) != len(threadCounts()) {
		t.Fatalf("%d entries: %+v", len(ps), ps)
	}
	for _, p := range ps {
		if p.Case != "graph_synth4_1" || p.OursNS <= 0 || !strings.Contains(p.Skipped, "not installed") || !p.StepsEqual || len(p.Steps) != 12 ||
			!p.InDecodeEqual || len(p.InDecode) != 8 {
			t.Fatalf("entry %+v", p)
		}
	}
	if ps := RunNetPeers(t.TempDir(), nil, Options{Runs: 1}); len(ps) != 1 || ps[0].Skipped == "" {
		t.Fatalf("no network case: %+v", ps)
	}
}

// TestFloatTwinOnORT: where onnxruntime-node is installed, the ONNX model
// of each quick network's twin runs and gives what the twin computes in
// float64 here (twinForward), to 1e-4 of the output's largest magnitude.
func TestFloatTwinOnORT(t *testing.T) {
	needORT(t)
	for _, c := range []*Case{synthCase(1), bmshjCase(1)} {
		dir := t.TempDir()
		pm, err := writePeerModel(dir, c, 1)
		if err != nil {
			t.Fatal(err)
		}
		tw, err := twinOf(c)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "y.f32")
		if b, err := exec.Command("node", "peers/ort_net.js", pm.model, pm.in, out).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", c.Name(), err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := twinForward(tw)
		if len(b) != 4*len(want) {
			t.Fatalf("%s: %d bytes, want %d", c.Name(), len(b), 4*len(want))
		}
		top := 0.0
		for _, v := range want {
			top = max(top, math.Abs(v))
		}
		for i, v := range want {
			got := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			if math.IsNaN(got) || math.Abs(got-v) > 1e-4*top {
				t.Fatalf("%s: element %d is %g, want %g (largest %g)", c.Name(), i, got, v, top)
			}
		}
	}
}

// TestTwinForwardConvT: a one-channel 3×3 stride-2 transposed conv with
// padding 1 and output padding 1 of the 1×1 input x = 2 is the 2×2 window
// of the kernel's centre and lower right, times 2 (output (0,0) takes
// tap (1,1)); igdn of 2 with γ = 0.25, β = 1 is 2·√(1 + 0.25·4) = 2√2.
func TestTwinForwardConvT(t *testing.T) {
	w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	tw := &twin{In: tensor.Shape{C: 1, H: 1, W: 1}, X: []float32{2}, Layers: []twinLayer{{Op: "conv_transpose", Cin: 1, Cout: 1,
		K: [2]int{3, 3}, Stride: [2]int{2, 2}, Pad: [2]int{1, 1}, OutPad: [2]int{1, 1}, W: w}}}
	if got := twinForward(tw); !slices.Equal(got, []float64{10, 12, 16, 18}) {
		t.Fatalf("conv_transpose %v, want [10 12 16 18]", got)
	}
	tw.Layers[0] = twinLayer{Op: "igdn", Cin: 1, Cout: 1, W: []float32{0.25}, B: []float32{1}}
	if got := twinForward(tw); len(got) != 1 || math.Abs(got[0]-2*math.Sqrt2) > 1e-12 {
		t.Fatalf("igdn %v", got)
	}
}

// twinForward is the twin's output in float64, by direct loops: the
// reference the ONNX model's output is checked against.
func twinForward(tw *twin) []float64 {
	x := make([]float64, len(tw.X))
	for i, v := range tw.X {
		x[i] = float64(v)
	}
	c, h, w := tw.In.C, tw.In.H, tw.In.W
	for _, l := range tw.Layers {
		switch l.Op {
		case "conv_transpose":
			kh, kw, s, p := l.K[0], l.K[1], l.Stride[0], l.Pad[0]
			oh, ow := (h-1)*s-2*p+kh+l.OutPad[0], (w-1)*s-2*p+kw+l.OutPad[1]
			y := make([]float64, l.Cout*oh*ow)
			for ci := range c {
				for iy := range h {
					for ix := range w {
						v := x[(ci*h+iy)*w+ix]
						for co := range l.Cout {
							for ky := range kh {
								for kx := range kw {
									oy, ox := iy*s-p+ky, ix*s-p+kx
									if oy >= 0 && oy < oh && ox >= 0 && ox < ow {
										y[(co*oh+oy)*ow+ox] += v * float64(l.W[((ci*l.Cout+co)*kh+ky)*kw+kx])
									}
								}
							}
						}
					}
				}
			}
			x, c, h, w = y, l.Cout, oh, ow
		case "igdn":
			y := make([]float64, len(x))
			for i := range c {
				for px := range h * w {
					n := float64(l.B[i])
					for j := range c {
						v := x[j*h*w+px]
						n += float64(l.W[i*c+j]) * v * v
					}
					y[i*h*w+px] = x[i*h*w+px] * math.Sqrt(n)
				}
			}
			x = y
		case "relu":
			for i, v := range x {
				x[i] = max(v, 0)
			}
		}
	}
	return x
}

// TestWritePeerDataNetwork: a graph_synth4 case at side 1 writes its twin:
// a description whose first layer's weights follow the 64 input floats,
// and 64 + 4·64·64·9 + 4·(64·64 + 64) = 164 160 floats.
func TestWritePeerDataNetwork(t *testing.T) {
	dir := t.TempDir()
	if err := WritePeerData(dir, mustCases(t, Sweep{SynthSides: []int{1}, Ops: []string{"graph_synth4"}}), 3); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "graph_synth4_1.net.f32"))
	if err != nil || st.Size() != 4*164160 {
		t.Fatalf("blob: %v %v", st, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "graph_synth4_1.net.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Runs   int `json:"runs"`
		Layers []struct {
			Op   string `json:"op"`
			WOff int    `json:"w_off"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(b, &d); err != nil || d.Runs != 3 || len(d.Layers) != 12 || d.Layers[0].WOff != 64 ||
		d.Layers[1].Op != "igdn" || d.Layers[1].WOff != 64+36864 {
		t.Fatalf("description %+v (%v)", d, err)
	}
}

// requirePeersEnv, set to anything but empty or 0 (CI sets it, after
// scripts/peers.sh), makes a missing onnxruntime-node a failure, not a skip.
const requirePeersEnv = "WAIOPS_REQUIRE_PEERS"

// needORT skips a test that runs the ONNX Runtime peer where
// onnxruntime-node is not installed (the peers are opt-in), and fails it
// where requirePeersEnv says they should be there.
func needORT(t *testing.T) {
	t.Helper()
	why := ortMissing("peers")
	if why == "" {
		return
	}
	if v := os.Getenv(requirePeersEnv); v != "" && v != "0" {
		t.Fatalf("%s is set and %s", requirePeersEnv, why)
	}
	t.Skip(why)
}
