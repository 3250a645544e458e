//go:build !purego

package dot

import "golang.org/x/sys/cpu"

// native lists the amd64 kernels this machine runs, narrowest first; it
// reads golang.org/x/sys/cpu once, when the package initialises.
func native() []Impl {
	var l []Impl
	if cpu.X86.HasAVX2 {
		l = append(l, Impl{Name: "avx2", mac16: mac16AVX2Go, mac16x2: mac16x2AVX2Go, peak: peakAVX2})
	}
	return l
}

// mac16AVX2Go passes Mac16's checked slices to the assembly.
func mac16AVX2Go(acc []int64, x []int16, off []int32, w []uint32, chunk int) {
	mac16AVX2(&acc[0], len(acc), &x[0], &off[0], &w[0], len(w), chunk)
}

// mac16x2AVX2Go passes Mac16x2's checked slices to the assembly.
func mac16x2AVX2Go(acc0, acc1 []int64, x []int16, off []int32, w []uint32, chunk int) {
	mac16x2AVX2(&acc0[0], &acc1[0], len(acc0), &x[0], &off[0], &w[0], len(off), chunk)
}

// mac16x2AVX2 is Mac16x2 with AVX2 (mac16_amd64.s).
//
//go:noescape
func mac16x2AVX2(acc0, acc1 *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)

// mac16AVX2 is Mac16 with AVX2 (mac16_amd64.s): n columns, a multiple of
// Block; taps entries in off and w; chunk ≥ 1.
//
//go:noescape
func mac16AVX2(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)

// peakAVX2 runs n rounds of PeakRound vpmaddwd products on registers
// (mac16_amd64.s).
//
//go:noescape
func peakAVX2(n int)
