package importer

import "golang.org/x/sys/cpu"

// The FMA GEMM: A packed in panels of gemmMR rows, B in panels of nr
// columns, and a register-tiled kernel (gemm_amd64.s) that keeps a
// gemmMR×nr block of C in twelve vector registers across the whole k
// loop, where gonum's axpy loads and stores C at every step: nr is 16 on
// AVX-512 (two ZMM registers a row), 8 on AVX2 (two YMM). Each product is
// a float64 fused multiply-add: still float64 arithmetic, rounded once a
// term instead of twice, summed over k in order.
const (
	gemmMR    = 6  // rows of a C block
	gemmNRMax = 16 // the widest kernel's columns
	gemmNC    = 64 // columns one task packs and computes
)

// fmaKernel sets the gemmMR×nr block at c (rows ldc apart) to the sum
// over k of a's column times b's row: a is k groups of gemmMR values (a
// panel's rows at one k), b k groups of nr.
type fmaKernel struct {
	nr  int
	run func(k int, a, b, c *float64, ldc int)
}

//go:noescape
func gemmKernel8(k int, a, b, c *float64, ldc int)

//go:noescape
func gemmKernel16(k int, a, b, c *float64, ldc int)

var (
	kernelAVX2   = fmaKernel{8, gemmKernel8}
	kernelAVX512 = fmaKernel{16, gemmKernel16}
)

// haveFMA is whether this CPU has AVX2 and FMA, and kernel the widest
// kernel it runs; both read once.
var (
	haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	kernel  = pickKernel()
)

func pickKernel() fmaKernel {
	if cpu.X86.HasAVX512F {
		return kernelAVX512
	}
	return kernelAVX2
}

// gemmFMA is gemm on the FMA kernel; it reports false, doing nothing,
// where the CPU has none (or k is 0, which gonum's handles).
func gemmFMA(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) bool {
	if !haveFMA || k == 0 || m == 0 || n == 0 {
		return false
	}
	// A's panels: panel t holds rows t·MR … t·MR+MR−1, k-major, the rows
	// past m zero.
	mt := (m + gemmMR - 1) / gemmMR
	ap := make([]float64, mt*k*gemmMR)
	parallel(mt, func(t int) {
		p := ap[t*k*gemmMR:][:k*gemmMR]
		for r := range min(gemmMR, m-t*gemmMR) {
			for l, v := range a[(t*gemmMR+r)*lda:][:k] {
				p[l*gemmMR+r] = v
			}
		}
	})
	// Each task packs gemmNC columns of B (its panels k-major, the
	// columns past n zero) and computes those columns of C, panel of A by
	// panel: the A panel stays in L1 across the task's B panels.
	parallel((n+gemmNC-1)/gemmNC, func(t int) {
		j0 := t * gemmNC
		w := min(gemmNC, n-j0)
		nr := kernel.nr
		tiles := (w + nr - 1) / nr
		bp := make([]float64, tiles*k*nr)
		for l := range k {
			for j, v := range b[l*ldb+j0:][:w] {
				bp[(j/nr*k+l)*nr+j%nr] = v
			}
		}
		// A block of C wholly inside it is written in place; one at its
		// edge goes through blk.
		var blk [gemmMR * gemmNRMax]float64
		for it := range mt {
			rows := min(gemmMR, m-it*gemmMR)
			for jt := range tiles {
				a, b := &ap[it*k*gemmMR], &bp[jt*k*nr]
				at := it*gemmMR*ldc + j0 + jt*nr
				cols := min(nr, w-jt*nr)
				if rows == gemmMR && cols == nr {
					_ = c[at+(gemmMR-1)*ldc+nr-1] // the block's last element is in c
					kernel.run(k, a, b, &c[at], ldc)
					continue
				}
				kernel.run(k, a, b, &blk[0], nr)
				for r := range rows {
					copy(c[at+r*ldc:][:cols], blk[r*nr:][:cols])
				}
			}
		}
	})
	return true
}
