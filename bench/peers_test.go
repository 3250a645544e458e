package bench

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/tensor"
)

// TestPeerConvEqualsCPU: the C loop runs on every machine of ours (gcc),
// at one thread, on i8 and u8 data; oneDNN (s8s8s32 and u8s8s32) and ONNX
// Runtime (ConvInteger, QLinearConv NHWC) run where installed
// (scripts/peers.sh), at 1 thread and every core. Every peer that runs
// must give outputs equal to the CPU fabric's: the raw int32 sums, or for
// QLinearConv the same rq.
func TestPeerConvEqualsCPU(t *testing.T) {
	ps := RunPeers(PeerNames, "peers", 8, 1)
	ran := map[string]int{}
	for _, p := range ps {
		if p.Skipped != "" {
			if p.Name == "c" || !strings.Contains(p.Skipped, "not installed") {
				t.Errorf("%s on %s skipped: %s", p.Name, p.Data, p.Skipped)
			}
			continue
		}
		if !p.Equal {
			t.Errorf("%s on %s at %d threads: outputs differ (%s)", p.Name, p.Data, p.Threads, p.Note)
		}
		ran[p.Name+" "+p.Data]++
	}
	if ran["c i8"] != 1 || ran["c u8"] != 1 {
		t.Fatalf("the C loop ran %v, want once on i8 and once on u8", ran)
	}
	t.Logf("peers run: %v", ran)
}

// TestPeersMissing: with nothing on PATH (no gcc, no node) every peer is
// skipped with why, our figures are still taken, and an unknown name is
// skipped too.
func TestPeersMissing(t *testing.T) {
	t.Setenv("PATH", "")
	ps := RunPeers([]string{"c", "onednn", "ort", "ort-qlinear", "mkl"}, "peers", 4, 1)
	want := map[string]string{"c": "gcc not installed", "onednn": "gcc not installed",
		"ort": "node not installed", "ort-qlinear": "node not installed", "mkl": "unknown peer"}
	seen := map[string]bool{}
	for _, p := range ps {
		if !strings.HasPrefix(p.Skipped, want[p.Name]) || want[p.Name] == "" {
			t.Errorf("%s: skipped %q, want %q", p.Name, p.Skipped, want[p.Name])
		}
		seen[p.Name] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("peers %v, want every one of %v", seen, want)
	}
}

