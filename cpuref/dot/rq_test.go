package dot

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// rqRow is RQRowStrided at stride 1, the form most tests call.
func rqRow(dst, src []int64, q *RQ64) bool { return RQRowStrided(dst, 1, src, q) }

// forEachRQ runs f with RQRowStrided on each implementation that has an rq loop.
func forEachRQ(t *testing.T, f func(t *testing.T)) {
	forEachWith(t, &bestRQ, func(im Impl) bool { return im.rq != nil }, f)
}

// TestImplementationsRQ checks the dispatcher's RQRowStrided pick: the widest
// AVX-512 set where the CPU has AVX512DQ's vpmullq in this build, the pure
// loop otherwise (AVX2 has no 64-bit multiply).
func TestImplementationsRQ(t *testing.T) {
	want := "purego"
	if l := wantImpls(); len(l) > 1 && hasDQ() && l[len(l)-1] != "avx2" {
		want = l[len(l)-1]
	}
	if SelectedRQ() != want {
		t.Fatalf("RQRowStrided runs %s, want %s", SelectedRQ(), want)
	}
}

// TestRQRowHand checks each rounding on hand-worked ties and near-ties
// (§2), s = 1 and s = 2, with pre 1, mult 1 and post 10: v = 0 … 7 give
// p = 1 … 8, and −8 … −1 give p = −7 … 0. The 17 sums make every
// implementation take its vector loop and its tail.
func TestRQRowHand(t *testing.T) {
	src := []int64{0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1, 2}
	for _, c := range []struct {
		round uint8
		s     uint
		q     []int64 // R_round(p, s) for p = 1 … 8, −7 … 0, 3
	}{
		{RoundFloor, 1, []int64{0, 1, 1, 2, 2, 3, 3, 4, -4, -3, -3, -2, -2, -1, -1, 0, 1}},
		{RoundHalfUp, 1, []int64{1, 1, 2, 2, 3, 3, 4, 4, -3, -3, -2, -2, -1, -1, 0, 0, 2}},
		{RoundHalfEven, 1, []int64{0, 1, 2, 2, 2, 3, 4, 4, -4, -3, -2, -2, -2, -1, 0, 0, 2}},
		// s = 2: p/4 for p = 1 … 8 is 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2.
		{RoundHalfEven, 2, []int64{0, 0, 1, 1, 1, 2, 2, 2, -2, -2, -1, -1, -1, 0, 0, 0, 1}},
		{RoundHalfUp, 2, []int64{0, 1, 1, 1, 1, 2, 2, 2, -2, -1, -1, -1, -1, 0, 0, 0, 1}},
		{RoundHalfEven, 0, []int64{1, 2, 3, 4, 5, 6, 7, 8, -7, -6, -5, -4, -3, -2, -1, 0, 3}},
	} {
		want := make([]int64, len(c.q))
		for i, q := range c.q {
			want[i] = q + 10
		}
		forEachRQ(t, func(t *testing.T) {
			dst := make([]int64, len(src))
			if !rqRow(dst, src, &RQ64{Pre: 1, Mult: 1, Post: 10, Shift: c.s, Round: c.round}) || !slices.Equal(dst, want) {
				t.Errorf("round %d, s %d: got %v, want %v", c.round, c.s, dst, want)
			}
		})
	}
}

// rqBig is §5.1's rq on v in math/big: R_round((v + pre)·mult, s) + post
// (§2), and whether it fits i64.
func rqBig(v int64, q RQ64) (int64, bool) {
	p := new(big.Int).Mul(big.NewInt(v+q.Pre), big.NewInt(q.Mult))
	d := new(big.Int).Lsh(big.NewInt(1), q.Shift)
	quo, rem := new(big.Int).DivMod(p, d, new(big.Int)) // Euclidean: rem ≥ 0, quo = ⌊p/d⌋
	if q.Shift > 0 && q.Round != RoundFloor {
		switch c := new(big.Int).Lsh(rem, 1).Cmp(d); {
		case c > 0, c == 0 && (q.Round == RoundHalfUp || quo.Bit(0) == 1):
			quo.Add(quo, big.NewInt(1))
		}
	}
	y := quo.Add(quo, big.NewInt(q.Post))
	return y.Int64(), y.IsInt64()
}

// TestRQRowRandom compares RQRowStrided with rqBig on 10^5 random rows (10^4 with
// -short or -race) inside RQ64's bounds, their ends drawn often: |v + pre|
// up to 2^62, |p| up to 2^62, shifts 0 to 62, posts that make y pass i64,
// rows of 0 to 40 sums (every implementation's vector loop and tail), at
// strides 1 to 3 (RQRowStrided: only every stride-th element written), half
// of them with a folded clamp (a relu, [0, hi] or [lo, hi]).
func TestRQRowRandom(t *testing.T) {
	cases := randomCases()
	forEachRQ(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		span := func(lo, hi int64) int64 { // in [lo, hi], its ends often
			switch r.IntN(4) {
			case 0:
				return lo
			case 1:
				return hi
			}
			return lo + int64(r.Uint64N(uint64(hi)-uint64(lo)+1))
		}
		end := func(m int64) int64 { return span(-m, m) }
		wrapped := 0
		for c := range cases {
			q := RQ64{Shift: uint(r.IntN(63)), Round: uint8(r.IntN(3))}
			if r.IntN(4) == 0 {
				q.Shift = 62
			}
			q.Mult = end(int64(1) << r.IntN(63))
			T := int64(1) << 62 // |t| ≤ T: t and p within 2^62
			if q.Mult != 0 {
				T = min(T, int64(1)<<62/absI(q.Mult))
			}
			q.Pre = end(T / 2)
			q.Post = end(math.MaxInt64)
			if r.IntN(2) == 0 {
				q.Post = end(1 << 20)
			}
			if r.IntN(2) == 0 { // a folded clamp or relu, at the ends often
				q.Clamp, q.Lo, q.Hi = true, end(1<<40), math.MaxInt64
				if r.IntN(2) == 0 {
					q.Lo = 0
				}
				if r.IntN(2) == 0 {
					q.Hi = span(q.Lo, 1<<40)
				}
			}
			src := make([]int64, r.IntN(41))
			for i := range src {
				// v with |v + pre| ≤ T.
				src[i] = span(-T-q.Pre, T-q.Pre)
			}
			want := make([]int64, len(src))
			wantOK := true
			for i, v := range src {
				var ok bool
				want[i], ok = rqBig(v, q)
				wantOK = wantOK && ok
				if q.Clamp {
					want[i] = min(max(want[i], q.Lo), q.Hi)
				}
			}
			stride := 1 + r.IntN(3)
			dst := make([]int64, max(0, stride*(len(src)-1)+1))
			const mark = -0x5a5a5a5a
			for i := range dst {
				dst[i] = mark
			}
			ok := RQRowStrided(dst, stride, src, &q)
			what := fmt.Sprintf("case %d (%+v on %v, stride %d)", c, q, src, stride)
			for i, v := range dst {
				if i%stride != 0 && v != mark {
					t.Fatalf("%s: element %d between the strided ones written", what, i)
				}
			}
			if ok != wantOK {
				t.Fatalf("%s: ok %v, want %v", what, ok, wantOK)
			}
			if !wantOK {
				wrapped++
				continue
			}
			got := make([]int64, len(src))
			for i := range got {
				got[i] = dst[stride*i]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: got %v, want %v", what, got, want)
			}
		}
		if wrapped == 0 || wrapped > cases/2 {
			t.Fatalf("%d of %d rows wrapped: want some, not most", wrapped, cases)
		}
	})
}

func absI(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
