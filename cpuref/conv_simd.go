package cpuref

import (
	"errors"
	"math"
	"runtime"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/tensor"
)

// simd says whether conv's lanes and i64 paths hand their rows to the
// cpuref/dot kernels when the operands allow it (convKernel.chunk16). It
// is on where dot has an instruction-set kernel: its pure-Go kernel is no
// faster than the lanes path. Tests turn it on and off to run both.
var simd = dot.Accelerated()

// w16 is a conv's weights as dot.Mac16 reads them, built at load when every
// weight fits i16: the input channels are paired globally, channel 2p with
// 2p + 1, and each output channel o of group g has the taps
//
//	(p, i, j) for the pairs p that meet g's channels, i < kh, j < kw
//
// in that order, with weight pair (Wt[o][2p − c0][i][j], Wt[o][2p + 1 − c0][i][j]),
// c0 = g·cg, and 0 for a channel outside the group (a zero term, §6). A
// group meets ⌈cg/2⌉ pairs whatever its parity, so every o has ntap taps
// at pairs[o·ntap:].
//
// dual holds, for each q with channels 2q and 2q + 1 in one group, their
// rows interleaved for dot.Mac16x2 at dual[2q·ntap:], tap k of 2q at 2k
// and of 2q + 1 at 2k + 1 (nil entries of a pair across groups unused).
type w16 struct {
	lo, hi int64 // the least and greatest weight: the weights' interval
	pairs  []uint32
	dual   []uint32
	ntap   int
	cert   *certified16 // the certificate's choice, nil without one
}

// certified16 is the kernel choice of a node's certificate: the chunk
// Choose16 gives over the weights and the certified input interval, whose
// largest magnitude is xmax.
type certified16 struct {
	xmax  uint64
	chunk int
}

// dualOK says whether channels o and o + 1 share a group and so run as one
// dot.Mac16x2 at dual[o·ntap:] (o even).
func (k *convKernel) dualOK(o int) bool {
	return o%2 == 0 && o+1 < int(k.p.Cout) && o/k.og == (o+1)/k.og
}

// newW16 packs p's weights, or returns nil when one does not fit i16.
func (k *convKernel) newW16() *w16 {
	p := k.p
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, w := range p.W {
		lo, hi = min(lo, w), max(hi, w)
	}
	if lo < math.MinInt16 || hi > math.MaxInt16 {
		return nil
	}
	kk := int(p.KH * p.KW)
	np := (k.cg + 1) / 2
	s := &w16{lo: lo, hi: hi, ntap: np * kk, pairs: make([]uint32, int(p.Cout)*np*kk)}
	weight := func(o, c, tap int) int16 { // Wt[o][c − c0][tap], 0 outside the group
		c0 := o / k.og * k.cg
		if c < c0 || c >= c0+k.cg {
			return 0
		}
		return int16(p.W[(o*k.cg+c-c0)*kk+tap])
	}
	for o := range int(p.Cout) {
		p0 := o / k.og * k.cg / 2
		dst := s.pairs[o*s.ntap:][:s.ntap]
		for q := range np {
			for tap := range kk {
				c := 2 * (p0 + q)
				dst[q*kk+tap] = dot.Pair(weight(o, c, tap), weight(o, c+1, tap))
			}
		}
	}
	s.dual = make([]uint32, len(s.pairs))
	for o := 0; o+1 < int(p.Cout); o += 2 {
		if k.dualOK(o) {
			d, a, b := s.dual[o*s.ntap:][:2*s.ntap], s.pairs[o*s.ntap:], s.pairs[(o+1)*s.ntap:]
			for t := range s.ntap {
				d[2*t], d[2*t+1] = a[t], b[t]
			}
		}
	}
	return s
}

// certify16 records the kernel choice the certificate makes (§6, §8.5):
// with in the certified interval of the input, the weights' interval
// (mac.w_bits) and in (mac.a_bits) both within i16 and K_c ≥ 2 over them,
// dot's kernels run every decode whose input lies in in, at Choose16's
// chunk for those intervals. A nil in (no certificate) records nothing.
func (k *convKernel) certify16(in *certify.Interval) {
	if k.w16 == nil || in == nil {
		return
	}
	lo, hi, ok := in.Int64()
	if !ok {
		return
	}
	if chunk, ok := dot.Choose16(dot.Operands{WLo: k.w16.lo, WHi: k.w16.hi, XLo: lo, XHi: hi}); ok {
		k.w16.cert = &certified16{xmax: uint64(max(-lo, hi)), chunk: chunk}
	}
}

