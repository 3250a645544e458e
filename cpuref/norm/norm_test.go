package norm

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestImplementations checks the build registered every kernel the
// machine's CPU flags call for (cryptotest's TestAllImplementations
// style): a missing kernel is an error, not a skip.
func TestImplementations(t *testing.T) {
	want := wantImpls()
	if got := Implementations(); !slices.Equal(got, want) {
		t.Fatalf("implementations %v, want %v (CPU flags)", got, want)
	}
	if Selected() != want[len(want)-1] {
		t.Fatalf("dispatcher picked %s, want %s", Selected(), want[len(want)-1])
	}
}

// forEachImpl runs f once per implementation, with Terms and Root
// dispatched to it.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	saved := best
	defer func() { best = saved }()
	for _, im := range impls {
		best = im
		t.Run(im.Name, f)
	}
}

// cases is the random suites' count: 10^5, or 10^4 under -race.
func cases() int {
	if raceEnabled {
		return 10_000
	}
	return 100_000
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

// TestIsqrtBits checks §2's isqrt, r² ≤ v < (r + 1)², on every v < 2^20
// and at each side of the squares and of 2^31 − 1, with the fewest bits
// that hold the root and with 16.
func TestIsqrtBits(t *testing.T) {
	check := func(v uint32) {
		want := uint32(new(big.Int).Sqrt(new(big.Int).SetUint64(uint64(v))).Uint64())
		least := 1
		for want>>least != 0 {
			least++
		}
		for _, bits := range []int{least, 16} {
			if got := isqrtBits(v, bits); got != want {
				t.Fatalf("isqrtBits(%d, %d) = %d, want %d", v, bits, got, want)
			}
		}
	}
	for v := range uint32(1 << 20) {
		check(v)
	}
	for s := uint32(1 << 10); s <= 46341; s += 7 {
		check(s*s - 1)
		check(s * s)
		check(s*s + 1)
	}
	check(1<<31 - 1) // isqrt = 46340
	check(1<<32 - 1) // isqrt = 65535
}

// termsRef is Terms' definition in int64, with the check that every
// partial sum in the kernels' order (β first, then j upward) lies in i32
// (ok false when one does not: the case is outside Terms' contract).
func termsRef(gamma, beta []int64, x2 []int32, C, m int, gf uint) ([]int64, bool) {
	n := make([]int64, C*m)
	for i := range C {
		for t := range m {
			s := beta[i]
			for j := range C {
				s += (gamma[i*C+j] * int64(x2[j*m+t])) >> gf
				if s != int64(int32(s)) {
					return nil, false
				}
			}
			n[i*m+t] = s
		}
	}
	return n, true
}

// TestTermsHand checks Terms on hand-computed sums: each term floored, and
// partial sums at i32's ends.
func TestTermsHand(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		// C = 2, gf = 1, γ = [[1, 1], [−1, 3]], β = (3, 0), x² = (1, 1):
		// N0 = 3 + ⌊1/2⌋ + ⌊1/2⌋ = 3 (flooring the sum would give 4);
		// N1 = ⌊−1/2⌋ + ⌊3/2⌋ = −1 + 1 = 0. Column 1, x² = (9, 4):
		// N0 = 3 + 4 + 2 = 9, N1 = ⌊−9/2⌋ + ⌊12/2⌋ = −5 + 6 = 1.
		p, ok := Pack([]int64{1, 1, -1, 3}, []int64{3, 0}, 2)
		if !ok {
			t.Fatal("Pack refused")
		}
		x2 := make([]int32, 2*Cols)
		x2[0], x2[Cols], x2[1], x2[Cols+1] = 1, 1, 9, 4
		n := make([]int32, p.Channels()*Cols)
		if !Terms(n, x2, p, Cols, 1) {
			t.Fatal("Terms refused")
		}
		if n[0] != 3 || n[1] != 9 || n[Cols] != 0 || n[Cols+1] != 1 || n[2] != 3 || n[2*Cols] != 0 {
			t.Fatalf("N = %d %d / %d %d, pad %d %d", n[0], n[1], n[Cols], n[Cols+1], n[2], n[2*Cols])
		}
		// i32's ends, C = 1, gf = 0: γ = −2^15, x² = 2^15 − 1: the term is
		// −2^30 + 2^15; β = −2^30 − 2^15 gives N = −2^31. γ = 2^15 − 1:
		// the term is 2^30 − 2^16 + 1; β = 2^30 + 2^16 − 2 gives 2^31 − 1.
		// gf = 40 (shifted by 31): ⌊(−2^30 + 2^15) / 2^40⌋ = −1.
		for _, c := range []struct {
			g, beta int64
			gf      uint
			want    int32
		}{
			{-1 << 15, -1<<30 - 1<<15, 0, -1 << 31},
			{1<<15 - 1, 1<<30 + 1<<16 - 2, 0, 1<<31 - 1},
			{-1 << 15, 5, 40, 4},
			{1<<15 - 1, 5, 40, 5},
		} {
			p, _ := Pack([]int64{c.g}, []int64{c.beta}, 1)
			x2 := make([]int32, Cols)
			for k := range x2 {
				x2[k] = 1<<15 - 1
			}
			n := make([]int32, p.Channels()*Cols)
			Terms(n, x2, p, Cols, c.gf)
			if n[0] != c.want || n[Cols-1] != c.want {
				t.Errorf("γ %d β %d gf %d: N = %d, want %d", c.g, c.beta, c.gf, n[0], c.want)
			}
		}
	})
}

