//go:build !amd64

package importer

// haveFMA: there is no FMA kernel off amd64.
const haveFMA = false

// gemmFMA has no kernel off amd64: gemm uses gonum's.
func gemmFMA(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) bool {
	return false
}
