package cpuref

import (
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/cpuref/norm"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// BenchmarkIGDNPaths times bench's synthesis igdn (64 channels at 64×64,
// γ in [0, 16), β = 2^12, gf 8, frac 6, i8 inputs) on each path in one
// run, so that their ratio holds on a shared machine: i32 is igdn (the
// cpuref/norm kernels), int64 is igdnBlock split as igdn split it before
// the 32-bit path existed.
func BenchmarkIGDNPaths(b *testing.B) {
	const c, n = 64, 64
	r := rand.New(rand.NewPCG(23, 24))
	p := &whg1.IGDN{GF: 8, Frac: 6, Gamma: make([]int64, c*c), Beta: make([]int64, c)}
	for i := range p.Gamma {
		p.Gamma[i] = r.Int64N(16)
	}
	for i := range p.Beta {
		p.Beta[i] = 1 << 12
	}
	x := benchInput(r, c, n)
	out := tensor.New(x.Shape)
	int64Path := func() error {
		blocks := (n*n + igdnSpan - 1) / igdnSpan
		return parallelRows(0, blocks, c*c*igdnSpan, func(b0, b1 int) error {
			return igdnBlock(p, x, out, b0*igdnSpan, min(n*n, b1*igdnSpan))
		})
	}
	for _, path := range []struct {
		name string
		f    func() error
	}{
		{"i32", func() error { return igdn(p, x, out) }},
		{"int64", int64Path},
	} {
		b.Run(path.name, func(b *testing.B) {
			for b.Loop() {
				if err := path.f(); err != nil {
					b.Fatal(err)
				}
			}
			report(b, c*n*n, "elem/s")
		})
	}
}

// BenchmarkIsqrt times isqrt64 beside the bit-by-bit root on the same
// random values below 2^63 (igdnBlock's N), in roots per second.
func BenchmarkIsqrt(b *testing.B) {
	r := rand.New(rand.NewPCG(27, 28))
	v := make([]uint64, 4096)
	for i := range v {
		v[i] = r.Uint64() >> (1 + r.IntN(40))
	}
	var sink uint64
	for _, f := range []struct {
		name string
		f    func(uint64) uint64
	}{
		{"newton", isqrt64},
		{"bitwise", func(n uint64) uint64 { return isqrtBitwise(0, n) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				for _, n := range v {
					sink += f.f(n)
				}
			}
			report(b, len(v), "root/s")
		})
	}
	_ = sink
}

// BenchmarkNormPaths times layernorm_c and l2norm over 64 channels at
// 64×64, i8 inputs, ε = 1, γ = 2^16, β = 0, on the int64 path and the
// 128-bit one in one run, in elements per second.
func BenchmarkNormPaths(b *testing.B) {
	const c, n = 64, 64
	r := rand.New(rand.NewPCG(29, 30))
	x := benchInput(r, c, n)
	out := tensor.New(x.Shape)
	ln := &whg1.LayerNorm{Eps: 1, Gamma: make([]int64, c), Beta: make([]int64, c)}
	for i := range ln.Gamma {
		ln.Gamma[i] = 1 << 16
	}
	l2 := func(f func(uint64, []int64, []int64) error) func() error {
		return func() error {
			for ch := range c {
				if err := f(1, plane(x, ch), plane(out, ch)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, path := range []struct {
		name string
		f    func() error
	}{
		{"layernorm_c/int64", func() error { layernorm64(ln, x, out); return nil }},
		{"layernorm_c/wide", func() error { return layernormWide(ln, x, out) }},
		{"l2norm/int64", l2(func(e uint64, s, d []int64) error { l2norm64(e, s, d); return nil })},
		{"l2norm/wide", l2(l2normWide)},
	} {
		b.Run(path.name, func(b *testing.B) {
			for b.Loop() {
				if err := path.f(); err != nil {
					b.Fatal(err)
				}
			}
			report(b, c*n*n, "elem/s")
		})
	}
}

// BenchmarkIGDNI16 times a 48-channel 128×128 igdn on i16-range inputs
// (|x| ≤ 2^15 − 1, past igdn32Max, so every block takes igdnBlock),
// γ in [0, 2^10), β = 2^20, gf 16, frac 10, shaped like the tiny
// example's at --acts i16, once per cpuref/norm implementation in one
// run: purego forms the terms with the int64 loop igdnBlock had before
// norm.Floored4, avx512 with vpmuldq in 64-bit lanes.
func BenchmarkIGDNI16(b *testing.B) {
	const c, n = 48, 128
	r := rand.New(rand.NewPCG(31, 32))
	p := &whg1.IGDN{GF: 16, Frac: 10, Gamma: make([]int64, c*c), Beta: make([]int64, c)}
	for i := range p.Gamma {
		p.Gamma[i] = r.Int64N(1 << 10)
	}
	for i := range p.Beta {
		p.Beta[i] = 1 << 20
	}
	x := tensor.New(tensor.Shape{C: c, H: n, W: n})
	for i := range x.Data {
		x.Data[i] = r.Int64N(1<<16-1) - (1<<15 - 1)
	}
	out := tensor.New(x.Shape)
	for _, name := range norm.Implementations() {
		b.Run(name, func(b *testing.B) {
			restore, _ := norm.Force(name)
			defer restore()
			for b.Loop() {
				if err := igdn(p, x, out); err != nil {
					b.Fatal(err)
				}
			}
			report(b, c*n*n, "elem/s")
		})
	}
}
