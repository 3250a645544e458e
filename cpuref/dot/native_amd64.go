//go:build !purego

package dot

import "golang.org/x/sys/cpu"

// native lists the amd64 kernels this machine runs, narrowest first; it
// reads golang.org/x/sys/cpu once, when the package initialises.
func native() []Impl {
	var l []Impl
	if cpu.X86.HasAVX2 {
		l = append(l, Impl{Name: "avx2", mac16: asmMac(mac16AVX2), peak: peakAVX2, tile16: asmTile(tile16AVX2)})
	}
	if hasAVX512() {
		var rq func([]int64, int, []int64, int64, int64, int64, int64, uint, int64, int64, int64) bool
		if cpu.X86.HasAVX512DQ { // vpmullq
			rq = rqAVX512
		}
		bw := Impl{Name: "avx512bw", mac16: asmMac(mac16AVX512BW), peak: peakAVX512BW, rq: rq,
			tile16:  asmTile(tile16AVX512BW),
			narrow8: narrow8AVX512Go, widen8: widen8AVX512Go, extent8: extent8AVX512Go, pair8: pair8AVX512Go, quad8: quad8AVX512Go, spread8: spread8AVX512Go}
		bw.tile16S32 = asmTileS32(tileS32x16AVX512BW)
		if rq != nil {
			bw.tile16RQ = asmTileRQ(tileRQ16AVX512BW, tileRQ32x16AVX512BW, composeRQ(bw.tile16, rq, bw.narrow8))
		}
		l = append(l, bw)
		if cpu.X86.HasAVX512VNNI {
			vnni := Impl{Name: "avx512vnni", mac16: asmMac(mac16AVX512VNNI), peak: peakAVX512VNNI,
				mac8: asmMac(mac8AVX512VNNI), peak8: peak8AVX512VNNI, rq: rq,
				tile16: asmTile(tile16AVX512VNNI), tile8: asmTile(tile8AVX512VNNI),
				narrow8: narrow8AVX512Go, widen8: widen8AVX512Go, extent8: extent8AVX512Go, pair8: pair8AVX512Go, quad8: quad8AVX512Go, spread8: spread8AVX512Go}
			vnni.tile16S32, vnni.tile8S32 = asmTileS32(tileS32x16AVX512VNNI), asmTileS32(tileS32x8AVX512VNNI)
			if rq != nil {
				vnni.tile16RQ = asmTileRQ(tileRQ16AVX512VNNI, tileRQ32x16AVX512VNNI, composeRQ(vnni.tile16, rq, vnni.narrow8))
				vnni.tile8RQ = asmTileRQ(tileRQ8AVX512VNNI, tileRQ32x8AVX512VNNI, composeRQ(vnni.tile8, rq, vnni.narrow8))
			}
			l = append(l, vnni)
		}
	}
	return l
}

// hasAVX512 reports the AVX-512 subsets both zmm kernels use: F, BW (word
// multiply-adds and shifts on zmm) and VL (their ymm forms, for the
// 8-column tail). golang.org/x/sys/cpu reports a subset only where the OS
// saves the zmm state.
func hasAVX512() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
}

// asmMac passes Mac16's or Mac8's checked slices to an assembly kernel.
func asmMac[E int16 | uint8](k func(acc *int64, n int, x *E, off *int32, w *uint32, taps, chunk int)) func([]int64, []E, []int32, []uint32, int) {
	return func(acc []int64, x []E, off []int32, w []uint32, chunk int) {
		k(&acc[0], len(acc), &x[0], &off[0], &w[0], len(w), chunk)
	}
}

// asmTile passes Tile16's or Tile8's checked slices to a generated
// kernel (kern_amd64.s).
func asmTile[E int16 | uint8](k func(acc *int64, ld, n int, x *E, off *int32, w *uint32, taps, chunk int)) func([]int64, int, int, []E, []int32, []uint32, int) {
	return func(acc []int64, ld, n int, x []E, off []int32, w []uint32, chunk int) {
		k(&acc[0], ld, n, &x[0], &off[0], &w[0], len(off), chunk)
	}
}

