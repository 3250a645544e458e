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
// gonum's, elsewhere, to 1e-12 of the terms' magnitude.
func TestGemm(t *testing.T) {
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
