package cpuref

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// bigRound is R_round(p, s) written straight from §2 with math/big.
func bigRound(p *big.Int, s uint, round whg1.Round) *big.Int {
	if s == 0 {
		return new(big.Int).Set(p)
	}
	two := new(big.Int).Lsh(big.NewInt(1), s)
	h := new(big.Int).Lsh(big.NewInt(1), s-1)
	switch round {
	case whg1.Floor:
		return new(big.Int).Div(p, two)
	case whg1.HalfUp:
		return new(big.Int).Div(new(big.Int).Add(p, h), two)
	}
	q := new(big.Int).Div(p, two)
	r := new(big.Int).Sub(p, new(big.Int).Mul(q, two))
	if c := r.Cmp(h); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func TestRoundShiftAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shifts := []uint{0, 1, 31, 32, 62, 63, 64, 127}
	for n := 0; n < 20000; n++ {
		p := rand128(r)
		s := shifts[n%len(shifts)]
		if n%3 == 0 {
			s = uint(r.IntN(128))
		}
		if n%5 == 0 && s > 0 {
			// Force an exact tie: p = k·2^s + 2^(s−1).
			k := r.Int64N(7) - 3
			if s < 64 {
				p = mul64(k, 1<<s)
			} else {
				p = int128{hi: k << (s - 64)}
			}
			p, _ = p.add(pow2(s - 1))
		}
		for _, rd := range []whg1.Round{whg1.Floor, whg1.HalfUp, whg1.HalfEven} {
			got := big128(roundShift(p, s, rd))
			if want := bigRound(big128(p), s, rd); got.Cmp(want) != 0 {
				t.Fatalf("R_%d(%v, %d) = %v, want %v", rd, big128(p), s, got, want)
			}
		}
	}
}

// pow2 is 2^b for 0 ≤ b ≤ 126.
func pow2(b uint) int128 {
	if b < 64 {
		return int128{lo: 1 << b}
	}
	return int128{hi: 1 << (b - 64)}
}

