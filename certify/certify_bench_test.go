package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// BenchmarkConvMillionWeights certifies one conv of 64·1736·3·3 = 999,936
// weights; b.ReportMetric gives weights per second.
func BenchmarkConvMillionWeights(b *testing.B) {
	const cout, cin = 64, 1736
	w := make([]int64, cout*cin*9)
	for i := range w {
		w[i] = int64(i*7919%255) - 127
	}
	bl := newGraph(cin, -128, 127, 8, 8)
	bl.op(whg1.OpConv, &whg1.Conv{Cout: cout, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: rqFloor(8), W: w}, cout, 0)
	bl.g.Outputs = []uint32{1}
	bytes := whg1.Encode(bl.g)
	g, err := whg1.Parse(bytes)
	if err != nil {
		b.Fatal(err)
	}
	roles := []Role{{Name: "g", Bytes: bytes, Graph: g}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Certify(nil, "whg1", nil, roles); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds(), "weights/s")
}