// TestTermsRandom compares Terms with termsRef on random cases: γ at
// i16's ends, x² at 0 and 2^15 − 1, β near i32's, C up to 70 (groups
// padded), m up to 4·Cols, every implementation.
func TestTermsRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		compared := 0
		for k := range cases() {
			C := 1 + r.IntN(9)
			if k%100 == 0 {
				C = 1 + r.IntN(70)
			}
			m := Cols * (1 + r.IntN(4))
			gf := uint(r.IntN(40))
			gamma, beta := make([]int64, C*C), make([]int64, C)
			for i := range gamma {
				gamma[i] = draw(r, -1<<15, 1<<15-1)
			}
			for i := range beta {
				beta[i] = draw(r, -1<<31, 1<<31-1) >> r.IntN(32)
			}
			x2 := make([]int32, C*m)
			for i := range x2 {
				x2[i] = int32(draw(r, 0, 1<<15-1))
			}
			want, ok := termsRef(gamma, beta, x2, C, m, gf)
			if !ok {
				continue
			}
			p, ok := Pack(gamma, beta, C)
			if !ok {
				t.Fatal("Pack refused")
			}
			n := make([]int32, p.Channels()*m)
			if !Terms(n, x2, p, m, gf) {
				t.Fatal("Terms refused")
			}
			for i, w := range want {
				if int64(n[i]) != w {
					t.Fatalf("case %d: C %d m %d gf %d: n[%d] = %d, want %d", k, C, m, gf, i, n[i], w)
				}
			}
			compared++
		}
		if compared < cases()/4 {
			t.Fatalf("only %d of %d cases inside Terms' bounds", compared, cases())
		}
	})
}

// TestRootRandom compares Root with §5.7's ⌊x·isqrt(max(0, N)) / 2^frac⌋
// (isqrt from math/big) on random rows: N at i32's ends, at 0 and at
// 2^(2·bits) − 1, and, a third of the time, a perfect square or one of its
// neighbours (where a root's last bit turns); x at i32's ends or at ±181
// (cpuref's largest); frac 0 or past 63; lengths that leave a pure-Go
// tail; every implementation.
func TestRootRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for k := range cases() {
			cnt := 1 + r.IntN(80)
			frac := uint(r.IntN(70))
			if k%5 == 0 {
				frac = 0
			}
			bits := 16
			hi := int64(1<<31 - 1)
			if k%2 == 0 { // fewer bits: N < 2^(2·bits)
				bits = 1 + r.IntN(16)
				hi = min(hi, 1<<(2*bits)-1)
			}
			top := new(big.Int).Sqrt(big.NewInt(hi)).Int64()
			n, x := make([]int32, cnt), make([]int64, cnt)
			for i := range n {
				switch r.IntN(6) {
				case 0, 1: // q² − 1, q², q² + 1, inside [0, hi]
					q := draw(r, 0, top)
					n[i] = int32(min(max(q*q+r.Int64N(3)-1, 0), hi))
				case 2:
					n[i] = int32(draw(r, 0, hi))
				default:
					n[i] = int32(draw(r, -1<<31, hi))
				}
				x[i] = draw(r, -1<<31, 1<<31-1)
				if r.IntN(4) == 0 {
					x[i] = draw(r, -181, 181)
				}
			}
			out := make([]int64, cnt)
			if !Root(out, x, n, frac, bits) {
				t.Fatal("Root refused")
			}
			for i, v := range n {
				var root int64
				if v > 0 {
					root = new(big.Int).Sqrt(big.NewInt(int64(v))).Int64()
				}
				want := (x[i] * root) >> min(frac, 63) // |x·r| < 2^47: exact
				if out[i] != want {
					t.Fatalf("case %d: x %d N %d frac %d bits %d: %d, want %d", k, x[i], v, frac, bits, out[i], want)
				}
			}
		}
	})
}

