package importer

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm sets c (m×n, row stride ldc) to a·b, a m×k and b k×n row-major
// with row strides lda and ldb, in float64: with the FMA kernel where the
// CPU has one (gemm_amd64.go), else gonum's. The evaluator's convs and
// igdn go through it.
func gemm(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if gemmFMA(m, n, k, a, lda, b, ldb, c, ldc) {
		return
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: m, Cols: k, Stride: lda, Data: a},
		blas64.General{Rows: k, Cols: n, Stride: ldb, Data: b},
		0, blas64.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}
