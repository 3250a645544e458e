package cpuref

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

func TestIGDNFloorsEachTerm(t *testing.T) {
	// C = 2, gf = 1, frac = 0, γ = [[1, 1], [−1, 3]], β = (3, 0); two
	// positions, A = (1, 1) and B = (−3, 2).
	// A: x² = (1, 1). N0 = 3 + ⌊1/2⌋ + ⌊1/2⌋ = 3 → r0 = 1 → out0 = 1.
	//    (Flooring the sum: 3 + ⌊2/2⌋ = 4 → r = 2 → 2: a different function.)
	//    N1 = 0 + ⌊−1/2⌋ + ⌊3/2⌋ = −1 + 1 = 0 → r1 = 0 → out1 = 0.
	//    (Flooring the sum: ⌊2/2⌋ = 1 → r = 1 → 1.)
	// B: x² = (9, 4). N0 = 3 + 4 + 2 = 9 → r0 = 3 → out0 = −3·3 = −9.
	//    N1 = 0 + ⌊−9/2⌋ + ⌊12/2⌋ = −5 + 6 = 1 → r1 = 1 → out1 = 2.
	p := &whg1.IGDN{GF: 1, Frac: 0, Gamma: []int64{1, 1, -1, 3}, Beta: []int64{3, 0}}
	out := like(2, 1, 2)
	noErr(t, "igdn", igdn(p, tn(2, 1, 2, 1, -3, 1, 2), out))
	expect(t, "igdn", out, 1, -9, 0, 2)
}

func TestIGDNFracAndWide(t *testing.T) {
	// C = 1, γ = 0, β = 16, frac = 3: r = 4; x = −3 → ⌊−12/8⌋ = −2 (trunc −1);
	// x = 5 → ⌊20/8⌋ = 2. A negative N: β = −7 → r = isqrt(0) = 0 → 0.
	out := like(1, 1, 2)
	noErr(t, "igdn", igdn(&whg1.IGDN{Frac: 3, Gamma: []int64{0}, Beta: []int64{16}}, tn(1, 1, 2, -3, 5), out))
	expect(t, "igdn frac", out, -2, 2)
	noErr(t, "igdn", igdn(&whg1.IGDN{Frac: 3, Gamma: []int64{0}, Beta: []int64{-7}}, tn(1, 1, 2, -3, 5), out))
	expect(t, "igdn N<0", out, 0, 0)
	// Wide: x = 2^40, γ = 2^20, gf = 0: x² = 2^80, N = 2^100, r = 2^50,
	// x·r = 2^90, frac = 40 → 2^50; x = −2^40 → −2^50.
	noErr(t, "igdn", igdn(&whg1.IGDN{Frac: 40, Gamma: []int64{1 << 20}, Beta: []int64{0}}, tn(1, 1, 2, 1<<40, -1<<40), out))
	expect(t, "igdn wide", out, 1<<50, -1<<50)
}

