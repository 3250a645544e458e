package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The contractions of §5.9, with the output channels split across
// goroutines (§6: outputs partitioned). Each sum is formed exactly, then
// the rq (no multiplier, no bias, one shift) narrows it to i64. Both take
// an int64 path when rowBound proves that every term and partial sum of
// every output fits i64, and otherwise form each product by mul64 and the
// partial sums in 128 bits with overflow checked.

// rowBound says whether int64 holds every partial sum Σ_k a_k·b_k of every
// output: |Σ over any subset| ≤ Σ_k |a_k|·X ≤ (Σ_k |a_k|)·X, where the a_k
// run over rows of length n of a (each channel's plane for gram, each
// channel's d weights for apply) and X = max|b| over the other operand.
// Each row's Σ|a_k| is under 2^26·2^63, so it is formed in two words.
func rowBound(a []int64, n int, X uint64) bool {
	sums := make([]int128, len(a)/n)
	for r := range sums {
		var hi, lo, c uint64
		for _, v := range a[r*n : (r+1)*n] {
			lo, c = bits.Add64(lo, absU(v), 0)
			hi += c
		}
		sums[r] = int128{hi: int64(hi), lo: lo} // hi < 2^26
	}
	_, ok := maxScaled(sums, X)
	return ok
}

// gram: out[g·d + i][0][j] = R_round(Σ_{y,x} A[g·d + i][y][x]·B[g·d + j][y][x], s),
// d = C / groups; the output is [C, 1, d].
func gram(p *whg1.Contraction, a, b, out *tensor.T) error {
	C, n := a.Shape.C, a.Shape.H*a.Shape.W
	d := C / int(p.Groups)
	XB := maxAbs(b.Data)
	XA := XB // gram(x, x), as IGDN-like graphs form it: one pass for both
	if len(a.Data) == 0 || len(b.Data) == 0 || &a.Data[0] != &b.Data[0] {
		XA = maxAbs(a.Data)
	}
	fast := rowBound(a.Data, n, XB)
	if fast {
		if done, err := gramSIMD(p, a, b, XA, XB, out); done { // contract_simd.go
			return err
		}
	}
	return parallelRows(0, C, d*n, func(c0, c1 int) error {
		row := make([]int64, d)
		for ch := c0; ch < c1; ch++ {
			g := ch / d
			pa, dst := plane(a, ch), out.Data[ch*d:(ch+1)*d]
			for j := range d {
				pb := plane(b, g*d+j)[:len(pa)]
				if fast {
					var s int64 // |partial sums| ≤ Σ|A[ch]|·max|B| ≤ 2^63 − 1 (rowBound)
					for k, v := range pa {
						s += v * pb[k]
					}
					row[j] = s
					continue
				}
				var s int128
				var ok bool
				for k, v := range pa {
					if s, ok = s.add(mul64(v, pb[k])); !ok {
						return outside("gram")
					}
				}
				y, ok := rqOf(&p.RQ, ch, s)
				if !ok {
					return outside("gram")
				}
				dst[j] = y
			}
			if fast && !rqRow(&p.RQ, ch, maxAbs(row), row, dst) {
				return outside("gram")
			}
		}
		return nil
	})
}

// apply: out[g·d + i][y][x] = R_round(Σ_{j<d} A[g·d + i][0][j]·V[g·d + j][y][x], s),
// with A [C, 1, d] and V [C, H, W]. The int64 path adds four weighted
// planes a pass into a row of accumulators (taps4).
func apply(p *whg1.Contraction, a, v, out *tensor.T) error {
	C, n := v.Shape.C, v.Shape.H*v.Shape.W
	d := C / int(p.Groups)
	XV, nonneg := extent(v.Data)
	fast := rowBound(a.Data, d, XV)
	if fast {
		if done, err := applySIMD(p, a, v, XV, nonneg, out); done { // contract_simd.go
			return err
		}
	}
	return parallelRows(0, C, d*n, func(c0, c1 int) error {
		var acc []int64
		var wide []int128
		if fast {
			acc = make([]int64, n)
		} else {
			wide = make([]int128, n)
		}
		for ch := c0; ch < c1; ch++ {
			g := ch / d
			dst := plane(out, ch)
			if fast {
				clear(acc)
				var b taps4 // |partial sums| ≤ Σ|A[ch]|·max|V| ≤ 2^63 − 1 (rowBound)
				for j, w := range a.Data[ch*d : (ch+1)*d] {
					if w != 0 {
						b.add(acc, w, plane(v, g*d+j))
					}
				}
				b.flush(acc)
				if !rqRow(&p.RQ, ch, maxAbs(acc), acc, dst) {
					return outside("apply")
				}
				continue
			}
			clear(wide)
			for j, w := range a.Data[ch*d : (ch+1)*d] {
				var ok bool
				for k, x := range plane(v, g*d+j) {
					if wide[k], ok = wide[k].add(mul64(w, x)); !ok {
						return outside("apply")
					}
				}
			}
			for k, s := range wide {
				y, ok := rqOf(&p.RQ, ch, s)
				if !ok {
					return outside("apply")
				}
				dst[k] = y
			}
		}
		return nil
	})
}