// asmTileRQ is Tile16RQ's or Tile8RQ's loop on a fused kernel
// (kern_amd64.s) where every tap is in one chunk: k32, whose epilogue is
// in 32-bit lanes, where q's is exact there (TileRQ's in32), else k; and
// composed otherwise.
func asmTileRQ[E int16 | uint8](k, k32 func(dst *int8, ldb, n int, x *E, off *int32, w *uint32, taps int, q *int64) bool, composed tileRQ[E]) tileRQ[E] {
	return func(dst []int8, ldb int, acc []int64, n int, x []E, off []int32, w []uint32, chunk int, q *TileRQ) bool {
		if len(off) == 0 || len(off) > chunk {
			return composed(dst, ldb, acc, n, x, off, w, chunk, q)
		}
		kq := k
		if q.in32 {
			kq = k32
		}
		return kq(&dst[0], ldb, n, &x[0], &off[0], &w[0], len(off), &q.c[0])
	}
}

// asmTileS32 passes Tile16S32's or Tile8S32's checked slices to a
// generated kernel (kern_amd64.s).
func asmTileS32[E int16 | uint8](k func(dst *int32, ldb, n int, x *E, off *int32, w *uint32, taps int, q *int64)) tileS32[E] {
	return func(dst []int32, ldb, n int, x []E, off []int32, w []uint32, q *[2]int64) {
		k(&dst[0], ldb, n, &x[0], &off[0], &w[0], len(off), &q[0])
	}
}

// mac16AVX2 is Mac16 with AVX2 (mac16_amd64.s): n columns, a multiple of
// Block; taps entries in off and w; chunk ≥ 1.
//
//go:noescape
func mac16AVX2(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)

// The AVX-512 kernels (avx512_amd64.s), with the contract of mac16AVX2:
// avx512bw with vpmaddwd + vpaddd on zmm, avx512vnni with vpdpwssd, and
// Mac8's with vpdpbusd.

//go:noescape
func mac16AVX512BW(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)

//go:noescape
func mac16AVX512VNNI(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)

//go:noescape
func mac8AVX512VNNI(acc *int64, n int, x *uint8, off *int32, w *uint32, taps, chunk int)

// rqAVX512 is RQRowStrided's loop with AVX-512 (rq_amd64.s) at strides
// 1 and 2, on the sums up to a multiple of 8, and rqGeneric on the rest
// and at other strides.
func rqAVX512(dst []int64, stride int, src []int64, pre, mult, add, post int64, s uint, even, lo, hi int64) bool {
	return byStride(len(src), stride,
		func(n int) bool { return rqRowAVX512(&dst[0], &src[0], n, pre, mult, add, post, s, even, lo, hi) },
		func(n int) bool { return rqRow2AVX512(&dst[0], &src[0], n, pre, mult, add, post, s, even, lo, hi) },
		func(n int) bool {
			return rqGeneric(dst[stride*n:], stride, src[n:], pre, mult, add, post, s, even, lo, hi)
		})
}

// byStride runs a strided row kernel on m values: its zmm loop for stride
// 1 (one) or 2 (two) on the first n = m rounded down to 8, then rest from
// value n on (from 0 at other strides or when n is 0), and reports whether
// both parts fitted.
func byStride(m, stride int, one, two, rest func(n int) bool) bool {
	n := m &^ 7
	ok := true
	switch {
	case n == 0 || stride > 2:
		n = 0
	case stride == 1:
		ok = one(n)
	default:
		ok = two(n)
	}
	if n == m {
		return ok
	}
	return rest(n) && ok
}

// rqRowAVX512 is rqGeneric's loop on zmm for n sums, a multiple of 8, n ≥ 8
// (rq_amd64.s).
//
//go:noescape
func rqRowAVX512(dst, src *int64, n int, pre, mult, add, post int64, s uint, even, lo, hi int64) bool

// rqRow2AVX512 is rqRowAVX512 writing sum i's y to dst[2i]; dst holds at
// least 2n − 1 elements (rq_amd64.s).
//
//go:noescape
func rqRow2AVX512(dst, src *int64, n int, pre, mult, add, post int64, s uint, even, lo, hi int64) bool

// narrow8AVX512Go is Narrow8's loop with AVX-512 (narrow_amd64.s) at
// strides 1 and 2, on the values up to a multiple of 8, and
// narrow8Generic on the rest and at other strides.
func narrow8AVX512Go(dst []int8, stride int, src []int64, lo, hi int64) bool {
	return byStride(len(src), stride,
		func(n int) bool { return narrow8AVX512(&dst[0], &src[0], n, lo, hi) },
		func(n int) bool { return narrow8x2AVX512(&dst[0], &src[0], n, lo, hi) },
		func(n int) bool { return narrow8Generic(dst[stride*n:], stride, src[n:], lo, hi) })
}

