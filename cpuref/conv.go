package cpuref

import (
	"runtime"
	"sync"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// conv is §5.2 conv, with three exact paths picked per decode:
//
//   - i32: every weight and max|x| fit i32, and B = max_o Σ|Wt[o]|·max|x|
//     ≤ 2^31 − 1, where max|x| is over this decode's actual input. Every term w·x and
//     every partial sum of any subset of o's terms (conv.term, conv.acc
//     without the bias) then lies in [−B, B], so int32 arithmetic is exact:
//     the whole sum is one §6 chunk (K_c ≥ cg·kh·kw terms).
//   - i64: B ≤ 2^63 − 1; the same argument with int64.
//   - exact: otherwise, each product by mul64 and the sum in 128 bits with
//     overflow checked.
//
// The pre bias joins in rqOf, in 128 bits, so B does not include it (§6:
// "a pre bias joins the wide sum"). Values enter every product as
// themselves: no offset encoding is used anywhere (§3, Storage).
type convKernel struct {
	p        *whg1.Conv
	cin, cg  int
	og, taps int
	wsum     []int128 // Σ|Wt[o]| for each o: at most 2^32 weights of 2^63
	w32      []int32  // the weights when every one fits i32, else nil
}

func newConv(p *whg1.Conv, cin int) *convKernel {
	k := &convKernel{p: p, cin: cin, cg: cin / int(p.Groups), og: int(p.Cout / p.Groups)}
	k.taps = k.cg * int(p.KH*p.KW)
	k.wsum = make([]int128, p.Cout)
	fits32 := true
	for o := range k.wsum {
		var s int128
		for _, w := range p.W[o*k.taps : (o+1)*k.taps] {
			if w < 0 {
				s, _ = s.sub(i128(w)) // |w| ≤ 2^63: no overflow below 2^127
			} else {
				s, _ = s.add64(w)
			}
			fits32 = fits32 && w == int64(int32(w))
		}
		k.wsum[o] = s
	}
	if fits32 {
		k.w32 = make([]int32, len(p.W))
		for i, w := range p.W {
			k.w32[i] = int32(w)
		}
	}
	return k
}

// maxAbs is max|x| over data as an unsigned value (2^63 for −2^63).
func maxAbs(data []int64) uint64 {
	var m uint64
	for _, v := range data {
		a := uint64(v)
		if v < 0 {
			a = -a
		}
		m = max(m, a)
	}
	return m
}

// bound is B = max_o Σ|Wt[o]|·X; ok is false when B passes i64 (or when X
// is 2^63 and some weight is not 0).
func (k *convKernel) bound(x uint64) (int64, bool) {
	var b int128
	for _, s := range k.wsum {
		if x > 1<<63-1 {
			if !s.isZero() {
				return 0, false
			}
			continue
		}
		p, ok := s.mul(int64(x))
		if !ok || !p.fitsI64() {
			return 0, false
		}
		if p.cmp(b) > 0 {
			b = p
		}
	}
	return int64(b.lo), true
}

// convPath is one of the three exact paths of convKernel.
type convPath int

const (
	pathI32 convPath = iota
	pathI64
	pathExact
)

// choose picks the narrowest path whose bound holds for this input.
func (k *convKernel) choose(x []int64) convPath {
	X := maxAbs(x)
	b, ok := k.bound(X)
	switch {
	case ok && b <= 1<<31-1 && X <= 1<<31-1 && k.w32 != nil:
		return pathI32
	case ok:
		return pathI64
	}
	return pathExact
}

func (k *convKernel) run(x, out *tensor.T) error {
	switch k.choose(x.Data) {
	case pathI32:
		x32 := make([]int32, len(x.Data))
		for i, v := range x.Data {
			x32[i] = int32(v) // |v| ≤ max|x| ≤ 2^31 − 1 (choose)
		}
		return parallelRows(out.Shape.H, convWork(x.Shape), func(y0, y1 int) error {
			return convRows(k, x32, k.w32, x.Shape, out, y0, y1)
		})
	case pathI64:
		return parallelRows(out.Shape.H, convWork(x.Shape), func(y0, y1 int) error {
			return convRows(k, x.Data, k.p.W, x.Shape, out, y0, y1)
		})
	}
	return convExact(k, x, out)
}

// convWork estimates a row's cost, to keep small convolutions on one
// goroutine.
func convWork(s tensor.Shape) int { return s.C * s.W }

// parallelRows splits output rows [0, rows) across up to GOMAXPROCS
// goroutines (§6: outputs may be partitioned across threads) and returns the
// first error any of them reports.
func parallelRows(rows, perRow int, f func(y0, y1 int) error) error {
	n := min(runtime.GOMAXPROCS(0), rows, max(1, rows*perRow/4096))
	if n <= 1 {
		return f(0, rows)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(rows*i/n, rows*(i+1)/n) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// convRows computes output rows [y0, y1) of every output channel with
// accumulators of type T; the caller has proved (convKernel doc) that every
// term and partial sum fits T. For each output row and channel, each kernel
// tap adds w times a contiguous run of an input row into the row of
// accumulators; padding only narrows the run, so no element branches.
func convRows[T int32 | int64](k *convKernel, x, w []T, in tensor.Shape, out *tensor.T, y0, y1 int) error {
	p := k.p
	H, W := in.H, in.W
	kh, kw, sh, sw, ph, pw := int(p.KH), int(p.KW), int(p.SH), int(p.SW), int(p.PH), int(p.PW)
	Ho, Wo := out.Shape.H, out.Shape.W
	acc := make([]T, Wo)
	for oy := y0; oy < y1; oy++ {
		for o := range int(p.Cout) {
			clear(acc)
			c0 := o / k.og * k.cg
			for ci := range k.cg {
				for i := range kh {
					u := oy*sh + i - ph
					if u < 0 || u >= H {
						continue
					}
					row := x[((c0+ci)*H+u)*W:][:W]
					taps := w[((o*k.cg+ci)*kh+i)*kw:][:kw]
					if sw == 1 {
						rowTaps(acc, row, taps, pw)
					} else {
						rowTapsStrided(acc, row, taps, pw, sw)
					}
				}
			}
			dst := out.Data[(o*Ho+oy)*Wo:][:Wo]
			for ox, a := range acc {
				v, ok := rqOf(&p.RQ, o, i128(int64(a)))
				if !ok {
					return outside("conv")
				}
				dst[ox] = v
			}
		}
	}
	return nil
}

// tapRange is the output columns [lo, hi) of a row of length wo whose tap
// at offset off = j − pw reads inside an input row of width w (stride 1).
func tapRange(off, w, wo int) (lo, hi int) { return max(0, -off), min(wo, w-off) }

// rowTaps adds Σ_j taps[j]·row[ox + j − pw] into acc[ox] for stride 1. For a
// 3-wide kernel the interior, where all three taps read inside the row, runs
// the three taps in one pass; the edges and other widths go tap by tap.
func rowTaps[T int32 | int64](acc, row, taps []T, pw int) {
	W, Wo := len(row), len(acc)
	if len(taps) == 3 {
		lo, hi := max(0, pw), min(Wo, W-2+pw) // interior: 0 ≤ ox − pw, ox − pw + 2 < W
		if lo < hi {
			w0, w1, w2 := taps[0], taps[1], taps[2]
			a := acc[lo:hi]
			r0 := row[lo-pw:][:len(a)]
			r1 := row[lo-pw+1:][:len(a)]
			r2 := row[lo-pw+2:][:len(a)]
			for t := range a {
				a[t] += w0*r0[t] + w1*r1[t] + w2*r2[t]
			}
			for j, wj := range taps {
				tl, th := tapRange(j-pw, W, Wo)
				axpy(acc[tl:min(th, lo)], wj, row, tl+j-pw)
				axpy(acc[max(tl, hi):th], wj, row, max(tl, hi)+j-pw)
			}
			return
		}
	}
	for j, wj := range taps {
		if wj == 0 {
			continue
		}
		lo, hi := tapRange(j-pw, W, Wo)
		axpy(acc[lo:max(lo, hi)], wj, row, lo+j-pw)
	}
}

// axpy adds w·row[from + t] into a[t].
func axpy[T int32 | int64](a []T, w T, row []T, from int) {
	if len(a) == 0 {
		return
	}
	r := row[from:][:len(a)]
	for t := range a {
		a[t] += w * r[t]
	}
}

// rowTapsStrided is rowTaps for stride sw > 1: acc[ox] += w·row[ox·sw + j − pw].
func rowTapsStrided[T int32 | int64](acc, row, taps []T, pw, sw int) {
	W := len(row)
	for j, wj := range taps {
		if wj == 0 {
			continue
		}
		off := j - pw
		lo := 0
		if off < 0 {
			lo = (-off + sw - 1) / sw
		}
		for ox := lo; ox < len(acc); ox++ {
			v := ox*sw + off
			if v >= W {
				break
			}
			acc[ox] += wj * row[v]
		}
	}
}

// convExact is §5.2 term by term: each product exact by mul64, the sum in
// 128 bits with overflow checked.
func convExact(k *convKernel, x, out *tensor.T) error {
	p := k.p
	H, W := x.Shape.H, x.Shape.W
	kh, kw := int(p.KH), int(p.KW)
	Ho, Wo := out.Shape.H, out.Shape.W
	for o := range int(p.Cout) {
		c0 := o / k.og * k.cg
		for oy := range Ho {
			for ox := range Wo {
				var s int128
				var ok bool
				for ci := range k.cg {
					for i := range kh {
						u := oy*int(p.SH) + i - int(p.PH)
						if u < 0 || u >= H {
							continue
						}
						for j := range kw {
							v := ox*int(p.SW) + j - int(p.PW)
							if v < 0 || v >= W {
								continue
							}
							w := p.W[((o*k.cg+ci)*kh+i)*kw+j]
							if s, ok = s.add(mul64(w, x.Data[((c0+ci)*H+u)*W+v])); !ok {
								return outside("conv")
							}
						}
					}
				}
				y, ok := rqOf(&p.RQ, o, s)
				if !ok {
					return outside("conv")
				}
				out.Data[(o*Ho+oy)*Wo+ox] = y
			}
		}
	}
	return nil
}