func TestLayerNormC(t *testing.T) {
	g := []int64{65536, 65536, 65536}
	b := []int64{0, 0, 0}
	// Odd C = 3, ε = 1, γ = 2^16, β = 0, four positions:
	// (0, 0, 1):  S = 1, M = 1 + 1 = 2, m = trunc(2/3) = 0, d = (0, 0, 1),
	//             T = 1, V = ⌊1/3⌋ = 0, U = 1, k = 2^32, n = d·2^16.
	// (0, 0, −1): S = −1, M = −2, m = trunc(−2/3) = 0 (floor would give −1),
	//             d = (0, 0, −1) → n = (0, 0, −65536).
	// (1, 2, 2):  S = 5, M = 6, m = 2, d = (−1, 0, 0) → (−65536, 0, 0).
	// (−1, −1, 0): S = −2, M = −3, m = −1, d = (0, 0, 1) → (0, 0, 65536).
	p := &whg1.LayerNorm{Eps: 1, Gamma: g, Beta: b}
	in := tn(3, 1, 4,
		0, 0, 1, -1,
		0, 0, 2, -1,
		1, -1, 2, 0)
	out := like(3, 1, 4)
	noErr(t, "layernorm_c", layernormC(p, in, out))
	expect(t, "layernorm_c odd C", out,
		0, 0, -65536, 0,
		0, 0, 0, 0,
		65536, -65536, 0, 65536)

	// A half mean, C = 2: (0, 1): S = 1, M = 1 + 1 = 2, m = 1 (the half
	// rounds away from zero), d = (−1, 0), T = 1, V = 0, U = 1, k = 2^32.
	// (0, −1): S = −1, M = −2, m = −1, d = (1, 0).
	// (0, 200): S = 200, M = 201, m = 100, d = (−100, 100), T = 20000,
	// V = 10000, U = 10001, r = 100, k = ⌊2^32/100⌋ = 42949672,
	// n = ⌊∓4294967200 / 65536⌋ = (−65536, 65535).
	// γ = (32768, −65536), β = (1, 2):
	// out0 = ⌊n0·32768 / 65536⌋ + 1, out1 = ⌊n1·(−65536) / 65536⌋ + 2.
	p = &whg1.LayerNorm{Eps: 1, Gamma: []int64{32768, -65536}, Beta: []int64{1, 2}}
	in = tn(2, 1, 3,
		0, 0, 0,
		1, -1, 200)
	out = like(2, 1, 3)
	noErr(t, "layernorm_c", layernormC(p, in, out))
	expect(t, "layernorm_c half mean", out,
		-32768+1, 32768+1, -32768+1,
		0+2, 0+2, -65535+2)

	// ε = 2^64 − 1, C = 3:
	// (0, 0, −1): V = 0, U = 2^64 − 1, r = 2^32 − 1, k = 1,
	//             n = (0, 0, ⌊−1/65536⌋ = −1).
	// (−2, 2, 0): S = 0, m = 0, T = 8, V = 2, U = 2^64 + 1 (past 64 bits),
	//             r = 2^32, k = 1, n = (⌊−2/65536⌋ = −1, 0, 0).
	// γ = (131072, 65536, 65536), β = (5, 6, 7): ⌊n·γ/2^16⌋ + β.
	p = &whg1.LayerNorm{Eps: 1<<64 - 1, Gamma: []int64{131072, 65536, 65536}, Beta: []int64{5, 6, 7}}
	in = tn(3, 1, 2,
		0, -2,
		0, 2,
		-1, 0)
	out = like(3, 1, 2)
	noErr(t, "layernorm_c", layernormC(p, in, out))
	expect(t, "layernorm_c ε = 2^64 − 1", out,
		5, -2+5,
		6, 6,
		-1+7, 7)
}

func TestL2Norm(t *testing.T) {
	// ch0 (−3, 4), ε = 1: T = 25, U = 26, r = 5, k = ⌊2^32/5⌋ = 858993459;
	// ⌊−3·858993459 / 65536⌋ = ⌊−39321.6⌋ = −39322; ⌊4·k / 65536⌋ = 52428.
	// ch1 (0, 0): U = 1, k = 2^32, out 0.
	out := like(2, 1, 2)
	noErr(t, "l2norm", l2norm(&whg1.L2Norm{Eps: 1}, tn(2, 1, 2, -3, 4, 0, 0), out))
	expect(t, "l2norm", out, -39322, 52428, 0, 0)
	// ε = 2^64 − 1 on (−1, 0): T = 1, U = 2^64 (past 64 bits), r = 2^32, k = 1;
	// ⌊−1/65536⌋ = −1.
	out = like(1, 1, 2)
	noErr(t, "l2norm", l2norm(&whg1.L2Norm{Eps: 1<<64 - 1}, tn(1, 1, 2, -1, 0), out))
	expect(t, "l2norm ε = 2^64 − 1", out, -1, 0)
}

func TestSoftmax(t *testing.T) {
	// Row 0 (0, 0, 0): e = 65553 each, Σ = 196659, ⌊Σ/2⌋ = 98329,
	//   ⌊(65553·65536 + 98329) / 196659⌋ = 21845: the row sums to 65535.
	out := like(1, 1, 3)
	softmax(tn(1, 1, 3, 0, 0, 0), out)
	expect(t, "softmax (0, 0, 0)", out, 21845, 21845, 21845)
	// Two rows, W = 2: (5, 5 − 45426): e = (65553, 32776), Σ = 98329,
	//   ⌊(65553·65536 + 49164) / 98329⌋ = 43691, ⌊(32776·65536 + 49164) / 98329⌋ = 21845.
	// (2^63 − 1, −2^63): m − v = 2^64 − 1 → e = (65553, 0), Σ = 65553,
	//   ⌊(65553·65536 + 32776) / 65553⌋ = 65536, 0.
	out = like(1, 2, 2)
	softmax(tn(1, 2, 2, 5, 5-45426, 1<<63-1, -1<<63), out)
	expect(t, "softmax", out, 43691, 21845, 65536, 0)
}