// widen8AVX512Go is Widen8's loop with AVX-512 on the elements up to a
// multiple of 8, and widen8Generic on the rest.
func widen8AVX512Go(dst []int64, src []int8) {
	n := len(src) &^ 7
	if n > 0 {
		widen8AVX512(&dst[0], &src[0], n)
	}
	widen8Generic(dst[n:], src[n:])
}

// narrow8AVX512 is narrow8Generic's loop on zmm for n values, a multiple
// of 8, n ≥ 8, at stride 1 (narrow_amd64.s).
//
//go:noescape
func narrow8AVX512(dst *int8, src *int64, n int, lo, hi int64) bool

// narrow8x2AVX512 is narrow8AVX512 writing value i to dst[2i]; dst holds
// at least 2n − 1 elements.
//
//go:noescape
func narrow8x2AVX512(dst *int8, src *int64, n int, lo, hi int64) bool

// widen8AVX512 is widen8Generic's loop on zmm for n elements, a multiple
// of 8, n ≥ 8.
//
//go:noescape
func widen8AVX512(dst *int64, src *int8, n int)

// extent8AVX512Go is Extent8 with AVX-512 on the elements up to a multiple
// of 64, their 64 lanes' least and greatest then folded with the rest's.
func extent8AVX512Go(src []int8) (lo, hi int8) {
	n := len(src) &^ 63
	if n == 0 {
		return extent8Generic(src)
	}
	var l, h [64]int8
	extent8AVX512(&src[0], n, &l, &h)
	lo, _ = extent8Generic(l[:])
	_, hi = extent8Generic(h[:])
	if n < len(src) {
		rlo, rhi := extent8Generic(src[n:])
		lo, hi = min(lo, rlo), max(hi, rhi)
	}
	return lo, hi
}

// extent8AVX512 sets each lane k of lo and hi to the least and greatest
// of src[k], src[k + 64], … over n elements, a multiple of 64, n ≥ 64
// (narrow_amd64.s).
//
//go:noescape
func extent8AVX512(src *int8, n int, lo, hi *[64]int8)

// quad8AVX512Go is Quad8's loop with AVX-512 on the columns up to a
// multiple of 16 (kern_amd64.s), and quad8Generic on the rest.
func quad8AVX512Go(dst []uint8, a, b, c, d []uint8) {
	n := len(a) &^ 15
	if n > 0 {
		quad8AVX512(&dst[0], &a[0], &b[0], &c[0], &d[0], n)
	}
	quad8Generic(dst[4*n:], a[n:], b[n:], c[n:], d[n:])
}

// spread8AVX512Go is Spread8 with AVX-512 for stride 2 on the bytes up to
// a multiple of 32, and spread8Generic on the rest and other strides. Each
// store is 64 bytes wide with the odd ones masked off: the last byte it
// writes, dst[2n − 2], lies inside dst (len(dst) ≥ 2n − 1); the masked-off
// byte past it is neither written nor read (AVX-512 masks suppress it).
func spread8AVX512Go(dst []int8, stride int, src []int8) {
	n := 0
	if stride == 2 {
		n = min(len(src), (len(dst)+1)/2) &^ 31
	}
	if n > 0 {
		spread2AVX512(&dst[0], &src[0], n)
	}
	if n < len(src) {
		spread8Generic(dst[stride*n:], stride, src[n:])
	}
}

// pair8AVX512Go is Pair8 with AVX-512 on the columns up to a multiple of
// 16, and pair8Generic on the rest.
func pair8AVX512Go(dst []int16, a, b []int8) {
	n := len(a) &^ 15
	if n > 0 {
		pair8AVX512(&dst[0], &a[0], &b[0], n)
	}
	pair8Generic(dst[2*n:], a[n:], b[n:])
}

// pair8AVX512 is pair8Generic's loop on zmm for n columns, a multiple of
// 16, n ≥ 16, b not nil (narrow_amd64.s).
//
//go:noescape
func pair8AVX512(dst *int16, a, b *int8, n int)
