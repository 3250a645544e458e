package bench

import (
	"strings"
	"testing"
)

// TestAxisScale: the plots' throughput axis reads in G, M or k units with at
// most three digits before the point (5e+09 MAC/s is 5 G MAC/s).
func TestAxisScale(t *testing.T) {
	for _, c := range []struct {
		v      float64
		scale  float64
		prefix string
	}{
		{5e9, 1e9, "G "}, {1e9, 1e9, "G "}, {999e6, 1e6, "M "}, {1e6, 1e6, "M "}, {25e3, 1e3, "k "}, {640, 1, ""},
	} {
		if s, p := axisScale(c.v); s != c.scale || p != c.prefix {
			t.Errorf("axisScale(%g) = %g, %q; want %g, %q", c.v, s, p, c.scale, c.prefix)
		}
	}
}

// TestNetMarkdown: the network table gives the peer's time over ours
// (1.5 s / 3 s = 0.50), the resident sets in MiB (2048 KiB = 2 MiB), and
// the by-operator shares of the steps' sum (30 ms of 40 ms = 75 %).
func TestNetMarkdown(t *testing.T) {
	r := &Report{NetPeers: []NetPeer{{Peer: ortFloat, Case: "bmshj2018_32", Threads: 2, OursNS: 3e9, PeerNS: 1.5e9, Speed: 0.5,
		OursPeakRSS: 2048, OursBaseRSS: 1024, PeerPeakRSS: 4096, PeerBaseRSS: 3072, StepsEqual: true,
		Steps:    []Step{{Index: 0, Op: "conv_transpose", Out: "128×64×96", MedianNS: 30e6}, {Index: 1, Op: "igdn", Out: "128×64×96", MedianNS: 10e6}},
		InDecode: []Step{{Index: 0, Op: "conv_transpose", Out: "128×64×96", MedianNS: 9e6}, {Index: 1, Op: "igdn", Out: "128×64×96", MedianNS: 3e6}}, InDecodeEqual: true},
		{Peer: ortFloat, Case: "graph_synth4_16", Threads: 1, OursNS: 2e6, Skipped: "node not installed"}}}
	var b strings.Builder
	r.netMarkdown(&b)
	for _, want := range []string{
		"| bmshj2018_32 | 2 | 3.00 s | onnxruntime fp32 | 1.50 s | 0.50 | 2 / 1 MiB | 4 / 3 MiB |",
		"| graph_synth4_16 | 1 | 2.00 ms | onnxruntime fp32 | – | – | – | – | skipped: node not installed |",
		"| 0 | conv_transpose | 128×64×96 | 30.00 ms | 75.0 % |",
		"By operator: conv_transpose 75.0 %, igdn 25.0 %. The steps sum to 40.00 ms; the whole decode took 3.00 s; the last step's outputs equal the whole decode's: true.",
		"### Where bmshj2018_32's time goes at 2 thread(s), inside the whole decode",
		"| 1 | igdn | 128×64×96 | 3.00 ms | 25.0 % |",
		"The steps sum to 12.00 ms; the whole decode took 3.00 s; the steps' outputs equal the whole decode's: true.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}