// TestRQHand checks rq_o of §5.1 on values worked by hand. F, U and E are the
// floor, half_up and half_even results.
func TestRQHand(t *testing.T) {
	cases := []struct {
		name        string
		v, mult     int64
		s           uint8
		pre, post   int64
		f, u, e     int64
		fitsNowhere bool
	}{
		// s = 0: p itself.
		{name: "s0", v: -7, mult: 3, s: 0, f: -21, u: -21, e: -21},
		// s = 1, ties: 5/2 = 2.5 → 2, 3, 2; 7/2 = 3.5 → 3, 4, 4;
		// −5/2 = −2.5 → −3, −2 (toward +∞), −2; −7/2 = −3.5 → −4, −3, −4.
		{name: "s1 +2.5", v: 5, mult: 1, s: 1, f: 2, u: 3, e: 2},
		{name: "s1 +3.5", v: 7, mult: 1, s: 1, f: 3, u: 4, e: 4},
		{name: "s1 −2.5", v: -5, mult: 1, s: 1, f: -3, u: -2, e: -2},
		{name: "s1 −3.5", v: -7, mult: 1, s: 1, f: -4, u: -3, e: -4},
		// Not a tie: −5/4 = −1.25 → −2, −1, −1; 7/4 = 1.75 → 1, 2, 2.
		{name: "s2 −1.25", v: -5, mult: 1, s: 2, f: -2, u: -1, e: -1},
		{name: "s2 +1.75", v: 7, mult: 1, s: 2, f: 1, u: 2, e: 2},
		// s = 31: 3·2^30 / 2^31 = 1.5 → 1, 2, 2; −1.5 → −2, −1, −2.
		{name: "s31 +1.5", v: 3 << 30, mult: 1, s: 31, f: 1, u: 2, e: 2},
		{name: "s31 −1.5", v: -3 << 30, mult: 1, s: 31, f: -2, u: -1, e: -2},
		// s = 32: 5·2^31 / 2^32 = 2.5 → 2, 3, 2; −2.5 → −3, −2, −2.
		{name: "s32 +2.5", v: 5 << 31, mult: 1, s: 32, f: 2, u: 3, e: 2},
		{name: "s32 −2.5", v: -5 << 31, mult: 1, s: 32, f: -3, u: -2, e: -2},
		// s = 62: p = 5·2^61 = 2.5·2^62 → 2, 3, 2; −2.5 → −3, −2, −2.
		{name: "s62 +2.5", v: 5, mult: 1 << 61, s: 62, f: 2, u: 3, e: 2},
		{name: "s62 −2.5", v: 5, mult: -1 << 61, s: 62, f: -3, u: -2, e: -2},
		// s = 63: p = 3·2^62 = 1.5·2^63 → 1, 2, 2; −1.5 → −2, −1, −2.
		{name: "s63 +1.5", v: 3, mult: 1 << 62, s: 63, f: 1, u: 2, e: 2},
		{name: "s63 −1.5", v: -3, mult: 1 << 62, s: 63, f: -2, u: -1, e: -2},
		// s = 64: p = 6·2^62 = 1.5·2^64 → 1, 2, 2; −1.5 → −2, −1, −2.
		// p needs 66 bits: the product is formed in 128.
		{name: "s64 +1.5", v: 1 << 62, mult: 6, s: 64, f: 1, u: 2, e: 2},
		{name: "s64 −1.5", v: 1 << 62, mult: -6, s: 64, f: -2, u: -1, e: -2},
		// s = 64: p = 10·2^62 = 2.5·2^64 → 2, 3, 2.
		{name: "s64 +2.5", v: 1 << 62, mult: 10, s: 64, f: 2, u: 3, e: 2},
		// s = 127: p = (−2^63)² = 2^126 = 0.5·2^127 → 0, 1, 0 (q = 0 even).
		{name: "s127 +0.5", v: -1 << 63, mult: -1 << 63, s: 127, f: 0, u: 1, e: 0},
		// s = 127: p = −2^63·(2^63 − 1) = −2^126 + 2^63, just above −0.5·2^127:
		// floor −1; half_up ⌊(2^63) / 2^127⌋ = 0; half_even r = 2^126 + 2^63 > h → 0.
		{name: "s127 −0.5+", v: -1 << 63, mult: 1<<63 - 1, s: 127, f: -1, u: 0, e: 0},
		// pre vs post bias, mult 3, s 1, bias 1 on v = 5:
		// pre: (5 + 1)·3 = 18 → 9, 9, 9; post: 15/2 = 7.5 → 7, 8, 8, then + 1.
		{name: "pre", v: 5, mult: 3, s: 1, pre: 1, f: 9, u: 9, e: 9},
		{name: "post", v: 5, mult: 3, s: 1, post: 1, f: 8, u: 9, e: 9},
		// q passes i64 before the post bias and y fits (§5.1: q is not
		// narrowed first): p = 3·2^62, s = 0, post −2^63 → 3·2^62 − 2·2^62 = 2^62.
		{name: "wide q", v: 1 << 62, mult: 3, s: 0, post: -1 << 63, f: 1 << 62, u: 1 << 62, e: 1 << 62},
		// y itself passes i64: outside acc64.
		{name: "y too wide", v: 1 << 62, mult: 3, s: 0, fitsNowhere: true},
	}
	for _, c := range cases {
		for i, rd := range []whg1.Round{whg1.Floor, whg1.HalfUp, whg1.HalfEven} {
			rq := &whg1.RQ{Round: rd, MKind: 1, SKind: 1, Mult: []int64{c.mult}, Shift: []uint8{c.s}}
			switch {
			case c.pre != 0:
				rq.Bias, rq.BiasV = whg1.PreBias, []int64{c.pre}
			case c.post != 0:
				rq.Bias, rq.BiasV = whg1.PostBias, []int64{c.post}
			}
			got, ok := rqOf(rq, 0, i128(c.v))
			want := []int64{c.f, c.u, c.e}[i]
			if c.fitsNowhere {
				if ok {
					t.Errorf("%s round %d: %d accepted, want outside acc64", c.name, rd, got)
				}
				continue
			}
			if !ok || got != want {
				t.Errorf("%s round %d: got %d %v, want %d", c.name, rd, got, ok, want)
			}
		}
	}
}

