package cpuref

import (
	"math"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// applySIMD runs apply (§5.9) as the conv it is: out[g·d + i] =
// R_round(Σ_{j<d} A[g·d + i][0][j]·V[g·d + j], s) is a 1×1 conv of V with
// p.Groups groups, weights Wt[o][j] = A[o][0][j] (A's layout) and the same
// rq (no multiplier, no bias, one shift), so conv's dot-kernel path runs it
// with conv's proofs. X is max|V| and nonneg whether no element of V is
// below 0. It returns false, having computed nothing, unless
// that path takes it: the rows then go to dot.Tile16 and dot.Mac16.
func applySIMD(p *whg1.Contraction, a, v *tensor.T, X uint64, nonneg bool, out *tensor.T) (bool, error) {
	C := v.Shape.C
	k := newConv(&whg1.Conv{Cout: uint32(C), KH: 1, KW: 1, SH: 1, SW: 1, Groups: p.Groups, RQ: p.RQ, W: a.Data}, C)
	if _, ok := k.chunk16(X); !ok || k.choose(X, v.Shape.W) == pathExact {
		return false, nil
	}
	if err := k.runAt(val{T: v}, val{T: out}, X, nonneg); err != nil {
		return true, outside("apply")
	}
	return true, nil
}

// gramSIMD runs gram (§5.9) on dot.Mac16 when simd is on, both operands fit
// i16 and Choose16 accepts [−max|A|, max|A|] and [−max|B|, max|B|]; it
// returns false, having computed nothing, otherwise. XA is max|A| and XB
// max|B|. The
// caller has proved every sum fits i64 (rowBound). For output channel ch
// of group g, the
// taps are the position pairs m (positions 2m and 2m + 1 of the plane),
// with weight pair (A[ch][2m], A[ch][2m + 1]), and column j < d reads the
// pair (B[g·d + j][2m], B[g·d + j][2m + 1]): B's group is packed
// transposed, pair m of column j at (m·cols + j)·2, cols = d rounded up to
// dot.Block. An odd plane's last pair has a zero partner (a zero term).
func gramSIMD(p *whg1.Contraction, a, b *tensor.T, XA, XB uint64, out *tensor.T) (bool, error) {
	C, n := a.Shape.C, a.Shape.H*a.Shape.W
	d, groups := C/int(p.Groups), int(p.Groups)
	if !simd || XA > math.MaxInt16 || XB > math.MaxInt16 {
		return false, nil
	}
	chunk, ok := dot.Choose16(dot.Operands{WLo: -int64(XA), WHi: int64(XA), XLo: -int64(XB), XHi: int64(XB)})
	if !ok {
		return false, nil
	}
	ntap, cols := (n+1)/2, (d+dot.Block-1)/dot.Block*dot.Block
	off := make([]int32, ntap)
	for m := range off {
		off[m] = int32(2 * m * cols) // ≤ 2^26·cols: C·H·W ≤ 2^26 and cols < C + 8
	}
	taps, _ := dot.NewTaps(off)
	// One packed B per group; groups go to separate goroutines.
	xs := make([][]int16, groups)
	_ = parallelRows(0, groups, d*n, func(g0, g1 int) error {
		for g := g0; g < g1; g++ {
			x := make([]int16, ntap*cols*2)
			for j := range d {
				for pos, v := range plane(b, g*d+j) {
					x[(pos/2*cols+j)*2+pos%2] = int16(v) // |v| ≤ max|B| ≤ 2^15 − 1
				}
			}
			xs[g] = x
		}
		return nil
	})
	return true, parallelRows(0, C, d*n, func(c0, c1 int) error {
		w := make([]uint32, ntap)
		acc := make([]int64, cols)
		for ch := c0; ch < c1; ch++ {
			pa := plane(a, ch)
			for m := range w {
				lo, hi := pa[2*m], int64(0)
				if 2*m+1 < n {
					hi = pa[2*m+1]
				}
				w[m] = dot.Pair(int16(lo), int16(hi)) // |A| ≤ 2^15 − 1
			}
			clear(acc)
			if !dot.Mac16(acc, xs[ch/d], taps, w, chunk) {
				return errorMac // the packing keeps every read inside
			}
			row := acc[:d]
			if !rqRow(&p.RQ, ch, maxAbs(row), row, out.Data[ch*d:(ch+1)*d]) {
				return outside("gram")
			}
		}
		return nil
	})
}