// TestRootHand checks hand-computed values: N = 16 → r = 4, x = −3,
// frac = 3: ⌊−12/8⌋ = −2 (truncation would give −1); N = 15 → r = 3;
// N < 0 → r = 0; N = 2^31 − 1 → r = 46340, x = −2^31, frac = 0:
// −2^31·46340 = −99514392248320; frac = 80 → −1.
func TestRootHand(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		n := make([]int32, 64)
		x := make([]int64, 64)
		for i := range n {
			n[i], x[i] = 16, -3
		}
		n[1], n[2], n[33] = 15, -7, 1<<31-1
		x[33] = -1 << 31
		out := make([]int64, 64)
		Root(out, x, n, 3, 16)
		if out[0] != -2 || out[1] != -2 || out[2] != 0 || out[63] != -2 {
			t.Fatalf("frac 3: %d %d %d %d", out[0], out[1], out[2], out[63])
		}
		Root(out, x, n, 0, 16)
		if out[0] != -12 || out[1] != -9 || out[33] != -99514392248320 {
			t.Fatalf("frac 0: %d %d %d", out[0], out[1], out[33])
		}
		Root(out, x, n, 80, 16)
		if out[0] != -1 || out[2] != 0 || out[33] != -1 {
			t.Fatalf("frac 80: %d %d %d", out[0], out[2], out[33])
		}
	})
}

// TestShapes checks the refusals of shapes that do not fit.
func TestShapes(t *testing.T) {
	if _, ok := Pack([]int64{1 << 15}, []int64{0}, 1); ok {
		t.Error("Pack took γ = 2^15")
	}
	if _, ok := Pack([]int64{0}, []int64{1 << 31}, 1); ok {
		t.Error("Pack took β = 2^31")
	}
	if _, ok := Pack([]int64{0, 0}, []int64{0}, 1); ok {
		t.Error("Pack took a short γ")
	}
	p, _ := Pack([]int64{1}, []int64{0}, 1)
	if Terms(make([]int32, 4*16), make([]int32, 16), p, 16, 0) {
		t.Error("Terms took m = 16")
	}
	if Terms(make([]int32, 4*Cols), make([]int32, Cols+1), p, Cols, 0) {
		t.Error("Terms took a long x2")
	}
	if Root(make([]int64, 2), make([]int64, 2), make([]int32, 2), 0, 17) {
		t.Error("Root took bits = 17")
	}
	if Root(make([]int64, 2), make([]int64, 1), make([]int32, 2), 0, 8) {
		t.Error("Root took a short x")
	}
}

// TestSquaresRandom compares Squares with x² and the range check on random
// rows: x at ±lim, one past them, and at i64's ends, every implementation.
func TestSquaresRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for k := range cases() {
			cnt := 1 + r.IntN(70)
			lim := draw(r, 0, 181)
			x := make([]int64, cnt)
			for i := range x {
				x[i] = draw(r, -lim, lim)
			}
			want := true
			if k%2 == 0 { // one value out of range, anywhere in the row
				want = false
				x[r.IntN(cnt)] = []int64{lim + 1, -lim - 1, 1<<63 - 1, -1 << 63, 1 << 32}[r.IntN(5)]
			}
			x2 := make([]int32, cnt)
			if got := Squares(x2, x, lim); got != want {
				t.Fatalf("case %d: lim %d: ok %v, want %v (%v)", k, lim, got, want, x)
			}
			for i, v := range x {
				if want && int64(x2[i]) != v*v {
					t.Fatalf("case %d: x %d: x² %d", k, v, x2[i])
				}
			}
		}
	})
	if Squares(make([]int32, 1), make([]int64, 1), 182) {
		t.Error("Squares took lim = 182")
	}
}