// bigIGDN is §5.7 igdn in math/big; ok is false when an output passes i64.
func bigIGDN(p *whg1.IGDN, x *tensor.T) ([]int64, bool) {
	C, n := x.Shape.C, x.Shape.H*x.Shape.W
	res := make([]int64, len(x.Data))
	floorShift := func(v *big.Int, s uint32) *big.Int {
		return new(big.Int).Div(v, new(big.Int).Lsh(big.NewInt(1), uint(s)))
	}
	for pos := range n {
		for i := range C {
			N := big.NewInt(p.Beta[i])
			for j := range C {
				v := big.NewInt(x.Data[j*n+pos])
				t := new(big.Int).Mul(v, v)
				N.Add(N, floorShift(t.Mul(t, big.NewInt(p.Gamma[i*C+j])), p.GF))
			}
			r := new(big.Int)
			if N.Sign() > 0 {
				r.Sqrt(N)
			}
			y := floorShift(r.Mul(r, big.NewInt(x.Data[i*n+pos])), p.Frac)
			if !y.IsInt64() {
				return nil, false
			}
			res[i*n+pos] = y.Int64()
		}
	}
	return res, true
}

// TestIGDNAgainstBig covers the int64 path (small values) and the 128-bit
// path (values up to 2^40, where γ·x² reaches 2^120).
func TestIGDNAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, bitsX := range []int{8, 40} {
		compared := 0
		for range 100 {
			C := 1 + r.IntN(4)
			val := func(b int) int64 { return r.Int64N(1<<b) - 1<<(b-1) }
			p := &whg1.IGDN{GF: uint32(r.IntN(2 * bitsX)), Frac: uint32(r.IntN(2 * bitsX))}
			if r.IntN(4) == 0 {
				p.GF = uint32(r.IntN(128))
			}
			for range C * C {
				p.Gamma = append(p.Gamma, val(bitsX))
			}
			for range C {
				p.Beta = append(p.Beta, val(bitsX))
			}
			x := tensor.New(tensor.Shape{C: C, H: 1 + r.IntN(3), W: 1 + r.IntN(3)})
			for i := range x.Data {
				x.Data[i] = val(bitsX)
			}
			out := tensor.New(x.Shape)
			err := igdn(p, x, out)
			want, ok := bigIGDN(p, x)
			if !ok {
				expectRefusal(t, "igdn past i64", err, refusal.ModelMismatch)
				continue
			}
			noErr(t, "igdn", err)
			expect(t, "igdn", out, want...)
			compared++
		}
		if compared < 50 {
			t.Errorf("%d-bit values: only %d cases fit i64", bitsX, compared)
		}
	}
}

// bigLayerNorm is §5.7 layernorm_c in math/big. ok is false when a value
// passes its acc64 class: ln.d or ln.n past i64, ln.T or ln.v past i128, or
// an output past i64.
func bigLayerNorm(p *whg1.LayerNorm, x *tensor.T) ([]int64, bool) {
	C, n := x.Shape.C, x.Shape.H*x.Shape.W
	bc := big.NewInt(int64(C))
	q16 := new(big.Int).Lsh(big.NewInt(1), 16)
	res := make([]int64, len(x.Data))
	for pos := range n {
		S := new(big.Int)
		for c := range C {
			S.Add(S, big.NewInt(x.Data[c*n+pos]))
		}
		M := new(big.Int).Add(S, new(big.Int).Mul(big.NewInt(int64(C/2)), big.NewInt(int64(S.Sign()))))
		m := new(big.Int).Quo(M, bc) // Quo truncates toward zero
		T := new(big.Int)
		d := make([]*big.Int, C)
		for c := range C {
			d[c] = new(big.Int).Sub(big.NewInt(x.Data[c*n+pos]), m)
			if !d[c].IsInt64() {
				return nil, false
			}
			T.Add(T, new(big.Int).Mul(d[c], d[c]))
		}
		U := new(big.Int).Add(new(big.Int).Div(T, bc), new(big.Int).SetUint64(p.Eps))
		if !fits128(T) || !fits128(U) {
			return nil, false
		}
		k := new(big.Int)
		if r := new(big.Int).Sqrt(U); r.Sign() > 0 {
			k.Div(new(big.Int).Lsh(big.NewInt(1), 32), r)
		}
		for c := range C {
			nc := new(big.Int).Div(new(big.Int).Mul(d[c], k), q16)
			if !nc.IsInt64() {
				return nil, false
			}
			y := new(big.Int).Div(nc.Mul(nc, big.NewInt(p.Gamma[c])), q16)
			y.Add(y, big.NewInt(p.Beta[c]))
			if !y.IsInt64() {
				return nil, false
			}
			res[c*n+pos] = y.Int64()
		}
	}
	return res, true
}

func TestLayerNormAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, b := range []int{4, 20, 62} {
		compared := 0
		for range 100 {
			val := func(b int) int64 { return r.Int64N(1<<b) - 1<<(b-1) }
			C := 1 + r.IntN(5)
			p := &whg1.LayerNorm{Eps: 1 + r.Uint64N(1<<uint(min(2*b, 63))), Gamma: make([]int64, C), Beta: make([]int64, C)}
			if r.IntN(4) == 0 {
				p.Eps = ^uint64(0) - r.Uint64N(3)
			}
			for c := range C {
				p.Gamma[c], p.Beta[c] = val(min(b+16, 62)), val(b)
			}
			x := tensor.New(tensor.Shape{C: C, H: 1 + r.IntN(2), W: 1 + r.IntN(3)})
			for i := range x.Data {
				x.Data[i] = val(b)
			}
			out := tensor.New(x.Shape)
			err := layernormC(p, x, out)
			want, ok := bigLayerNorm(p, x)
			if !ok {
				expectRefusal(t, "layernorm_c outside acc64", err, refusal.ModelMismatch)
				continue
			}
			noErr(t, "layernorm_c", err)
			expect(t, "layernorm_c", out, want...)
			compared++
		}
		if compared < 50 {
			t.Errorf("%d-bit values: only %d cases compared", b, compared)
		}
	}
}

// TestIGDNFitsEdges puts igdnFits' bound at its edge and one past it and
// checks the switch and the values (math/big) on both sides: C = 1, γ = 1,
// gf = 0, x = ±X: the row bound is |β| + X² + 1.
func TestIGDNFitsEdges(t *testing.T) {
	const X = 1<<31 - 1
	for _, c := range []struct {
		name string
		x    int64
		beta int64
		fits bool
	}{
		{"bound 2^63 − 1", X, 1<<63 - 2 - X*X, true},
		{"bound 2^63", X, 1<<63 - 1 - X*X, false},
		{"β negative at the bound", X, -(1<<63 - 2 - X*X), true},
		{"x = −2^31", -1 << 31, 0, false},
	} {
		p := &whg1.IGDN{Gamma: []int64{1}, Beta: []int64{c.beta}}
		if got := igdnFits(p, 1, absU(c.x)); got != c.fits {
			t.Errorf("%s: fits %v, want %v", c.name, got, c.fits)
		}
		for _, frac := range []uint32{0, 31, 63, 100} {
			p.Frac = frac
			x := tn(1, 1, 2, c.x, -c.x)
			out := like(1, 1, 2)
			err := igdn(p, x, out)
			want, ok := bigIGDN(p, x)
			if !ok {
				expectRefusal(t, c.name, err, refusal.ModelMismatch)
				continue
			}
			noErr(t, c.name, err)
			expect(t, c.name, out, want...)
		}
	}
}

// TestIGDNBlockAgainstWide compares the int64 blocked path with the 128-bit
// per-position path (igdnWide, checked against math/big above) on planes
// of up to 40×40 positions, so that runs cross igdnSpan and split across
// goroutines, with γ of either sign and shifts past 63.
func TestIGDNBlockAgainstWide(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for n := range 30 {
		bitsX := []int{8, 16, 24}[n%3]
		val := func(b int) int64 { return r.Int64N(1<<b) - 1<<(b-1) }
		C := 1 + r.IntN(20)
		p := &whg1.IGDN{GF: uint32(r.IntN(70)), Frac: uint32(r.IntN(70))}
		for range C * C {
			p.Gamma = append(p.Gamma, val(14)*int64(r.IntN(2))) // half of them zero
		}
		for range C {
			p.Beta = append(p.Beta, val(30))
		}
		x := tensor.New(tensor.Shape{C: C, H: 1 + r.IntN(40), W: 1 + r.IntN(40)})
		for i := range x.Data {
			x.Data[i] = val(bitsX)
		}
		if !igdnFits(p, C, maxAbs(x.Data)) {
			t.Fatalf("case %d: not on the int64 path", n)
		}
		got, want := tensor.New(x.Shape), tensor.New(x.Shape)
		noErr(t, "igdn", igdn(p, x, got))
		noErr(t, "igdnWide", igdnWide(p, x, want, 0, x.Shape.H*x.Shape.W))
		expect(t, "igdn blocks", got, want.Data...)
	}
}