// chunk16 is dot.Mac16's chunk for this conv on an input with max|x| = X:
// ok when simd is on and the weights fit i16, and then either the
// certificate chose the kernels and X lies within its interval (certify16),
// or Choose16 accepts the weights' interval and [−X, X], which hold every
// operand of this decode (the same §6 rule on the measured interval, which
// for a certified graph lies inside the certified one; graphs loaded
// without a certificate take this way).
func (k *convKernel) chunk16(X uint64) (int, bool) {
	if !simd || k.w16 == nil || X > math.MaxInt16 {
		return 0, false
	}
	if c := k.w16.cert; c != nil && X <= c.xmax {
		return c.chunk, true
	}
	return dot.Choose16(dot.Operands{WLo: k.w16.lo, WHi: k.w16.hi, XLo: -int64(X), XHi: int64(X)})
}

// packed16 is a conv's input as dot.Mac16 reads it. Channels are paired
// (2p, 2p + 1; an odd count's last pair has a zero partner), the padding
// of §5.2 is written as zeros, and each padded row's columns are split by
// stride phase so that every tap reads a contiguous run: padded column v =
// m·sw + φ is pair m of phase φ. The pair of padded position (u, v) is at
//
//	((p·Hp + u)·sw + φ)·wq·2 + 2m,   Hp = H + 2ph,
//
// and output column ox of tap j reads phase j mod sw at m = ox + ⌊j/sw⌋.
// wq = ⌊(kw − 1)/sw⌋ + n, n = Wo rounded up to dot.Block, so the columns
// past Wo read zeros or real elements inside the buffer, never past it;
// their sums are dropped.
type packed16 struct {
	data   []int16
	rowLen int // int16s a padded row takes: sw·wq·2
	n      int // columns computed: Wo rounded up to dot.Block
	taps   []*dot.Taps
}

// packPool keeps packed inputs between decodes, so that a decode reuses
// memory the last one touched rather than faulting in fresh pages.
var packPool sync.Pool // of *[]int16

// getPacked is a zeroed []int16 of n elements from packPool, or a new one.
func getPacked(n int) []int16 {
	if b, _ := packPool.Get().(*[]int16); b != nil && cap(*b) >= n {
		d := (*b)[:n]
		clear(d)
		return d
	}
	return make([]int16, n)
}

// pack16 packs x for output rows of Wo columns, with the tap offsets of
// each group, or returns false when the packed copy would pass
// 4·len(x) + 2^20 elements (a padding, stride or kernel far larger than
// the input), which the i64 path then runs.
func (k *convKernel) pack16(x *tensor.T, Wo int) (*packed16, bool) {
	p := k.p
	C, H, W := x.Shape.C, x.Shape.H, x.Shape.W
	kh, kw, sw, ph, pw := int(p.KH), int(p.KW), int(p.SW), int(p.PH), int(p.PW)
	n := (Wo + dot.Block - 1) / dot.Block * dot.Block
	wq := (kw-1)/sw + n
	Hp, np := H+2*ph, (C+1)/2
	// Every factor is at least 1; sw and kw are u32, so each product is
	// checked against the cap before it is formed, and none overflows.
	limit := 4*len(x.Data) + 1<<20 // ≤ 2^28 + 2^20
	if sw > limit || wq > limit/(2*sw) || Hp > limit/(2*sw*wq) || np > limit/(2*sw*wq*Hp) {
		return nil, false
	}
	rowLen := sw * wq * 2
	total := np * Hp * rowLen // ≤ limit < 2^31: int32 offsets hold it
	pk := &packed16{data: getPacked(total), rowLen: rowLen, n: n}
	// Pairs go to separate goroutines: channels 2p and 2p + 1 interleave.
	_ = parallelRows(0, np, 2*H*W, func(p0, p1 int) error {
		for c := 2 * p0; c < min(C, 2*p1); c++ {
			for r := range H {
				src := x.Data[(c*H+r)*W:][:W]
				dst := pk.data[((c/2*Hp+r+ph)*sw)*wq*2+c%2:][:rowLen-c%2]
				// Column s is padded column s + pw = m·sw + φ; |v| ≤ X ≤
				// 2^15 − 1 (chunk16), so each value fits.
				if sw == 1 {
					for s, v := range src[:min(W, wq-pw)] {
						dst[2*(s+pw)] = int16(v)
					}
					continue
				}
				m, phi := pw/sw, pw%sw
				for _, v := range src {
					if m >= wq {
						break
					}
					dst[(phi*wq+m)*2] = int16(v)
					if phi++; phi == sw {
						phi, m = 0, m+1
					}
				}
			}
		}
		return nil
	})
	groups := int(p.Groups)
	pk.taps = make([]*dot.Taps, groups)
	for g := range groups {
		p0 := g * k.cg / 2
		off := make([]int32, 0, k.w16.ntap)
		for q := range (k.cg + 1) / 2 {
			for i := range kh {
				for j := range kw {
					off = append(off, int32((((p0+q)*Hp+i)*sw+j%sw)*wq*2+j/sw*2))
				}
			}
		}
		pk.taps[g], _ = dot.NewTaps(off) // even and non-negative by construction
	}
	return pk, true
}