// TestForce checks Force switches the dispatcher and restores it.
func TestForce(t *testing.T) {
	sel := Selected()
	for _, name := range Implementations() {
		restore, ok := Force(name)
		if !ok || Selected() != name {
			t.Fatalf("Force(%s): ok %v, selected %s", name, ok, Selected())
		}
		restore()
		if Selected() != sel {
			t.Fatalf("restore left %s, want %s", Selected(), sel)
		}
	}
	if _, ok := Force("sse2"); ok {
		t.Error("Force took an implementation this build lacks")
	}
}

// TestPackHi checks PackHi's conditions: gf in [1, 16], γ·2^(16−gf) in
// i16 (γ = 2^7 at gf 8 gives 2^15, one past), T in [1, 2^15 − 1]; and its
// chunk: T = 16384 (γ = −2^15, gf 16, x² < 2^15: ⌊2^15·(2^15 − 1)/2^16⌋ +
// 1) gives ⌊32767/16384⌋ = 1.
func TestPackHi(t *testing.T) {
	p, _ := Pack([]int64{127}, []int64{0}, 1)
	if PackHi(p, []int64{128}, 8, 1) || PackHi(p, []int64{127}, 0, 1) || PackHi(p, []int64{127}, 17, 1) ||
		PackHi(p, []int64{127}, 8, 0) || PackHi(p, []int64{127}, 8, 1<<15) {
		t.Error("PackHi took a form outside its conditions")
	}
	if !PackHi(p, []int64{127}, 8, 1) || p.chunk != 32767 || p.hi[0] != 127<<8*0x10001 {
		t.Errorf("PackHi(127, gf 8): chunk %d, γ' %#x", p.chunk, p.hi[0])
	}
	p, _ = Pack([]int64{-1 << 15}, []int64{0}, 1)
	if !PackHi(p, []int64{-1 << 15}, 16, 16384) || p.chunk != 1 {
		t.Errorf("PackHi(−2^15, gf 16): chunk %d", p.chunk)
	}
}

// TestTermsHiRandom compares Terms on Packed values with their high form
// with termsRef on random cases inside PackHi's conditions: gf in [1, 16],
// γ at the ends of [−2^(gf−1), 2^(gf−1) − 1], x² at 0 and at the case's
// bound (small bounds make long chunks), C up to 70 so that rows cross
// chunks, every implementation (the ones without a high-form kernel run
// the 32-bit one, which must agree).
func TestTermsHiRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		compared := 0
		for k := range cases() {
			C := 1 + r.IntN(9)
			if k%50 == 0 {
				C = 1 + r.IntN(70)
			}
			m := Cols * (1 + r.IntN(3))
			gf := uint(1 + r.IntN(16))
			x2max := draw(r, 0, 1<<15-1) >> r.IntN(15)
			gamma, beta := make([]int64, C*C), make([]int64, C)
			var T uint64 = 1
			for i := range gamma {
				gamma[i] = draw(r, -1<<(gf-1), 1<<(gf-1)-1)
				a := gamma[i]
				if a < 0 {
					a = -a
				}
				T = max(T, uint64(a*x2max)>>gf+1)
			}
			for i := range beta {
				beta[i] = draw(r, -1<<31, 1<<31-1) >> r.IntN(32)
			}
			x2 := make([]int32, C*m)
			for i := range x2 {
				x2[i] = int32(draw(r, 0, x2max))
			}
			want, ok := termsRef(gamma, beta, x2, C, m, gf)
			if !ok {
				continue
			}
			p, _ := Pack(gamma, beta, C)
			if !PackHi(p, gamma, gf, T) {
				t.Fatalf("case %d: PackHi refused gf %d T %d", k, gf, T)
			}
			n := make([]int32, p.Channels()*m)
			Terms(n, x2, p, m, gf)
			for i, w := range want {
				if int64(n[i]) != w {
					t.Fatalf("case %d: C %d m %d gf %d chunk %d: n[%d] = %d, want %d", k, C, m, gf, p.chunk, i, n[i], w)
				}
			}
			compared++
		}
		if compared < cases()/2 {
			t.Fatalf("only %d of %d cases inside Terms' bounds", compared, cases())
		}
	})
}