// TestOneDNNNotInstalled: a peers directory whose oneDNN source cannot
// find dnnl.h says to install libdnnl-dev; on a machine without gcc the
// peer says that instead.
func TestOneDNNNotInstalled(t *testing.T) {
	want := "oneDNN not installed (apt-get install libdnnl-dev"
	if _, err := exec.LookPath("gcc"); err != nil {
		want = "gcc not installed"
	}
	dir := t.TempDir()
	src := "#include <oneapi/dnnl/no_such_header_dnnl.h>\nint main(void) { return 0; }\n"
	if err := os.WriteFile(filepath.Join(dir, "onednn_conv.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, missing := buildPeers([]string{"onednn"}, dir, t.TempDir())
	if !strings.HasPrefix(missing["onednn"], want) {
		t.Fatalf("missing %q, want %q", missing["onednn"], want)
	}
}

// TestParsePeerOutput: a peer prints its median and fastest run in ns,
// then optionally the implementation it picked (as onednn_conv.c,
// conv.c and ort_conv.js print them).
func TestParsePeerOutput(t *testing.T) {
	for _, c := range []struct {
		in        string
		med, fast float64
		impl      string
		ok        bool
	}{
		{"434457 380117 brgconv:avx512_core_amx_int8\n", 434457, 380117, "brgconv:avx512_core_amx_int8", true},
		{"2871710 2871710\n", 2871710, 2871710, "", true},
		{"1.5e6  1.2e6 jit_int8:avx512_core_vnni \n", 1.5e6, 1.2e6, "jit_int8:avx512_core_vnni", true},
		{"", 0, 0, "", false},
		{"2871710\n", 0, 0, "", false},                    // no fastest run
		{"100 200 x", 0, 0, "", false},                    // fastest above the median
		{"brgconv 12", 0, 0, "", false},                   // no number first
		{"100 brgconv:avx512_core_vnni", 0, 0, "", false}, // the impl where the fastest run goes
		{"5 -3 x", 0, 0, "", false},
		{"0 0\n", 0, 0, "", false},
	} {
		med, fast, impl, err := parsePeerOutput(c.in)
		if (err == nil) != c.ok || med != c.med || fast != c.fast || impl != c.impl {
			t.Errorf("parsePeerOutput(%q) = %g, %g, %q, %v; want %g, %g, %q, ok %v", c.in, med, fast, impl, err, c.med, c.fast, c.impl, c.ok)
		}
	}
}

// TestHeadlines: per data kind and thread count, the peer with the
// fastest run whose outputs equal ours, never the C loop, a skipped peer
// or one whose outputs differ; where the fastest used AMX, the fastest
// without follows.
func TestHeadlines(t *testing.T) {
	ps := []Peer{
		{Name: "c", Data: "i8", Threads: 1, Fastest: 9e12, Equal: true},
		{Name: "ort", Data: "i8", Threads: 1, Fastest: 10e9, Equal: true},
		{Name: "onednn", Data: "i8", Threads: 1, Throughput: 3e9, Fastest: 300e9, OursFastest: 60e9, BestOverPeer: 0.2, Equal: true, Impl: "jit_int8:avx512_core_vnni"},
		{Name: "ort-qlinear", Data: "i8", Threads: 1, Throughput: 400e9, Fastest: 500e9, Equal: false},
		{Name: "ort", Data: "i8", Threads: 2, Throughput: 20e9, Fastest: 25e9, OursOverPeer: 5, Equal: true},
		{Name: "onednn", Data: "i8", Threads: 2, Skipped: "oneDNN not installed"},
		{Name: "ort-qlinear", Data: "u8", Threads: 1, Fastest: 200e9, Equal: true, Output: "rq u8"},
		{Name: "onednn", Data: "u8", Threads: 1, Fastest: 2e12, Equal: true, Impl: "brgconv:avx512_core_amx_int8"},
		{Name: "onednn vnni", Data: "u8", Threads: 1, Fastest: 400e9, Equal: true, Impl: "brgconv:avx512_core_vnni"},
	}
	got := Headlines(ps)
	want := []Headline{
		{Data: "i8", Threads: 1, Scope: anyISA, Peer: "onednn", Impl: "jit_int8:avx512_core_vnni", Throughput: 3e9, Fastest: 300e9, OursFastest: 60e9, BestOverPeer: 0.2},
		{Data: "i8", Threads: 2, Scope: anyISA, Peer: "ort", Throughput: 20e9, Fastest: 25e9, OursOverPeer: 5},
		{Data: "u8", Threads: 1, Scope: anyISA, Peer: "onednn", Impl: "brgconv:avx512_core_amx_int8", Fastest: 2e12},
		{Data: "u8", Threads: 1, Scope: noAMXISA, Peer: "onednn vnni", Impl: "brgconv:avx512_core_vnni", Fastest: 400e9},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("headline %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestPeerMarkdown: a peer's row gives ours over the peer (80 / 200 G =
// 0.40) and ours as a graph decode beside it, a skipped peer's row says
// why, and the headline table follows.
func TestPeerMarkdown(t *testing.T) {
	r := &Report{Peers: []Peer{
		{Name: "ort-qlinear", Case: "conv3x3_raw_u8_128", Data: "u8", Threads: 2, Output: "rq u8", MedianNS: 3e6,
			Throughput: 200e9, Ours: 80e9, OursOverPeer: 0.4, Fastest: 220e9, OursFastest: 99e9, BestOverPeer: 0.45, OursGraph: 50e9, Equal: true},
		{Name: "onednn", Data: "i8", Threads: 1, Skipped: "oneDNN not installed"},
	}}
	r.Headlines = Headlines(r.Peers)
	var b strings.Builder
	r.peerMarkdown(&b)
	for _, want := range []string{
		"| u8 | 2 | ort-qlinear | – | rq u8 | 3.00 ms | 200.00 GMAC/s | 80.00 GMAC/s | 0.400 | 0.450 | 50.00 GMAC/s | true |  |",
		"| i8 | 1 | onednn | – | – | – | – | – | – | – | – | – | skipped: oneDNN not installed |",
		"| u8 | 2 | any ISA | ort-qlinear | – | rq u8 | 220.00 GMAC/s | 99.00 GMAC/s | 0.450 | 0.400 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

// TestFinishComparesOutputs: a peer's int32 outputs equal to ours are
// marked equal; one element off (the sixth) is a difference at element 5;
// the ratio is ours over the peer's throughput (work 64·64·9·4·4 MAC in
// 1 ms against ours at twice that rate: 2; at the fastest runs, the
// peer's 0.5 ms against ours at six times the work a ms: 3).
func TestFinishComparesOutputs(t *testing.T) {
	p := newPeerConv(4, 1)
	ours := oursFigure{perSecond: 2 * float64(p.work()) / 1e-3, fastest: 6 * float64(p.work()) / 1e-3, outs: []*tensor.T{{Data: []int64{1, -2, 3, 70000, -5, 6}}}}
	for _, c := range []struct {
		file  []int32
		equal bool
		note  string
	}{
		{[]int32{1, -2, 3, 70000, -5, 6}, true, ""},
		{[]int32{1, -2, 3, 70000, -5, 7}, false, "first difference at element 5"},
		{[]int32{1, -2, 3}, false, "peer output missing or of the wrong size"},
	} {
		var b []byte
		for _, v := range c.file {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		out := filepath.Join(t.TempDir(), "y")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := finish(peerRun{Peer: Peer{Name: "x", MedianNS: 1e6, MinNS: 0.5e6}, out: out}, p, 1, ours)
		if got.Equal != c.equal || got.Note != c.note || got.OursOverPeer != 2 || got.BestOverPeer != 3 {
			t.Errorf("%v: equal %v, note %q, ratios %g, %g; want %v, %q, 2, 3", c.file, got.Equal, got.Note,
				got.OursOverPeer, got.BestOverPeer, c.equal, c.note)
		}
	}
}