// errorMac16 is a bug: dot refused arguments that a packing laid out to
// fit its contract.
var errorMac16 = errors.New("cpuref: dot.Mac16 refused a packed input")

// simdCols is the columns of a row simdRows computes through every output
// channel at a time: 32 columns of a 3×3 conv over 64 channels read about
// 13 KB of packed input, which stays in a 32 KB L1 cache.
const simdCols = 32

// simdRows computes output rows [y0, y1) of every output channel on
// dot.Mac16, chunk taps to a 32-bit lane, and hands each row of exact sums
// to put. It returns false, having computed nothing, when the input does
// not pack (pack16). The work is split by output channel across
// goroutines (§6: outputs partitioned across threads), or by row when
// there are fewer channels than goroutines; each goroutine writes only its
// own channels' (or rows') outputs and its own accumulators.
func (k *convKernel) simdRows(x *tensor.T, chunk, Wo, y0, y1 int, put rowSink) (bool, error) {
	pk, ok := k.pack16(x, Wo)
	if !ok {
		return false, nil
	}
	defer packPool.Put(&pk.data)
	cout, sh := int(k.p.Cout), int(k.p.SH)
	cols := simdCols
	if k.og == 1 {
		cols = pk.n // no two channels read the same input: whole rows a call
	}
	work := k.w16.ntap * 2 * pk.n
	// Each row goes in blocks of simdCols columns, each block through every
	// output channel before the next, so the block's input stays in cache.
	do := func(o0, o1, r0, r1 int) error {
		acc := make([]int64, (o1-o0)*pk.n)
		for oy := r0; oy < r1; oy++ {
			clear(acc)
			xs := pk.data[oy*sh*pk.rowLen:]
			for c0 := 0; c0 < pk.n; c0 += cols {
				cols := min(cols, pk.n-c0)
				for o := o0; o < o1; o++ {
					a, nt := acc[(o-o0)*pk.n+c0:][:cols], k.w16.ntap
					var ok bool
					if o+1 < o1 && k.dualOK(o) { // two channels, one read of x
						a1 := acc[(o+1-o0)*pk.n+c0:][:cols]
						ok = dot.Mac16x2(a, a1, xs[2*c0:], pk.taps[o/k.og], k.w16.dual[o*nt:][:2*nt], chunk)
						o++
					} else {
						ok = dot.Mac16(a, xs[2*c0:], pk.taps[o/k.og], k.w16.pairs[o*nt:][:nt], chunk)
					}
					if !ok {
						return errorMac16 // pack16's layout keeps every read inside
					}
				}
			}
			for o := o0; o < o1; o++ {
				if err := put(o, oy, acc[(o-o0)*pk.n:][:Wo]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if cout >= runtime.GOMAXPROCS(0) {
		return true, parallelRows(0, cout, (y1-y0)*work, func(a, b int) error { return do(a, b, y0, y1) })
	}
	return true, parallelRows(y0, y1, cout*work, func(a, b int) error { return do(0, cout, a, b) })
}
