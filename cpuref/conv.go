package cpuref

import (
	"runtime"
	"sync"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// conv is §5.2 conv, with three exact paths picked per decode. Let
// X = max|x| over this decode's actual input, B_o = Σ|Wt[o]|·X and
// B = max_o B_o. Every term w·x of output channel o, and every partial sum
// of any subset of its terms (conv.term, conv.acc without the bias), lies
// in [−B_o, B_o]; likewise a subset of the terms of input channels K lies
// in ±Σ_{ci∈K} Σ|Wt[o][ci]|·X.
//
//   - lanes: stride sw = 1, X ≤ 2^31 − 1, B ≤ 2^63 − 1 and, for every o and
//     ci, Σ|Wt[o][ci]|·X ≤ 2^31 − 1. The input channels of each o are cut
//     into chunks (§6's chunked 32-bit partial sums) whose bounds add up to
//     at most 2^31 − 1. Within a chunk two output columns share one int64
//     word as two i32 lanes: the input is packed as P = x_a + 2^32·x_b (x_a
//     a column of the left half, x_b the matching column of the right
//     half), and each step adds w·P, so the word holds S_a + 2^32·S_b with
//     S_a, S_b partial sums of two outputs. Both lie in i32, so the word
//     stays within (2^31 − 1)·(2^32 + 1) < 2^63, S_a is the word's low 32
//     bits read as an i32, and S_b is the rest divided by 2^32: no value
//     wraps and every lane is exact. After each chunk the lanes widen into
//     int64 sums, which B bounds. Each term in a lane is w times the
//     element's value, so no offset encoding is used (§3, Storage): this is
//     two-lane SIMD on one integer register.
//   - i64: B ≤ 2^63 − 1; the products and sums in plain int64.
//   - exact: otherwise, each product by mul64 and the sum in 128 bits with
//     overflow checked.
//
// The pre bias joins in rqOf, in 128 bits, so no bound includes it (§6:
// "a pre bias joins the wide sum").
type convKernel struct {
	p      *whg1.Conv
	cg, og int      // input and output channels per group
	taps   int      // cg·kh·kw: the terms of one output
	wci    []int128 // Σ|Wt[o][ci]| over the kernel, at o·cg + ci
	wsum   []int128 // Σ|Wt[o]| for each o: under 2^32 weights of at most 2^63
	w16    *w16     // the weights for cpuref/dot, nil when one passes i16

	// post is what fuse folded in (relu, clamp, leaky), applied to each row
	// once rq has written it; nil for none.
	post *rowPost
}

func newConv(p *whg1.Conv, cin int) *convKernel {
	k := &convKernel{p: p, cg: cin / int(p.Groups), og: int(p.Cout / p.Groups)}
	kk := int(p.KH * p.KW)
	k.taps = k.cg * kk
	k.wci = make([]int128, int(p.Cout)*k.cg)
	k.wsum = make([]int128, p.Cout)
	for i := range k.wci {
		for _, w := range p.W[i*kk : (i+1)*kk] {
			k.wci[i] = addAbs(k.wci[i], w)
		}
		o := i / k.cg
		k.wsum[o], _ = k.wsum[o].add(k.wci[i])
	}
	k.w16 = k.newW16()
	return k
}

// addAbs is s + |w|. It is used for sums of under 2^32 weights (the count a
// u32 parameter length allows), each at most 2^63, so it stays below 2^95.
func addAbs(s int128, w int64) int128 {
	if w < 0 {
		s, _ = s.sub(i128(w))
	} else {
		s, _ = s.add64(w)
	}
	return s
}

// maxAbs is max|x| over data as an unsigned value (2^63 for −2^63).
func maxAbs(data []int64) uint64 {
	m, _ := extent(data)
	return m
}

// extent is maxAbs(data) and whether no element is below 0, in one pass:
// max|v| is max(|min v|, |max v|), and no element is below 0 exactly when
// min v ≥ 0. Four running minima and maxima, each its own chain, keep the
// pass from waiting on one compare a element.
func extent(data []int64) (X uint64, nonneg bool) {
	if len(data) == 0 {
		return 0, true
	}
	v0 := data[0]
	lo, hi := [4]int64{v0, v0, v0, v0}, [4]int64{v0, v0, v0, v0}
	i := 0
	for ; i+4 <= len(data); i += 4 {
		d := data[i : i+4 : i+4]
		lo[0], hi[0] = min(lo[0], d[0]), max(hi[0], d[0])
		lo[1], hi[1] = min(lo[1], d[1]), max(hi[1], d[1])
		lo[2], hi[2] = min(lo[2], d[2]), max(hi[2], d[2])
		lo[3], hi[3] = min(lo[3], d[3]), max(hi[3], d[3])
	}
	for _, v := range data[i:] {
		lo[0], hi[0] = min(lo[0], v), max(hi[0], v)
	}
	l, h := min(lo[0], lo[1], lo[2], lo[3]), max(hi[0], hi[1], hi[2], hi[3])
	return max(absU(l), absU(h)), l >= 0
}

// maxScaled is max over sums of s·x; ok is false when one passes i64 (or
// when x is 2^63 and some s is not 0).
func maxScaled(sums []int128, x uint64) (int64, bool) {
	var b int128
	for _, s := range sums {
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
	pathLanes convPath = iota
	pathI64
	pathExact
)

// choose picks the narrowest path whose bounds hold for an input of width
// W with max|x| = X. The
// lanes path also needs its packed rows (⌈Wo/2⌉ + kw − 1 words, Wo =
// W + 2pw − kw + 1 at stride 1) to be at most 2W long, so that a kernel far
// wider than its input cannot make the packed copy outgrow the input.
func (k *convKernel) choose(X uint64, W int) convPath {
	_, ok := maxScaled(k.wsum, X)
	bc, okc := maxScaled(k.wci, X)
	pw, kw := int(k.p.PW), int(k.p.KW)
	switch {
	case ok && okc && bc <= 1<<31-1 && X <= 1<<31-1 && k.p.SW == 1 && (W+2*pw-kw+2)/2+kw-1 <= 2*W:
		return pathLanes
	case ok:
		return pathI64
	}
	return pathExact
}

// chunks cuts each output channel's input channels into runs whose bounds
// Σ|Wt[o][ci]|·X add up to at most 2^31 − 1: chunks[o] lists where each
// run ends. choose has checked that each channel's own bound fits.
func (k *convKernel) chunks(X int64) [][]int {
	ends := make([][]int, k.p.Cout)
	for o := range ends {
		var sum int64
		for ci := range k.cg {
			b := int64(k.wci[o*k.cg+ci].lo) * X // ≤ 2^31 − 1 (choose)
			if sum+b > 1<<31-1 {
				ends[o] = append(ends[o], ci)
				sum = 0
			}
			sum += b
		}
		ends[o] = append(ends[o], k.cg)
	}
	return ends
}

func (k *convKernel) run(x, out *tensor.T) error { return k.runVal(val{T: x}, val{T: out}) }

// runVal is run on tensors stored at either width (narrow.go).
func (k *convKernel) runVal(x, out val) error {
	X, nonneg := extentOf(x)
	return k.runAt(x, out, X, nonneg)
}

// runAt is runVal on an input whose extent (max|x|, and no element below
// 0) the caller has taken. A narrow output's rows are rq'd in place, the
// post applied, and stored as bytes (storeRow).
func (k *convKernel) runAt(x, out val, X uint64, nonneg bool) error {
	x, out = k.pointwise(x, out)
	path := k.choose(X, x.Shape.W)
	if path == pathExact {
		xw := widened(x)
		if out.i8 != nil {
			return narrowed(out, "conv", func(t *tensor.T) error { return convExact(k, xw, t) })
		}
		return convExact(k, xw, out.T)
	}
	B, _ := maxScaled(k.wsum, X) // ≥ every |sum| (convKernel doc)
	Ho, Wo := out.Shape.H, out.Shape.W
	put := func(o, oy int, sums []int64) error {
		dst := sums
		if out.i8 == nil {
			dst = out.Data[(o*Ho+oy)*Wo:][:Wo]
		}
		if !rqRow(&k.p.RQ, o, uint64(B), sums, dst) {
			return outside("conv")
		}
		if out.i8 != nil {
			if !storeRow(out.i8[(o*Ho+oy)*Wo:][:Wo], 1, dst, k.post) {
				return lostNarrow("conv")
			}
			return nil
		}
		k.post.row(dst)
		return nil
	}
	return k.rows(path, x, X, nonneg, Wo, 0, Ho, put, k.fusedStore(out, uint64(B)))
}

// pointwise views a 1×1, stride 1, unpadded conv's planes as rows of up to
// 256 elements where W is shorter: such a conv reads and writes position
// (y, x) only at (y, x), so any cut of the CHW planes into rows of a
// multiple of W is the same operator with longer rows, which the row
// kernels run with less overhead a row. Other convs are returned as they are.
func (k *convKernel) pointwise(x, out val) (val, val) {
	p, H, W := k.p, x.Shape.H, x.Shape.W
	if p.KH != 1 || p.KW != 1 || p.SH != 1 || p.SW != 1 || p.PH != 0 || p.PW != 0 {
		return x, out
	}
	f := 1 // the most rows of x to join: a divisor of H with f·W ≤ 256
	for d := 2; d <= H && d*W <= 256; d++ {
		if H%d == 0 {
			f = d
		}
	}
	view := func(v val) val {
		return val{T: &tensor.T{Shape: tensor.Shape{C: v.Shape.C, H: H / f, W: W * f}, Data: v.Data}, i8: v.i8, u8: v.u8}
	}
	return view(x), view(out)
}

// rowSink takes the exact sums of output row oy of channel o, one per
// output column; it may overwrite them, and the slice is reused once it
// returns.
type rowSink func(o, oy int, sums []int64) error

// rows computes output rows [y0, y1) (Wo columns each) on path (lanes or
// i64, which choose picked for x, whose max|x| is X, no element below 0
// when nonneg; x at either width, widened for those two paths) and hands each channel's row of sums to put, with the rows
// split across goroutines; on the dot kernels' path, the tiles fs fuses
// store their rows themselves (nil: none does).
func (k *convKernel) rows(path convPath, x val, X uint64, nonneg bool, Wo, y0, y1 int, put rowSink, fs *fusedStore) error {
	// The dot kernels (conv_simd.go): u8 inputs × i8 weights, or operands
	// in i16 with K_c ≥ 2.
	if chunk, ok := k.chunk8(X, nonneg); ok {
		if done, err := simdRows(k, form8, k.w16.quads, x, chunk, Wo, y0, y1, put, fs); done {
			return err
		}
	}
	if chunk, ok := k.chunk16(X); ok {
		if done, err := simdRows(k, form16, &k.w16.pairs, x, chunk, Wo, y0, y1, put, fs); done {
			return err
		}
	}
	work := int(k.p.Cout) * k.taps * Wo
	xw := widened(x) // the other paths read int64
	if path == pathLanes {
		pk := k.pack(xw, Wo)
		ends := k.chunks(int64(X))
		return parallelRows(y0, y1, work, func(a, b int) error {
			return k.laneRows(pk, ends, x.Shape.H, Wo, a, b, put)
		})
	}
	return parallelRows(y0, y1, work, func(a, b int) error {
		return convRows(k, xw.Data, xw.Shape, Wo, a, b, put)
	})
}

// parallelRows splits rows [y0, y1) across up to GOMAXPROCS goroutines
// (§6: outputs may be partitioned across threads), each with at least
// about 2^18 units of work (perRow a row), and returns the first error any
// of them reports.
func parallelRows(y0, y1, perRow int, f func(a, b int) error) error {
	rows := y1 - y0
	n := min(runtime.GOMAXPROCS(0), rows, max(1, rows*perRow>>18))
	if n <= 1 {
		return f(y0, y1)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(y0+rows*i/n, y0+rows*(i+1)/n) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// convRows computes output rows [y0, y1) of every output channel, Wo
// columns each, with int64 accumulators, and hands each row to put; the caller has proved (convKernel doc) that every term and
// partial sum fits i64. For each output row and channel, each kernel
// tap adds w times a contiguous run of an input row into the row of
// accumulators; padding only narrows the run, so no element branches.
func convRows(k *convKernel, x []int64, in tensor.Shape, Wo, y0, y1 int, put rowSink) error {
	p := k.p
	H, W := in.H, in.W
	kh, kw, sh, sw, ph, pw := int(p.KH), int(p.KW), int(p.SH), int(p.SW), int(p.PH), int(p.PW)
	acc := make([]int64, Wo)
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
					taps := p.W[((o*k.cg+ci)*kh+i)*kw:][:kw]
					if sw == 1 {
						rowTaps(acc, row, taps, pw)
					} else {
						rowTapsStrided(acc, row, taps, pw, sw)
					}
				}
			}
			if err := put(o, oy, acc); err != nil {
				return err
			}
		}
	}
	return nil
}