// TestRQRowAgainstRQOf compares the int64 row form of rq with the 128-bit
// rqOf on random rows whose magnitudes straddle the 2^62 bound where
// rqRow switches paths, and on the bound itself; rows of up to 24 sums
// take cpuref/dot's vector loop and its tail, at strides 1 to 3
// (rqRowStrided).
func TestRQRowAgainstRQOf(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	mag := func() int64 { // a magnitude of 0..63 bits, either sign
		v := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			return -v
		}
		return v
	}
	fast := 0
	for n := range 20000 {
		q := randRQ(r, 2, func() uint8 { return uint8(r.IntN(70)) }, mag)
		o := r.IntN(2)
		src := make([]int64, 1+r.IntN(24))
		for i := range src {
			src[i] = mag()
			if n%7 == 0 {
				src[i] = src[i] >> 40 // small sums with the large rq values
			}
		}
		if rqFits64(&q, o, maxAbs(src)) {
			fast++
		}
		stride := 1 + r.IntN(3) // rqRowStrided's stride, 1 for rqRow
		dst := make([]int64, stride*(len(src)-1)+1)
		ok := rqRowStrided(&q, o, maxAbs(src), src, dst, stride, nil)
		got := make([]int64, len(src))
		for i := range got {
			got[i] = dst[stride*i]
		}
		want := make([]int64, len(src))
		wok := true
		for i, v := range src {
			var vok bool
			want[i], vok = rqOf(&q, o, i128(v))
			wok = wok && vok
		}
		if ok != wok || (ok && !slices.Equal(got, want)) {
			t.Fatalf("rq %+v o %d src %v: rqRow %v (ok %v), rqOf %v (ok %v)", q, o, src, got, ok, want, wok)
		}
	}
	if fast < 2000 {
		t.Errorf("only %d rows on the int64 path", fast)
	}

	// At the bound: T = X + |pre| = 2^62 with mult ±1 is int64; one more,
	// or mult 2, is not. Post bias 2^63 − 1 − 2^61 puts y at i64's top.
	for _, c := range []struct {
		v, pre, mult int64
		fits         bool
	}{
		{1<<62 - 5, 5, 1, true},
		{-(1<<62 - 5), -5, -1, true},
		{1<<62 - 4, 5, 1, false},
		{1 << 61, 0, 2, true},
		{1<<61 + 1, 0, 2, false},
		{1 << 62, 0, 0, true},
	} {
		q := whg1.RQ{Round: whg1.HalfUp, Bias: whg1.PreBias, BiasV: []int64{c.pre}, MKind: 1, Mult: []int64{c.mult}, SKind: 1, Shift: []uint8{1}}
		if got := rqFits64(&q, 0, absU(c.v)); got != c.fits {
			t.Errorf("v %d pre %d mult %d: fits %v, want %v", c.v, c.pre, c.mult, got, c.fits)
		}
		got := make([]int64, 1)
		ok := rqRow(&q, 0, absU(c.v), []int64{c.v}, got)
		want, wok := rqOf(&q, 0, i128(c.v))
		if ok != wok || got[0] != want {
			t.Errorf("v %d pre %d mult %d: rqRow %d %v, rqOf %d %v", c.v, c.pre, c.mult, got[0], ok, want, wok)
		}
	}
	// y = q + post passing i64 on the int64 path: 2^61 + (2^63 − 2^61) = 2^63.
	q := whg1.RQ{Bias: whg1.PostBias, BiasV: []int64{1<<63 - 1<<61}, SKind: 1, Shift: []uint8{0}}
	if rqRow(&q, 0, 1<<61, []int64{1 << 61}, make([]int64, 1)) {
		t.Error("y = 2^63 did not refuse")
	}
	if got := make([]int64, 1); !rqRow(&q, 0, 1<<61, []int64{1<<61 - 1}, got) || got[0] != 1<<63-1 {
		t.Errorf("y = 2^63 − 1: %d", got[0])
	}
}
