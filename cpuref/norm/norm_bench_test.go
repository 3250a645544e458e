package norm

import (
	"math/rand/v2"
	"testing"
)

// The kernels on bench's synthesis igdn block (64 channels, 256 positions,
// γ in [0, 16), β = 2^12, gf 8, frac 6, i8 inputs), once per
// implementation, in terms (Terms) or elements (Root, Squares) per second.

func benchIGDN() (p *Packed, x []int64, x2 []int32, n []int32) {
	const c, m = 64, 256
	r := rand.New(rand.NewPCG(7, 8))
	gamma, beta := make([]int64, c*c), make([]int64, c)
	for i := range gamma {
		gamma[i] = r.Int64N(16)
	}
	for i := range beta {
		beta[i] = 1 << 12
	}
	p, _ = Pack(gamma, beta, c)
	x = make([]int64, c*m)
	for i := range x {
		x[i] = r.Int64N(256) - 128
	}
	x2 = make([]int32, c*m)
	squaresGeneric(x2, x, 181)
	n = make([]int32, c*m)
	termsGeneric(n, x2, p.g, p.beta, c/Rows, c, m, 8)
	return p, x, x2, n
}

// BenchmarkTerms runs both forms: lo is the 32-bit one (vpmaddwd,
// vpsrad, vpaddd), hi PackHi's (vpmulhw, vpaddw; the implementations
// without it run lo's kernel).
func BenchmarkTerms(b *testing.B) {
	p, _, x2, n := benchIGDN()
	hi := *p
	gamma := make([]int64, 64*64)
	for i := range 64 {
		for j := range 64 {
			gamma[i*64+j] = int64(p.g[(i/Rows*64+j)*Rows+i%Rows])
		}
	}
	if !PackHi(&hi, gamma, 8, 15*181*181>>8+1) {
		b.Fatal("PackHi refused")
	}
	for _, form := range []struct {
		name string
		p    *Packed
	}{{"lo", p}, {"hi", &hi}} {
		b.Run(form.name, func(b *testing.B) {
			forEachBench(b, func(b *testing.B) {
				for b.Loop() {
					Terms(n, x2, form.p, 256, 8)
				}
				b.ReportMetric(float64(64*64*256)*float64(b.N)/b.Elapsed().Seconds(), "term/s")
			})
		})
	}
}

func BenchmarkRoot(b *testing.B) {
	_, x, _, n := benchIGDN()
	out := make([]int64, len(x))
	forEachBench(b, func(b *testing.B) {
		for b.Loop() {
			Root(out, x, n, 6, 9)
		}
		b.ReportMetric(float64(len(x))*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
	})
}

func BenchmarkSquares(b *testing.B) {
	_, x, x2, _ := benchIGDN()
	forEachBench(b, func(b *testing.B) {
		for b.Loop() {
			Squares(x2, x, 181)
		}
		b.ReportMetric(float64(len(x))*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
	})
}

// forEachBench runs f once per implementation.
func forEachBench(b *testing.B, f func(b *testing.B)) {
	saved := best
	defer func() { best = saved }()
	for _, im := range impls {
		best = im
		b.Run(im.Name, f)
	}
}
