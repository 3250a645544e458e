package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestConv8 runs RunConv8 on random convs (a third with the identity rq,
// whose int32 output the tiles store themselves), i8 and u8 inputs at
// their ends, into int32, i8 and u8 outputs, with the dot kernels on and off,
// against convExact on the int64 input, clamped by hand: equal values, or
// a refusal exactly where a clamped value leaves the output's type.
func TestConv8(t *testing.T) {
	savedS, saved8 := simd, simd8
	defer func() { simd, simd8 = savedS, saved8 }()
	r := rand.New(rand.NewPCG(81, 82))
	fits, refused, s32 := 0, 0, 0
	for n := range 240 {
		simd, simd8 = n%3 != 0 && savedS, n%3 != 0 && saved8
		g, og, cg := 1+r.IntN(2), 4*(1+r.IntN(3)), 4*(1+r.IntN(3))
		kh, kw := 1+r.IntN(3), 1+r.IntN(3)
		p := &whg1.Conv{Cout: uint32(g * og), KH: uint32(kh), KW: uint32(kw), SH: uint32(1 + r.IntN(2)), SW: uint32(1 + r.IntN(2)),
			PH: uint32(kh / 2), PW: uint32(kw / 2), Groups: uint32(g),
			RQ: randRQ(r, g*og, func() uint8 { return uint8(r.IntN(14)) }, func() int64 { return r.Int64N(1<<10) - 1<<9 })}
		switch n % 3 {
		case 1: // the raw sums: Tile16S32, Tile8S32 for an int32 output
			p.RQ = whg1.RQ{SKind: 1, Shift: []uint8{0}}
		case 2: // a shift alone: the 32-bit epilogue for an 8-bit output
			p.RQ = whg1.RQ{Round: whg1.Round(r.IntN(3)), SKind: 1, Shift: []uint8{uint8(1 + r.IntN(12))}}
		}
		p.W = make([]int64, g*og*cg*kh*kw)
		for i := range p.W {
			p.W[i] = atEnds(r, -128, 127)
		}
		sh := tensor.Shape{C: g * cg, H: 1 + r.IntN(6), W: 1 + r.IntN(40)}
		unsigned := n%2 == 0
		xlo := int64(-128)
		if unsigned {
			xlo = 0
		}
		wide := tensor.New(sh)
		for i := range wide.Data {
			wide.Data[i] = atEnds(r, xlo, xlo+255)
		}
		lo := atEnds(r, -300, 100)
		hi := atEnds(r, lo, 400)
		if n%6 == 1 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		c, err := NewConv8(p, sh, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if c.k.fusedS32(nil, c.Out()) != nil {
			s32++
		}
		want := tensor.New(c.Out())
		werr := convExact(newConv(p, sh.C), wide, want)
		for i, v := range want.Data {
			want.Data[i] = min(max(v, lo), hi)
		}
		name := fmt.Sprintf("case %d (conv %+v, clamp [%d, %d], u8 %v)", n, *p, lo, hi, unsigned)
		var got []error
		if unsigned {
			x := make([]uint8, len(wide.Data))
			for i, v := range wide.Data {
				x[i] = uint8(v)
			}
			got = runAll(t, name, c, x, want, werr)
		} else {
			x := make([]int8, len(wide.Data))
			for i, v := range wide.Data {
				x[i] = int8(v)
			}
			got = runAll(t, name, c, x, want, werr)
		}
		for _, e := range got {
			if e == nil {
				fits++
			} else {
				refused++
			}
		}
	}
	if fits < 200 || refused < 100 || s32 < 5 {
		t.Fatalf("%d runs fitted and %d were refused, %d could store int32 from the tiles: want all often", fits, refused, s32)
	}
}

// runAll runs c on x into each output type and checks each against want
// (convExact's clamped values, or its error werr): the errors it got.
func runAll[In int8 | uint8](t *testing.T, name string, c *Conv8, x []In, want *tensor.T, werr error) []error {
	t.Helper()
	n := c.Out().Elems()
	s32, s8, u8 := make([]int32, n), make([]int8, n), make([]uint8, n)
	errs := []error{RunConv8(c, s32, x), RunConv8(c, s8, x), RunConv8(c, u8, x)}
	for i, kind := range []struct {
		name   string
		lo, hi int64
		at     func(int) int64
	}{
		{"int32", math.MinInt32, math.MaxInt32, func(j int) int64 { return int64(s32[j]) }},
		{"i8", math.MinInt8, math.MaxInt8, func(j int) int64 { return int64(s8[j]) }},
		{"u8", 0, math.MaxUint8, func(j int) int64 { return int64(u8[j]) }},
	} {
		if werr != nil {
			if errs[i] == nil {
				t.Fatalf("%s into %s: no error, want %v", name, kind.name, werr)
			}
			continue
		}
		fit := true
		for _, v := range want.Data {
			fit = fit && v >= kind.lo && v <= kind.hi
		}
		if !fit {
			expectRefusal(t, name+" into "+kind.name, errs[i], refusal.ModelMismatch)
			continue
		}
		if errs[i] != nil {
			t.Fatalf("%s into %s: %v", name, kind.name, errs[i])
		}
		for j, v := range want.Data {
			if got := kind.at(j); got != v {
				t.Fatalf("%s into %s: element %d is %d, want %d", name, kind.name, j, got, v)
			}
		}
	}
	return errs
}

// TestNewConv8 refuses what does not fit, with ModelMismatch.
func TestNewConv8(t *testing.T) {
	ok := func() *whg1.Conv {
		return &whg1.Conv{Cout: 4, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, W: make([]int64, 4*8*9)}
	}
	in := tensor.Shape{C: 8, H: 5, W: 6}
	c, err := NewConv8(ok(), in, 0, 255)
	if err != nil || c.Out() != (tensor.Shape{C: 4, H: 5, W: 6}) {
		t.Fatalf("got %v, %v; want output [4, 5, 6]", c, err)
	}
	for name, f := range map[string]func(p *whg1.Conv) (tensor.Shape, int64, int64){
		"stride 0":      func(p *whg1.Conv) (tensor.Shape, int64, int64) { p.SW = 0; return in, 0, 1 },
		"groups 3":      func(p *whg1.Conv) (tensor.Shape, int64, int64) { p.Groups = 3; return in, 0, 1 },
		"weights short": func(p *whg1.Conv) (tensor.Shape, int64, int64) { p.W = p.W[1:]; return in, 0, 1 },
		"clamp":         func(p *whg1.Conv) (tensor.Shape, int64, int64) { return in, 2, 1 },
		"kernel wide": func(p *whg1.Conv) (tensor.Shape, int64, int64) {
			p.PW = 0
			return tensor.Shape{C: 8, H: 5, W: 2}, 0, 1
		},
	} {
		p := ok()
		sh, lo, hi := f(p)
		_, err := NewConv8(p, sh, lo, hi)
		expectRefusal(t, name, err, refusal.ModelMismatch)
	}
	expectRefusal(t, "short output", RunConv8(c, make([]int32, 3), make([]uint8, in.Elems())), refusal.ModelMismatch)
}

// BenchmarkConv8 is RunConv8 on the peer conv of `waiops bench --peers`
// (3×3, 64 → 64, 128², padding 1, i8 weights, rq shift 11 half_even): u8
// data into u8 (QLinearConv's task) and into int32 (oneDNN's, shift 0),
// and i8 data into i8 and int32, at GOMAXPROCS goroutines.
func BenchmarkConv8(b *testing.B) {
	const c, n = 64, 128
	r := rand.New(rand.NewPCG(13, 14))
	sh := tensor.Shape{C: c, H: n, W: n}
	xu, xs := make([]uint8, c*n*n), make([]int8, c*n*n)
	for i := range xu {
		xu[i], xs[i] = uint8(r.IntN(256)), int8(r.IntN(256)-128)
	}
	w := benchI8(r, c*c*9)
	conv := func(shift uint8, lo, hi int64) *Conv8 {
		p := &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, W: w,
			RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{shift}}}
		k, err := NewConv8(p, sh, lo, hi)
		if err != nil {
			b.Fatal(err)
		}
		return k
	}
	report := func(b *testing.B, run func() error) {
		for b.Loop() {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(c*c*9*n*n)*float64(b.N)/b.Elapsed().Seconds(), "MAC/s")
	}
	u8c, s8c, raw := conv(11, 0, 255), conv(11, -128, 127), conv(0, math.MinInt64, math.MaxInt64)
	yu, y8, y32 := make([]uint8, c*n*n), make([]int8, c*n*n), make([]int32, c*n*n)
	b.Run("u8-u8", func(b *testing.B) { report(b, func() error { return RunConv8(u8c, yu, xu) }) })
	b.Run("u8-s32", func(b *testing.B) { report(b, func() error { return RunConv8(raw, y32, xu) }) })
	b.Run("i8-i8", func(b *testing.B) { report(b, func() error { return RunConv8(s8c, y8, xs) }) })
	b.Run("i8-s32", func(b *testing.B) { report(b, func() error { return RunConv8(raw, y32, xs) }) })
}
