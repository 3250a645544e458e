package norm

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// flooredRef is Floored4's a[t] in big integers: each term γ·r divided by
// 2^s with the quotient rounded toward −∞ (big.Int.Div with a positive
// divisor is Euclidean, the floor); ok is false when a partial sum leaves
// int64 (outside Floored4's contract).
func flooredRef(a int64, g *[4]int64, r [4]int64, s uint) (int64, bool) {
	sum, d := big.NewInt(a), new(big.Int).Lsh(big.NewInt(1), s)
	for k := range 4 {
		q := new(big.Int).Mul(big.NewInt(g[k]), big.NewInt(r[k]))
		sum.Add(sum, q.Div(q, d))
		if !sum.IsInt64() {
			return 0, false
		}
	}
	return sum.Int64(), true
}

// TestFlooredHand checks Floored4 on values worked by hand, at the
// bounds' ends, on 11 positions (a block of 8 and a tail):
//
//	10 + ⌊−3·5 / 4⌋ + ⌊7·3 / 4⌋ + 0 + ⌊−2^31 / 4⌋ = 10 − 4 + 5 − 2^29
//	⌊−2^31·(2^31 − 1) / 2^63⌋ + ⌊(2^31 − 1)² / 2^63⌋ = −1 + 0
//	(2^31 − 1)² with s = 0: 4611686014132420609
func TestFlooredHand(t *testing.T) {
	const m = 11
	for _, c := range []struct {
		a    int64
		g    [4]int64
		r    [4]int64
		s    uint
		want int64
	}{
		{10, [4]int64{-3, 7, 0, -1 << 31}, [4]int64{5, 3, 9, 1}, 2, 10 - 4 + 5 - 1<<29},
		{0, [4]int64{-1 << 31, 1<<31 - 1, 0, 0}, [4]int64{1<<31 - 1, 1<<31 - 1, 0, 0}, 63, -1},
		{0, [4]int64{1<<31 - 1, 0, 0, 0}, [4]int64{1<<31 - 1, 1, 1, 1}, 0, 4611686014132420609},
	} {
		forEachImpl(t, func(t *testing.T) {
			a := fill(m, c.a)
			Floored4(a, &c.g, &[4][]int64{fill(m, c.r[0]), fill(m, c.r[1]), fill(m, c.r[2]), fill(m, c.r[3])}, c.s)
			for i, v := range a {
				if v != c.want {
					t.Fatalf("a[%d] = %d, want %d (case %+v)", i, v, c.want, c)
				}
			}
		})
	}
}

// fill is n copies of v.
func fill(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestFlooredRandom checks every implementation's Floored4 against
// flooredRef on cases() random rows, γ in i32 and r in [0, 2^31) with
// their ends drawn often, s in [0, 63]; a position whose partial sums
// leave int64 (outside the contract) is reset to a = 0, r = 0.
func TestFlooredRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(41, 42))
		for range cases() / 10 {
			m := 1 + rnd.IntN(40)
			var g [4]int64
			var r [4][]int64
			for k := range 4 {
				g[k] = draw(rnd, -1<<31, 1<<31-1)
				if rnd.IntN(8) == 0 {
					g[k] = 0
				}
				r[k] = make([]int64, m+rnd.IntN(3)) // r may be longer than a
			}
			s := uint(draw(rnd, 0, 63))
			a := make([]int64, m)
			want := make([]int64, m)
			for i := range m {
				a[i] = draw(rnd, -1<<62+1, 1<<62-1)
				var ri [4]int64
				for k := range 4 {
					r[k][i] = draw(rnd, 0, 1<<31-1)
					ri[k] = r[k][i]
				}
				w, ok := flooredRef(a[i], &g, ri, s)
				if !ok {
					a[i], w = 0, 0
					for k := range 4 {
						r[k][i] = 0
					}
				}
				want[i] = w
			}
			Floored4(a, &g, &r, s)
			for i := range m {
				if a[i] != want[i] {
					t.Fatalf("m %d s %d g %v: a[%d] = %d, want %d", m, s, g, i, a[i], want[i])
				}
			}
		}
	})
}
