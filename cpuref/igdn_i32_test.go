package cpuref

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/cpuref/norm"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestIGDN32Fits checks igdn32Fits' bound on hand-worked rows: C = 1,
// γ = 2^15 − 1, gf = 0, X = 181: the term bound is 32767·32761 + 1 =
// 1073479688, so β = 2^31 − 1 − 1073479688 = 1074003959 is the last β that
// fits and one more passes; X = 182 passes x² < 2^15. With gf = 8 the term
// bound is ⌊32767·32761 / 256⌋ + 1 = 4193281. The plan's bits: B = 2^31 − 1
// needs r < 2^16 (16 bits); B = 4193281 + 5 has isqrt 2047, 11 bits.
func TestIGDN32Fits(t *testing.T) {
	for _, c := range []struct {
		beta int64
		gf   uint32
		X    uint64
		B    uint64
		ok   bool
	}{
		{1074003959, 0, 181, 1<<31 - 1, true},
		{1074003960, 0, 181, 0, false},
		{-1074003959, 0, 181, 1<<31 - 1, true},
		{0, 0, 182, 0, false},
		{5, 8, 181, 4193286, true},
	} {
		p := &whg1.IGDN{GF: c.gf, Gamma: []int64{1<<15 - 1}, Beta: []int64{c.beta}}
		B, ok := igdn32Fits(p, 1, c.X)
		if ok != c.ok || B != c.B {
			t.Errorf("β %d gf %d X %d: %d, %v; want %d, %v", c.beta, c.gf, c.X, B, ok, c.B, c.ok)
		}
	}
	k := newIGDN32(&whg1.IGDN{Gamma: []int64{1<<15 - 1}, Beta: []int64{1074003959}}, 1)
	if k == nil || k.xmax != 181 || k.bits != 16 {
		t.Fatalf("plan at the bound: %+v", k)
	}
	k = newIGDN32(&whg1.IGDN{GF: 8, Gamma: []int64{1<<15 - 1}, Beta: []int64{5}}, 1)
	if k == nil || k.xmax != 181 || k.bits != 11 {
		t.Fatalf("plan gf 8: %+v", k)
	}
	// One past the bound at X = 181: the plan stops at the X below it
	// (32767·180² + 1 + 1074003960 < 2^31), and γ past i16 or β past i32
	// has no plan.
	if k := newIGDN32(&whg1.IGDN{Gamma: []int64{1<<15 - 1}, Beta: []int64{1074003960}}, 1); k == nil || k.xmax != 180 {
		t.Fatalf("plan one past the bound: %+v", k)
	}
	if newIGDN32(&whg1.IGDN{Gamma: []int64{1 << 15}, Beta: []int64{0}}, 1) != nil {
		t.Error("plan for γ = 2^15")
	}
	if newIGDN32(&whg1.IGDN{Gamma: []int64{0}, Beta: []int64{1 << 31}}, 1) != nil {
		t.Error("plan for β = 2^31")
	}
}

// TestIGDN32AgainstWide compares the 32-bit path with the 128-bit one
// (igdnWide, checked against math/big in norm_test.go) on random cases at
// igdn32Fits' edge: for a target X, β is set so that each row's bound is
// 2^31 − 1 exactly (or a random smaller β), γ is drawn at i16's ends, and
// the inputs at ±X a quarter of the time; X ≤ 181, gf up to 70. Every
// case checks the plan covers X, so the 32-bit path ran. Every
// implementation of cpuref/norm this machine has runs the whole suite.
func TestIGDN32AgainstWide(t *testing.T) {
	for _, name := range norm.Implementations() {
		t.Run(name, func(t *testing.T) {
			restore, _ := norm.Force(name)
			defer restore()
			r := rand.New(rand.NewPCG(41, 42))
			for k := range igdnCases {
				C, H, W := 1+r.IntN(5), 1+r.IntN(6), 1+r.IntN(9)
				if k%1000 == 0 { // across Cols, the Rows padding and igdnSpan
					C, H, W = 1+r.IntN(40), 1+r.IntN(24), 1+r.IntN(24)
				}
				X := draw(r, 0, igdn32Max)
				p := &whg1.IGDN{GF: uint32(r.IntN(40)), Frac: uint32(r.IntN(70))}
				if r.IntN(8) == 0 {
					p.GF = uint32(r.IntN(128))
				}
				gf := min(uint(p.GF), 63)
				for i := range C {
					var s int64
					for range C {
						g := draw(r, -1<<15, 1<<15-1) >> r.IntN(16)
						if r.IntN(4) == 0 {
							g = 0
						}
						p.Gamma = append(p.Gamma, g)
						if g != 0 {
							s += int64(absU(g)*uint64(X*X))>>gf + 1
						}
					}
					if s > 1<<31-1 { // this row cannot fit at X: lower γ
						for j := range C {
							p.Gamma[i*C+j] = 0
						}
						s = 0
					}
					b := 1<<31 - 1 - s
					if r.IntN(2) == 0 {
						b = r.Int64N(b + 1)
					}
					if r.IntN(2) == 0 {
						b = -b
					}
					p.Beta = append(p.Beta, b)
				}
				x := tensor.New(tensor.Shape{C: C, H: H, W: W})
				for i := range x.Data {
					x.Data[i] = draw(r, -X, X)
				}
				plan := newIGDN32(p, C)
				if plan == nil || plan.xmax < uint64(X) {
					t.Fatalf("case %d: X %d outside the plan %+v", k, X, plan)
				}
				got, want := tensor.New(x.Shape), tensor.New(x.Shape)
				noErr(t, "igdn", igdn(p, x, got))
				noErr(t, "igdnWide", igdnWide(p, x, want, 0, H*W))
				for i, w := range want.Data {
					if got.Data[i] != w {
						t.Fatalf("case %d: C %d, %d×%d, X %d, gf %d, frac %d: out[%d] = %d, want %d",
							k, C, H, W, X, p.GF, p.Frac, i, got.Data[i], w)
					}
				}
			}
		})
	}
}