// tapRange is the output columns [lo, hi) of a row of length wo whose tap
// at offset off = j − pw reads inside an input row of width w (stride 1);
// 0 ≤ lo ≤ hi ≤ wo, and lo = hi when the tap reads only padding.
func tapRange(off, w, wo int) (lo, hi int) {
	lo = min(max(0, -off), wo)
	return lo, max(lo, min(wo, w-off))
}

// rowTaps adds Σ_j taps[j]·row[ox + j − pw] into acc[ox] for stride 1. For a
// 3-wide kernel the interior, where all three taps read inside the row, runs
// the three taps in one pass; the edges and other widths go tap by tap.
func rowTaps(acc, row, taps []int64, pw int) {
	W, Wo := len(row), len(acc)
	if len(taps) == 3 {
		lo, hi := max(0, pw), min(Wo, W-2+pw) // interior: 0 ≤ ox − pw, ox − pw + 2 < W
		if lo < hi {
			taps3(acc[lo:hi], row[lo-pw:], taps)
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
		axpy(acc[lo:hi], wj, row, lo+j-pw)
	}
}

// taps3 adds taps[0]·r[t] + taps[1]·r[t + 1] + taps[2]·r[t + 2] into a[t]:
// one load and store of each accumulator for three products.
func taps3(a, r, taps []int64) {
	w0, w1, w2 := taps[0], taps[1], taps[2]
	r0 := r[:len(a)]
	r1 := r[1:][:len(a)]
	r2 := r[2:][:len(a)]
	for t := range a {
		a[t] += w0*r0[t] + w1*r1[t] + w2*r2[t]
	}
}

// taps4 gathers the taps of one accumulator row, each a weight w and a run
// r of words, and adds them four at a time: a[t] += Σ w_k·r_k[t], one load
// and store of each accumulator for four products. Every tap of a chunk
// passes through it, so the sums are the chunk's (§6: terms regrouped).
type taps4 struct {
	w [4]int64
	r [4][]int64
	n int
}

// add queues w·r[t] for a[t], adding the queue into a once it holds four.
func (b *taps4) add(a []int64, w int64, r []int64) {
	b.w[b.n], b.r[b.n] = w, r
	if b.n++; b.n == 4 {
		b.flush(a)
	}
}

// flush adds the queued taps into a; one tap goes alone, and otherwise an
// empty slot is a zero weight, a zero term (§6: a zero term MAY be added).
func (b *taps4) flush(a []int64) {
	switch b.n {
	case 0:
		return
	case 1:
		axpy(a, b.w[0], b.r[0], 0)
		b.n = 0
		return
	}
	for k := b.n; k < 4; k++ {
		b.w[k], b.r[k] = 0, b.r[0]
	}
	b.n = 0
	w0, w1, w2, w3 := b.w[0], b.w[1], b.w[2], b.w[3]
	r0, r1, r2, r3 := b.r[0][:len(a)], b.r[1][:len(a)], b.r[2][:len(a)], b.r[3][:len(a)]
	for t := range a {
		a[t] += w0*r0[t] + w1*r1[t] + w2*r2[t] + w3*r3[t]
	}
}

// axpy adds w·row[from + t] into a[t].
func axpy(a []int64, w int64, row []int64, from int) {
	if len(a) == 0 {
		return
	}
	r := row[from:][:len(a)]
	for t := range a {
		a[t] += w * r[t]
	}
}

// lanes is the input packed for pathLanes: for each channel and row,
// width = half + kw − 1 words, word t holding xpad(t) + 2^32·xpad(t + half),
// where xpad(v) is the row's element v − pw, or 0 in the padding.
// half = ⌈Wo/2⌉: output column t < half is the low lane of accumulator t,
// and column t + half its high lane; both read word t + j for tap j.
type lanes struct {
	data        []int64
	half, width int
}

func (k *convKernel) pack(x *tensor.T, wo int) lanes {
	pw, W := int(k.p.PW), x.Shape.W
	half := (wo + 1) / 2
	l := lanes{half: half, width: half + int(k.p.KW) - 1}
	l.data = make([]int64, x.Shape.C*x.Shape.H*l.width) // zero: the padding
	// Word t holds row[t − pw] for t in [pw, pw + W) and row[t + half − pw]
	// for t in [pw − half, pw − half + W), each clipped to the row.
	lo0, lo1 := min(pw, l.width), min(pw+W, l.width)
	hi0, hi1 := max(0, pw-half), max(0, min(pw-half+W, l.width))
	_ = parallelRows(0, x.Shape.C*x.Shape.H, l.width, func(r0, r1 int) error {
		for r := r0; r < r1; r++ {
			row, dst := x.Data[r*W:][:W], l.data[r*l.width:][:l.width]
			copy(dst[lo0:lo1], row)
			for t := hi0; t < hi1; t++ {
				// |x| ≤ X ≤ 2^31 − 1 (choose), so the word is exact.
				dst[t] += row[t+half-pw] * (1 << 32)
			}
		}
		return nil
	})
	return l
}

// laneRows computes output rows [y0, y1) of every output channel, Wo
// columns each, on the packed input (pathLanes, stride 1): the padding is
// in the packed rows, so every tap runs over the whole accumulator row,
// four taps a pass (taps4). At the end of each chunk
// each word is split into its lanes, which are added into int64 sums:
// S_a = the low 32 bits as an i32, S_b = (word − S_a) / 2^32. Low lanes are
// columns [0, half) and high lanes columns [half, 2·half), so wide holds
// the sums in column order; each row goes to put.
func (k *convKernel) laneRows(l lanes, ends [][]int, H, Wo, y0, y1 int, put rowSink) error {
	p := k.p
	kh, kw, sh, ph := int(p.KH), int(p.KW), int(p.SH), int(p.PH)
	acc := make([]int64, l.half)
	wide := make([]int64, 2*l.half) // the low lanes, then the high lanes
	for oy := y0; oy < y1; oy++ {
		for o := range int(p.Cout) {
			c0 := o / k.og * k.cg
			ci := 0
			for chunk, end := range ends[o] {
				var b taps4
				for ; ci < end; ci++ {
					for i := range kh {
						u := oy*sh + i - ph
						if u < 0 || u >= H {
							continue
						}
						row := l.data[((c0+ci)*H+u)*l.width:][:l.width]
						for j, w := range p.W[((o*k.cg+ci)*kh+i)*kw:][:kw] {
							if w != 0 {
								b.add(acc, w, row[j:])
							}
						}
					}
				}
				b.flush(acc)
				splitLanes(acc, wide[:l.half], wide[l.half:][:l.half], chunk == 0)
				clear(acc) // acc is zero before each chunk
			}
			if err := put(o, oy, wide[:Wo]); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitLanes splits each word a of acc into its lanes, S_a = the low 32
// bits as an i32 and S_b = (a − S_a) / 2^32, and adds them into lo and hi
// (stores them when first). |partial sums| ≤ B ≤ 2^63 − 1 (choose).
func splitLanes(acc, lo, hi []int64, first bool) {
	lo, hi = lo[:len(acc)], hi[:len(acc)]
	if first {
		for t, a := range acc {
			lo[t] = int64(int32(a))
			hi[t] = (a - lo[t]) >> 32
		}
		return
	}
	for t, a := range acc {
		sa := int64(int32(a))
		lo[t] += sa
		hi[t] += (a - sa) >> 32
	}
}

// rowTapsStrided is rowTaps for stride sw > 1: acc[ox] += w·row[ox·sw + j − pw].
func rowTapsStrided(acc, row, taps []int64, pw, sw int) {
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
	k.post.row(out.Data)
	return nil
}
