package stage

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRansDecode decodes 10^6 non-escape symbols (t4097, lenient,
// canonical) with one reused decoder.
func BenchmarkRansDecode(b *testing.B) {
	const n = 1_000_000
	tables := []RansTable{quarter, {CDF: []int64{0, 5000, 20000, 40000, 60000, 64000, 65536}, Offset: -2}}
	rng := rand.New(rand.NewPCG(21, 22))
	var e RansEncoder
	reads := make([]int, n)
	for i := range reads {
		reads[i] = rng.IntN(2)
		t := tables[reads[i]]
		if err := e.Symbol(t, t.Offset+rng.Int64N(int64(len(t.CDF)-2))); err != nil {
			b.Fatal(err)
		}
	}
	stream := e.Bytes()
	var d RansDecoder
	if _, err := d.Decode(stream, tables, reads, RansModes{}); err != nil {
		b.Fatal(err) // also sizes the decoder's buffers
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Decode(stream, tables, reads, RansModes{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
}

// BenchmarkMansSgm decodes a 160×16×16 latent (160 spans of 256 positions,
// 32 distributions, about 7 in 8 positions masked) with one reused decoder.
func BenchmarkMansSgm(b *testing.B) {
	rng := rand.New(rand.NewPCG(23, 24))
	pmf := make([][]int64, 32)
	bounds := make([]int64, 32)
	for s := range pmf {
		pmf[s] = make([]int64, 64)
		width := 2 + s
		for range 256 {
			pmf[s][rng.IntN(width)]++
		}
		bounds[s] = int64(1 + s/2)
	}
	tab, err := NewSgmTables(pmf, bounds)
	if err != nil {
		b.Fatal(err)
	}
	spans := make([]Span, 160)
	for i := range spans {
		sigmas := []int64{0, 3, 7, 12, 20, 31}
		spans[i] = Span{Mask: make([]bool, 256), Sigma: make([]int64, 256)}
		for k := range spans[i].Mask {
			spans[i].Sigma[k] = sigmas[rng.IntN(len(sigmas))]
			spans[i].Mask[k] = rng.IntN(8) != 0
		}
	}
	mem := make([]byte, 160*256*4)
	for k := range mem {
		mem[k] = byte(rng.UintN(256))
	}
	mem[len(mem)-1] |= 1 // a mans memory ends in a non-zero byte
	var d MansDecoder
	if _, err := d.Sgm(mem, tab, spans); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Sgm(mem, tab, spans); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(160*256)*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
}