// TestIGDN32Fallback checks a block whose max|x| passes the plan's X takes
// the int64 path, and that a tensor with such a value in one block only
// gives the same output as the 128-bit path: γ = 1, β = 0, C = 1, 600
// positions (three blocks), one x = 200 in the second.
func TestIGDN32Fallback(t *testing.T) {
	p := &whg1.IGDN{Frac: 2, Gamma: []int64{1}, Beta: []int64{0}}
	x := tensor.New(tensor.Shape{C: 1, H: 1, W: 600})
	for i := range x.Data {
		x.Data[i] = int64(i%363) - 181
	}
	x.Data[300] = 200
	k := newIGDN32(p, 1)
	if k == nil || k.xmax != igdn32Max {
		t.Fatalf("plan %+v", k)
	}
	x2, N := k.scratch(1)
	out := tensor.New(x.Shape)
	if !k.block(x, out, 0, igdnSpan, x2, N) || k.block(x, out, igdnSpan, 2*igdnSpan, x2, N) {
		t.Fatal("block took the wrong path")
	}
	// x = 200: N = 40000, r = 200, out = ⌊40000 / 4⌋ = 10000.
	got, want := tensor.New(x.Shape), tensor.New(x.Shape)
	noErr(t, "igdn", igdn(p, x, got))
	noErr(t, "igdnWide", igdnWide(p, x, want, 0, 600))
	expect(t, "igdn fallback", got, want.Data...)
	if got.Data[300] != 10000 {
		t.Fatalf("x = 200: %d, want 10000", got.Data[300])
	}
}

// draw is a value in [lo, hi], one of the ends a quarter of the time.
func draw(r *rand.Rand, lo, hi int64) int64 {
	switch r.IntN(8) {
	case 0:
		return lo
	case 1:
		return hi
	}
	return lo + r.Int64N(hi-lo+1)
}

// TestIGDNFlooredAgainstWide compares igdnBlock with igdnWide on random
// cases past igdn32Max, where norm.Floored4 forms the terms: X in [182,
// 46341] (46341² passes 2^31, so that block keeps the int64 loop), γ at
// i32's ends shifted by a random count (one in 16 rows past i32, the
// loop again), β set so each row's igdnFits bound is 2^63 − 1 exactly (or
// a random smaller β; in a quarter of the cases β ≤ 2^31 − 1 and gf in
// [32, 63], so that N lies near 2^31, either side), inputs at ±X a quarter
// of the time, gf up to 127.
// Every implementation of cpuref/norm this machine has runs the suite.
func TestIGDNFlooredAgainstWide(t *testing.T) {
	for _, name := range norm.Implementations() {
		t.Run(name, func(t *testing.T) {
			restore, _ := norm.Force(name)
			defer restore()
			r := rand.New(rand.NewPCG(43, 44))
			for k := range igdnCases {
				C, H, W := 1+r.IntN(5), 1+r.IntN(4), 1+r.IntN(12)
				if k%1000 == 0 {
					C, H, W = 1+r.IntN(12), 1+r.IntN(16), 1+r.IntN(24)
				}
				X := draw(r, igdn32Max+1, 46341)
				p := &whg1.IGDN{GF: uint32(r.IntN(64)), Frac: uint32(r.IntN(70))}
				if r.IntN(8) == 0 {
					p.GF = uint32(r.IntN(128))
				}
				small := k%4 == 0 // N near 2^31 and below: igdnBlock's norm.Root
				if small {
					p.GF = uint32(32 + r.IntN(32))
				}
				for i := range C {
					var s uint64
					for range C {
						g := draw(r, -1<<31, 1<<31-1) >> r.IntN(32)
						if r.IntN(16) == 0 {
							g <<= 1 + r.IntN(8)
						}
						if r.IntN(4) == 0 {
							g = 0
						}
						p.Gamma = append(p.Gamma, g)
						hi, lo := bits.Mul64(absU(g), uint64(X*X))
						if hi != 0 || lo > 1<<63 {
							lo = 1 << 63 // saturate: the row is past the bound
						}
						if s += lo + 1; s > 1<<63 || s <= lo { // past the bound, or wrapped
							s = 1 << 63
						}
					}
					if s > 1<<63-1 { // this row cannot fit at X: lower γ
						for j := range C {
							p.Gamma[i*C+j] = 0
						}
						s = uint64(C)
					}
					b := int64(1<<63 - 1 - s)
					if r.IntN(2) == 0 {
						b = r.Int64N(b + 1)
					}
					if small {
						b = draw(r, 0, 1<<31-1)
					}
					if r.IntN(2) == 0 {
						b = -b
					}
					p.Beta = append(p.Beta, b)
				}
				if !igdnFits(p, C, uint64(X)) {
					t.Fatalf("case %d: X %d outside igdnFits", k, X)
				}
				x := tensor.New(tensor.Shape{C: C, H: H, W: W})
				for i := range x.Data {
					x.Data[i] = draw(r, -X, X)
				}
				got, want := tensor.New(x.Shape), tensor.New(x.Shape)
				noErr(t, "igdnBlock", igdnBlock(p, x, got, 0, H*W))
				noErr(t, "igdnWide", igdnWide(p, x, want, 0, H*W))
				for i, w := range want.Data {
					if got.Data[i] != w {
						t.Fatalf("case %d: C %d, %d×%d, X %d, gf %d, frac %d: out[%d] = %d, want %d",
							k, C, H, W, X, p.GF, p.Frac, i, got.Data[i], w)
					}
				}
			}
		})
	}
}
