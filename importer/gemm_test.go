package importer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemm: gemm against the sum written out, on shapes that leave partial
// row and column blocks (the kernel's are 6×8, a task's 64 columns), k 0
// and 1, and strides wider than the rows; what lies past each row of c
// is left alone. Where the FMA kernel runs (haveFMA on amd64) every
// element is bit for bit Σ_l fma(a[i][l], b[l][j], ·) in order of l from 0;
// gonum's, elsewhere, to 1e-12 of the terms' magnitude. Each FMA kernel
// this CPU runs is tried (forEachKernel).
func TestGemm(t *testing.T) { forEachKernel(t, testGemm) }

func testGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct{ m, n, k int }{
		{1, 1, 1}, {6, 8, 3}, {7, 9, 5}, {13, 70, 17}, {5, 3, 0}, {48, 129, 128}, {3200, 65, 2}, {2, 200, 1},
	} {
		lda, ldb, ldc := s.k+1, s.n+3, s.n+2
		a := make([]float64, s.m*lda)
		b := make([]float64, s.k*ldb)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		for i := range b {
			b[i] = r.NormFloat64()
		}
		c := make([]float64, s.m*ldc)
		for i := range c {
			c[i] = 99
		}
		gemm(s.m, s.n, s.k, a, lda, b, ldb, c, ldc)
		for i := range s.m {
			for j := range ldc {
				got := c[i*ldc+j]
				if j >= s.n {
					if got != 99 {
						t.Fatalf("%v: c[%d][%d] past the row changed to %v", s, i, j, got)
					}
					continue
				}
				want, mag := 0.0, 0.0
				for l := range s.k {
					want = math.FMA(a[i*lda+l], b[l*ldb+j], want)
					mag += math.Abs(a[i*lda+l] * b[l*ldb+j])
				}
				if haveFMA && got != want || math.Abs(got-want) > 1e-12*mag {
					t.Fatalf("%v: c[%d][%d] = %v, want %v", s, i, j, got, want)
				}
			}
		}
	}
}

// TestConvTChunks: a conv_transpose with cout·taps = 1024·9 rows takes
// gemmChunk/9216 = 910 input positions a GEMM, so a 2×40×40 input goes in
// two chunks, the second from the middle of row 22. Whole-number weights,
// bias and inputs make every sum exact in float64, in any order, so the
// evaluator's output equals the scatter written out, bit for bit.
func TestConvTChunks(t *testing.T) {
	const cin, cout, side = 2, 1024, 40
	r := rand.New(rand.NewPCG(9, 10))
	l := &layer{kind: kConvT, cout: cout, kh: 3, kw: 3, sh: 2, sw: 2, ph: 1, pw: 1, oph: 1, opw: 1,
		w: make([]float64, cin*cout*9), b: make([]float64, cout)}
	for i := range l.w {
		l.w[i] = float64(r.IntN(7) - 3)
	}
	for i := range l.b {
		l.b[i] = float64(r.IntN(5) - 2)
	}
	x := newF(cin, side, side)
	for i := range x.d {
		x.d[i] = float64(r.IntN(9) - 4)
	}
	if n := gemmChunk / (cout * 9); n != 910 || side*side <= n || n%side == 0 {
		t.Fatalf("the chunk is %d positions: the test wants two, the second from mid-row", n)
	}
	got, err := l.convT(x)
	if err != nil {
		t.Fatal(err)
	}
	const o = 2 * side // (40 − 1)·2 − 2 + 3 + 1
	want := make([]float64, cout*o*o)
	for co := range cout {
		for i := range o * o {
			want[co*o*o+i] = l.b[co]
		}
		for ci := range cin {
			for u := range side {
				for v := range side {
					for i := range 3 {
						for j := range 3 {
							y, z := 2*u+i-1, 2*v+j-1
							if y >= 0 && y < o && z >= 0 && z < o {
								want[(co*o+y)*o+z] += x.d[(ci*side+u)*side+v] * l.w[((ci*cout+co)*3+i)*3+j]
							}
						}
					}
				}
			}
		}
	}
	if got.c != cout || got.h != o || got.w != o {
		t.Fatalf("output %d×%d×%d", got.c, got.h, got.w)
	}
	for i := range want {
		if got.d[i] != want[i] {
			t.Fatalf("element %d: %v, want %v", i, got.d[i], want[i])
		}
	}
}
