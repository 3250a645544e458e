package cpuref

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/tensor"
)

// simd says whether conv's lanes and i64 paths hand their rows to the
// cpuref/dot kernels when the operands allow it (convKernel.chunk16). It
// is on where dot has an instruction-set kernel: its pure-Go kernel is no
// faster than the lanes path. simd8 is the same for the u8 × i8 kernels
// (chunk8), on where Mac8 has one (vpdpbusd). Tests turn them on and off
// to run every path.
var (
	simd  = dot.Accelerated()
	simd8 = dot.Accelerated8()
	// fuseTiles says whether a conv's tiles store their narrow output rows
	// themselves (fusedStore); tests and benchmarks turn it off to run and
	// time the unfused epilogue.
	fuseTiles = true
	// rowSplit says whether simdPacked parts a conv's work among
	// goroutines by output row where every goroutine gets several rows;
	// benchmarks turn it off to time the split by output channel beside it.
	rowSplit = true
)

// laneForm is one of dot's operand forms: per channels' values side by
// side for each column, int16 pairs for Mac16 or u8 quads for Mac8.
type laneForm[E int16 | uint8] struct {
	per     int
	mac     func(acc []int64, x []E, taps *dot.Taps, w []uint32, chunk int) bool
	tile    func(acc []int64, ld, n int, x []E, taps *dot.Taps, w []uint32, chunk int) bool
	tileRQ  func(dst []int8, ldb int, acc []int64, n int, x []E, taps *dot.Taps, w []uint32, chunk int, q *dot.TileRQ) bool
	tileS32 func(dst []int32, ldb, n int, x []E, taps *dot.Taps, w []uint32, chunk int, lo, hi int64) bool
	newTaps func(off []int32) (*dot.Taps, bool)
	pool    *sync.Pool // of *[]E: packed inputs kept between decodes
}

var (
	packPool16, packPool8 sync.Pool
	form16                = &laneForm[int16]{per: 2, mac: dot.Mac16, tile: dot.Tile16, tileRQ: dot.Tile16RQ, tileS32: dot.Tile16S32, newTaps: dot.NewTaps, pool: &packPool16}
	form8                 = &laneForm[uint8]{per: 4, mac: dot.Mac8, tile: dot.Tile8, tileRQ: dot.Tile8RQ, tileS32: dot.Tile8S32, newTaps: dot.NewTaps8, pool: &packPool8}
)

// laneWeights is a conv's weights in one operand form of per channels: the
// input channels are grouped globally, channels per·q to per·q + per − 1,
// and each output channel o of group g has the taps
//
//	(q, i, j) for the groups q that meet g's channels, i < kh, j < kw
//
// in that order, whose weights are Wt[o][per·q + r − c0][i][j] for r < per,
// c0 = g·cg, and 0 for a channel outside the group (a zero term, §6).
// Every o meets the same number of channel groups, ntap/(kh·kw) (for
// pairs whatever cg's parity: an odd cg meets ⌈cg/2⌉ pairs from either
// end; quads are used only where they align, newW16), ntap of them.
//
// tile holds, for each o that starts a tile (tileOK), the rows of o to
// o + dot.TileRows − 1 interleaved for Tile16 or Tile8 at tile[o·ntap:],
// tap k of o + r at TileRows·k + r (entries of channels in no tile unused,
// and zero weights for the rows past the last channel of a last tile that
// has fewer than TileRows): the weights packed once, at load, in the
// order the tile kernels read them; nil where no tile is. one[o] holds
// the taps of an o in no tile, for Mac16 or Mac8, and is nil for the
// others: each weight is packed once.
type laneWeights struct {
	one  [][]uint32
	tile []uint32
	ntap int
}

// w16 is a conv's weights as cpuref/dot reads them, built at load when
// every weight fits i16: int16 pairs always, u8 × i8 quads too when every
// weight fits i8 and each group's channels start on a quad.
type w16 struct {
	lo, hi int64 // the least and greatest weight: the weights' interval
	pairs  laneWeights
	quads  *laneWeights
	cert   *certified16 // the certificate's choice for pairs, nil without one
	cert8  *certified16 // and for quads: xmax is the interval's upper end
}

// certified16 is the kernel choice of a node's certificate: the chunk
// Choose16 (or Choose8) gives over the weights and the certified input
// interval, whose largest magnitude is xmax.
type certified16 struct {
	xmax  uint64
	chunk int
}

// tileOK says whether channels o to o + dot.TileRows − 1 share a group,
// and so run as one Tile16 or Tile8 call at tile[o·ntap:] (o a multiple
// of TileRows); the last tile may have from 2 to TileRows − 1 channels
// (Cout = 3, as a synthesis network's last layer: the tile's other rows
// are zero weights into scratch sums). full says it has all TileRows.
func (k *convKernel) tileOK(o int) (ok, full bool) {
	cout := int(k.p.Cout)
	last := min(o+dot.TileRows, cout) - 1
	return o%dot.TileRows == 0 && last > o && o/k.og == last/k.og, o+dot.TileRows <= cout
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
	s := &w16{lo: lo, hi: hi}
	s.pairs = k.laneWeights(2, func(w []int64) uint32 { return dot.Pair(int16(w[0]), int16(w[1])) })
	// Quads need every group's first channel c0 = g·cg on a quad (one group,
	// or cg a multiple of 4), or a group could meet one quad more than
	// ⌈cg/4⌉.
	if lo >= math.MinInt8 && hi <= math.MaxInt8 && (p.Groups == 1 || k.cg%4 == 0) {
		q := k.laneWeights(4, func(w []int64) uint32 { return dot.Quad(int8(w[0]), int8(w[1]), int8(w[2]), int8(w[3])) })
		s.quads = &q
	}
	return s
}

// laneWeights packs p's weights per channels a tap (laneWeights's doc),
// each tap's per weights made one word by word.
func (k *convKernel) laneWeights(per int, word func(w []int64) uint32) laneWeights {
	p := k.p
	kk, cout := int(p.KH*p.KW), int(p.Cout)
	nq := (k.cg + per - 1) / per
	lw := laneWeights{ntap: nq * kk, one: make([][]uint32, cout)}
	ws := make([]int64, per)
	row := make([]uint32, lw.ntap)
	for o := range cout {
		c0 := o / k.og * k.cg
		for q := range nq {
			for tap := range kk {
				for r := range ws {
					c := (c0/per+q)*per + r
					ws[r] = 0
					if c >= c0 && c < c0+k.cg {
						ws[r] = p.W[(o*k.cg+c-c0)*kk+tap]
					}
				}
				row[q*kk+tap] = word(ws)
			}
		}
		o0 := o - o%dot.TileRows // the tile o would be in
		if ok, _ := k.tileOK(o0); !ok {
			lw.one[o] = slices.Clone(row)
			continue
		}
		if lw.tile == nil {
			lw.tile = make([]uint32, (cout+dot.TileRows-1)/dot.TileRows*dot.TileRows*lw.ntap)
		}
		d := lw.tile[o0*lw.ntap:][:dot.TileRows*lw.ntap]
		for t, w := range row {
			d[dot.TileRows*t+o-o0] = w
		}
	}
	return lw
}

// certify16 records the kernel choices the certificate makes (§6, §8.5):
// with in the certified interval of the input, the weights' interval
// (mac.w_bits) and in (mac.a_bits) both within i16 and K_c ≥ 2 over them,
// Mac16 runs every decode whose input lies in in, at Choose16's chunk for
// those intervals; with the weights within i8 and in within [0, 255] (a
// non-negative interval, §3 Storage: no offset makes a signed input
// unsigned), Mac8 does, at Choose8's. A nil in (no certificate) records
// nothing.
func (k *convKernel) certify16(in *certify.Interval) {
	if k.w16 == nil || in == nil {
		return
	}
	lo, hi, ok := in.Int64()
	if !ok {
		return
	}
	o := dot.Operands{WLo: k.w16.lo, WHi: k.w16.hi, XLo: lo, XHi: hi}
	if chunk, ok := dot.Choose16(o); ok {
		k.w16.cert = &certified16{xmax: uint64(max(-lo, hi)), chunk: chunk}
	}
	if chunk, ok := dot.Choose8(o); ok && k.w16.quads != nil {
		k.w16.cert8 = &certified16{xmax: uint64(hi), chunk: chunk}
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

// chunk8 is dot.Mac8's chunk for an input in [0, X] (nonneg: no element
// below 0), chosen as chunk16 chooses: ok when simd8 is on, the weights
// have quads, and the certificate's choice covers X or Choose8 accepts
// the weights' interval and [0, X].
func (k *convKernel) chunk8(X uint64, nonneg bool) (int, bool) {
	if !simd8 || !nonneg || k.w16 == nil || k.w16.quads == nil || X > math.MaxUint8 {
		return 0, false
	}
	if c := k.w16.cert8; c != nil && X <= c.xmax {
		return c.chunk, true
	}
	return dot.Choose8(dot.Operands{WLo: k.w16.lo, WHi: k.w16.hi, XLo: 0, XHi: int64(X)})
}

// packed is a conv's input as one of dot's forms reads it. Channels are
// grouped per to a column (per·q to per·q + per − 1; a last group short of
// per has zero partners), the padding of §5.2 is written as zeros, and
// each padded row's columns are split by stride phase so that every tap
// reads a contiguous run: padded column v = m·sw + φ is column m of phase
// φ. The values of padded position (u, v) start at
//
//	((u·nq + q)·sw + φ)·wq·per + per·m,   nq = ⌈C/per⌉ groups,
//
// padded row by padded row, so the taps of a column block read a few
// contiguous rows of every group (a handful of pages, in order) rather
// than one row of each group's plane, a page apart; output column ox of tap j reads phase j mod sw at m = ox + ⌊j/sw⌋.
// wq = ⌊(kw − 1)/sw⌋ + n, n = Wo rounded up to dot.Block, so the columns
// past Wo read zeros or real elements inside the buffer, never past it;
// their sums are dropped.
type packed[E int16 | uint8] struct {
	data   []E
	rowLen int // elements a padded row takes: nq·sw·wq·per
	n      int // columns computed: Wo rounded up to dot.Block
	nq, wq int // channel groups, and columns a stride phase takes
	sw     int // the layout's column stride
	taps   []*dot.Taps
}

// getPacked is a []E of n elements from pool, zeroed when zero is set
// (else holding whatever its last user left), or a new one, which is
// zeroed (fresh is then true).
func getPacked[E int16 | uint8](pool *sync.Pool, n int, zero bool) (d []E, fresh bool) {
	if b, _ := pool.Get().(*[]E); b != nil && cap(*b) >= n {
		d := (*b)[:n]
		if zero {
			clear(d)
		}
		return d, false
	}
	return make([]E, n), true
}

// clearPadding zeroes the elements of group q of pk that packInput's
// stride-1 loops do not write when every group holds per channels (C a
// multiple of per): in the ph padded rows above and the rows below the
// input's H, all of them, and in each of the H rows, the first pw columns
// and those from pw + m on (m columns written).
func clearPadding[E int16 | uint8](pk *packed[E], q, per, ph, H, pw, m int) {
	seg := pk.wq * per // one group's elements in a row (stride 1: one phase)
	for r := range len(pk.data) / pk.rowLen {
		g := pk.data[r*pk.rowLen+q*seg:][:seg]
		if r < ph || r >= ph+H {
			clear(g)
			continue
		}
		clear(g[:pw*per])
		clear(g[(pw+m)*per:])
	}
}

// padGeom is the layout of a packing (packed's doc): a kernel kw taps wide
// at column stride sw over the input padded by ph rows and pw columns each
// side. A conv packs with its own (geomOf); conv_transpose packs once
// with its widest phase's and hands every phase the same copy (convt.go).
type padGeom struct{ kw, sw, ph, pw int }

// geomOf is p's own layout.
func geomOf(k *convKernel) padGeom {
	p := k.p
	return padGeom{kw: int(p.KW), sw: int(p.SW), ph: int(p.PH), pw: int(p.PW)}
}

// pack packs x in form f for k's output rows of Wo columns, with the tap
// offsets of each group (packInput, then groupTaps with no shift).
func pack[E int16 | uint8](k *convKernel, f *laneForm[E], x val, Wo int) (*packed[E], bool) {
	pk, ok := packVal(f, x, geomOf(k), Wo)
	if ok {
		pk.taps = groupTaps(k, f, pk, 0, 0)
	}
	return pk, ok
}

// packVal is packInput on x's elements at the width x is stored.
func packVal[E int16 | uint8](f *laneForm[E], x val, g padGeom, Wo int) (*packed[E], bool) {
	if x.i8 != nil {
		return packInput(f, x.i8, x.Shape, g, Wo)
	}
	if x.u8 != nil {
		return packInput(f, x.u8, x.Shape, g, Wo)
	}
	return packInput(f, x.Data, x.Shape, g, Wo)
}

// packInput packs the elements xs of a tensor of shape sh in form f in
// layout g for output rows of Wo columns, without tap offsets, or returns
// false when the packed copy would pass 4·len(xs) + 2^20 elements (a
// padding, stride or kernel far larger than the input), which the i64 path
// then runs. The caller has checked every value fits E (chunk16, chunk8).
func packInput[E int16 | uint8, S int64 | int8 | uint8](f *laneForm[E], xs []S, sh tensor.Shape, g padGeom, Wo int) (*packed[E], bool) {
	C, H, W := sh.C, sh.H, sh.W
	kw, sw, ph, pw := g.kw, g.sw, g.ph, g.pw
	per := f.per
	n := (Wo + dot.Block - 1) / dot.Block * dot.Block
	wq := (kw-1)/sw + n
	Hp, nq := H+2*ph, (C+per-1)/per
	// Every factor is at least 1; sw and kw are u32, so each product is
	// checked against the cap before it is formed, and none overflows.
	limit := 4*len(xs) + 1<<20 // ≤ 2^28 + 2^20
	if sw > limit || wq > limit/(per*sw) || Hp > limit/(per*sw*wq) || nq > limit/(per*sw*wq*Hp) {
		return nil, false
	}
	rowLen := nq * sw * wq * per
	total := Hp * rowLen // ≤ limit < 2^31: int32 offsets hold it
	// At stride 1 with every group full, the loops below write every
	// element but the padding, which alone is zeroed, each group's by the
	// goroutine that packs it (a new buffer is zero already); else all is.
	whole := sw != 1 || C%per != 0
	data, fresh := getPacked[E](f.pool, total, whole)
	pk := &packed[E]{data: data, rowLen: rowLen, n: n, nq: nq, wq: wq, sw: sw}
	pad := !whole && !fresh
	// i8 values into int16 pairs at stride 1 go a channel pair's rows at a
	// time through dot.Pair8.
	pairs, _ := any(pk.data).([]int16)
	bytes, _ := any(xs).([]int8)
	byPair := pairs != nil && bytes != nil && sw == 1
	// u8 values into quads at stride 1 go four channels' rows at a time
	// through dot.Quad8.
	quads, _ := any(pk.data).([]uint8)
	ubytes, _ := any(xs).([]uint8)
	byQuad := quads != nil && ubytes != nil && sw == 1
	// Channel groups go to separate goroutines: their channels interleave.
	_ = parallelRows(0, nq, per*H*W, func(q0, q1 int) error {
		for q := q0; pad && q < q1; q++ {
			clearPadding(pk, q, per, ph, H, pw, min(W, wq-pw))
		}
		for c := per * q0; c < min(C, per*q1); c++ {
			if byPair { // c is even: per is 2
				m := min(W, wq-pw)
				for r := range H {
					var b []int8
					if c+1 < C {
						b = bytes[((c+1)*H+r)*W:][:m]
					}
					dot.Pair8(pairs[(((r+ph)*nq+c/2)*wq+pw)*2:], bytes[(c*H+r)*W:][:m], b)
				}
				c++
				continue
			}
			if byQuad { // c is a multiple of 4: per is 4
				m := min(W, wq-pw)
				for r := range H {
					var rows [4][]uint8
					for j := range rows {
						if c+j < C {
							rows[j] = ubytes[((c+j)*H+r)*W:][:m]
						}
					}
					dot.Quad8(quads[(((r+ph)*nq+c/4)*wq+pw)*4:], &rows)
				}
				c += 3
				continue
			}
			for r := range H {
				src := xs[(c*H+r)*W:][:W]
				dst := pk.data[(((r+ph)*nq+c/per)*sw)*wq*per+c%per:][:sw*wq*per-c%per]
				// Column s is padded column s + pw = m·sw + φ.
				if sw == 1 {
					for s, v := range src[:min(W, wq-pw)] {
						dst[per*(s+pw)] = E(v)
					}
					continue
				}
				m, phi := pw/sw, pw%sw
				for _, v := range src {
					if m >= wq {
						break
					}
					dst[(phi*wq+m)*per] = E(v)
					if phi++; phi == sw {
						phi, m = 0, m+1
					}
				}
			}
		}
		return nil
	})
	return pk, true
}

// groupTaps is the tap offsets of each of k's groups in pk: tap (q, i, j)
// of k's kernel reads padded row oy·sh + i + dh and padded column
// ox·sw + j + dw of output (oy, ox). dh and dw are 0 for a conv packed in
// its own layout; a conv_transpose phase with fewer taps than the layout's
// kernel shifts by the padding it has less (convt.go). The caller keeps
// every read inside pk (packed's doc).
func groupTaps[E int16 | uint8](k *convKernel, f *laneForm[E], pk *packed[E], dh, dw int) []*dot.Taps {
	kh, kw, per := int(k.p.KH), int(k.p.KW), f.per
	taps := make([]*dot.Taps, k.p.Groups)
	for g := range taps {
		q0 := g * k.cg / per
		off := make([]int32, 0, (k.cg+per-1)/per*kh*kw)
		for q := range (k.cg + per - 1) / per {
			for i := range kh {
				for j := range kw {
					jj := j + dw
					off = append(off, int32((((i+dh)*pk.nq+q0+q)*pk.sw+jj%pk.sw)*pk.wq*per+jj/pk.sw*per))
				}
			}
		}
		taps[g], _ = f.newTaps(off) // multiples of per, non-negative, by construction
	}
	return taps
}

// errorMac is a bug: dot refused arguments that a packing laid out to fit
// its contract.
var errorMac = errors.New("cpuref: a cpuref/dot kernel refused a packed input")

// simdCols is the columns of a row simdRows computes through every output
// channel at a time: 64 columns (one zmm tile of Tile16) of a 3×3 conv over
// 64 channels read about 25 KB of packed input, which stays in a 48 KB L1
// cache.
const simdCols = 64

// simdRows computes output rows [y0, y1) of every output channel in form f
// with weights lw, chunk taps to a 32-bit lane, and hands each row of
// exact sums to put. It returns false, having computed nothing, when the
// input does not pack (pack). The work is split by row across goroutines
// (§6: outputs partitioned across threads), or by output channel when
// there are fewer than 8 rows and at least 8 channels a goroutine
// (simdPacked); each goroutine writes only its own rows' (or channels')
// outputs and its own accumulators.
func simdRows[E int16 | uint8](k *convKernel, f *laneForm[E], lw *laneWeights, x val, chunk, Wo, y0, y1 int, put rowSink, fs *fusedStore) (bool, error) {
	pk, ok := pack(k, f, x, Wo)
	if !ok {
		return false, nil
	}
	defer f.pool.Put(&pk.data)
	if fs != nil && fs.s32 != nil {
		for _, t := range pk.taps {
			if t.Len() > chunk { // Tile16S32 holds sums of one chunk only
				fs = nil
				break
			}
		}
	}
	return true, simdPacked(f, pk, []simdJob{{k: k, lw: lw, taps: pk.taps, chunk: chunk, wo: Wo, put: put, fused: fs}}, y0, y1)
}

// simdJob is one convolution's rows on a packed input that several may
// share (the phases of one conv_transpose row residue, §9.3): its weights
// lw in the packing's form, its tap offsets (one per group of k), its
// chunk, wo columns a row (computed over wo rounded up to dot.Block, which
// the packing holds, packed's doc), and where the sums go: to put, or,
// for the tiles fused names, straight into the output's bytes.
type simdJob struct {
	k     *convKernel
	lw    *laneWeights
	taps  []*dot.Taps
	chunk int
	wo    int
	put   rowSink
	fused *fusedStore
}

// fusedStore is where the tiles whose epilogue the tile kernel fuses
// (dot.Tile16RQ: rq in 64 bits, the folded clamp, the narrowing to i8, §3
// Storage) put their rows' bytes: channel o's row y straight at
// dst[o·ldb + y·wo] when put8 is nil (a conv's output), else through
// put8, which stores a row's bytes where they go (a conv_transpose
// phase's every sw-th output column).
type fusedStore struct {
	dst     []int8
	ldb, wo int
	put8    func(o, y int, b []int8) error
	q       []*dot.TileRQ // of the tile at o/TileRows; nil: not fused
	// s32, when not nil, is where the full tiles store their exact sums
	// clamped to [lo, hi] as int32 instead (dot.Tile16S32: Conv8's int32
	// output of a conv whose rq is the identity), at s32[o·ldb + y·wo].
	s32    []int32
	lo, hi int64
}

// fusedS32 is where run's full tiles store their sums as int32 into dst
// (rows of sh, clamped to post's one clamp), or nil when none can: the
// rows are not a multiple of dot.Block, fuseTiles is off, k has no dot
// form, the clamp misses i32, or some channel's rq is not the identity
// (§5.1 with Mult 1, shift 0 and no bias: y = the sum).
func (k *convKernel) fusedS32(dst []int32, sh tensor.Shape) *fusedStore {
	lo, hi, ok := k.post.clamp()
	if !ok || !fuseTiles || k.w16 == nil || sh.W%dot.Block != 0 || lo > math.MaxInt32 || hi < math.MinInt32 {
		return nil
	}
	r := &k.p.RQ
	for o := range int(k.p.Cout) {
		if r.MultOf(o) != 1 || r.ShiftOf(o) != 0 || r.PreOf(o) != 0 || r.PostOf(o) != 0 {
			return nil
		}
	}
	return &fusedStore{s32: dst, ldb: sh.H * sh.W, wo: sh.W, lo: lo, hi: hi}
}

// on says whether the tile at o stores its rows itself.
func (fs *fusedStore) on(k *convKernel, o int) bool {
	if fs == nil {
		return false
	}
	if fs.s32 != nil {
		ok, full := k.tileOK(o - o%dot.TileRows)
		return ok && full
	}
	return fs.q[o/dot.TileRows] != nil
}

// fusedStore is where run's tiles store their rows themselves into out, or
// nil when none can: out is at i8 width and its rows a multiple of
// dot.Block long (a tile stores whole blocks).
func (k *convKernel) fusedStore(out val, B uint64) *fusedStore {
	if out.i8 == nil {
		return nil
	}
	return k.fusedBytes(out.i8, out.Shape, B, false)
}

// fusedBytes is fusedStore into the bytes dst of an output of shape sh,
// which hold i8 values, or the bits of u8 values when unsigned (Conv8's
// u8 output).
func (k *convKernel) fusedBytes(dst []int8, sh tensor.Shape, B uint64, unsigned bool) *fusedStore {
	Ho, Wo := sh.H, sh.W
	if Wo%dot.Block != 0 {
		return nil
	}
	q := k.fusedTiles(B, k.post, unsigned)
	if q == nil {
		return nil
	}
	return &fusedStore{dst: dst, ldb: Ho * Wo, wo: Wo, q: q}
}

// fusedTiles is the fused epilogue of each of k's tiles over sums up to B
// with post folded in, nil where a tile is not fused, or nil when none can
// be: fuseTiles is off, the weights have no dot form, or post is more than
// one clamp. A tile is fused when every channel's rq fits 64 bits over
// sums up to B (rqFits64, as rqRow decides); its epilogue is then the rq
// and narrowing rqRow and storeRow would apply (narrow.go), in one pass,
// to i8 bytes, or to u8 ones when unsigned.
func (k *convKernel) fusedTiles(B uint64, post *rowPost, unsigned bool) []*dot.TileRQ {
	if !fuseTiles || k.w16 == nil {
		return nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if post != nil {
		var ok bool
		if lo, hi, ok = post.clamp(); !ok {
			return nil
		}
	}
	r, cout := &k.p.RQ, int(k.p.Cout)
	q := make([]*dot.TileRQ, (cout+dot.TileRows-1)/dot.TileRows)
	for o := 0; o < cout; o += dot.TileRows {
		if ok, full := k.tileOK(o); !ok || !full {
			continue // a short last tile stores through put
		}
		var qs [dot.TileRows]dot.RQ64
		ok := true
		for i := range qs {
			c := o + i
			ok = ok && rqFits64(r, c, B)
			// §5.1 rq, §2's rounding as rqRow forms them; the clamp is the
			// one storeRow's Narrow8 applies.
			qs[i] = dot.RQ64{Pre: r.PreOf(c), Mult: r.MultOf(c), Post: r.PostOf(c), Shift: r.ShiftOf(c), Round: uint8(r.Round), Clamp: true, Lo: lo, Hi: hi}
		}
		if ok {
			q[o/dot.TileRows] = dot.NewTileRQ(&qs, B, unsigned)
		}
	}
	return q
}

// simdPacked computes rows [y0, y1) of every output channel of each job,
// whose convolutions share their output channels and row stride, and
// hands each job's row of exact sums to its put: for each row and channel
// every job's in turn, so that jobs writing the same output row (the
// phases of one row residue) write it while it is in cache.
func simdPacked[E int16 | uint8](f *laneForm[E], pk *packed[E], jobs []simdJob, y0, y1 int) error {
	cout, sh := int(jobs[0].k.p.Cout), int(jobs[0].k.p.SH)
	ns := make([]int, len(jobs))
	work, nmax := 0, 0
	for j, jb := range jobs {
		ns[j] = (jb.wo + dot.Block - 1) / dot.Block * dot.Block
		work += jb.lw.ntap * f.per * ns[j]
		nmax = max(nmax, ns[j])
	}
	step := simdCols
	if jobs[0].k.og == 1 {
		step = nmax // jobRow's calls take whole rows
	}
	// Each row goes in blocks of simdCols columns, each block through every
	// output channel before the next, so the block's input stays in cache.
	do := func(o0, o1, r0, r1 int) error {
		accs, bytes := make([][]int64, len(jobs)), make([][]int8, len(jobs))
		for j, jb := range jobs {
			accs[j] = make([]int64, (o1-o0+dot.TileRows-1)*ns[j]) // past o1: a short last tile's scratch rows
			if jb.fused != nil && jb.fused.put8 != nil {
				bytes[j] = make([]int8, (o1-o0)*ns[j])
			}
		}
		for oy := r0; oy < r1; oy++ {
			xs := pk.data[oy*sh*pk.rowLen:]
			for j, jb := range jobs {
				for o := o0; o < o1+dot.TileRows-1; o++ { // past o1: a short last tile's scratch rows
					if o >= o1 || !jb.fused.on(jb.k, o) { // a fused tile's rows of acc are scratch
						clear(accs[j][(o-o0)*ns[j]:][:ns[j]])
					}
				}
			}
			// A block of columns goes through every job before the next
			// block: the phases of a conv_transpose read the same input
			// columns, which then stay in L1 (bmshj2018's last layer,
			// 128 → 3 channels, is bound by its input reads).
			for c0 := 0; c0 < nmax; c0 += step {
				for j, jb := range jobs {
					if c0 < ns[j] {
						if err := jobRow(&jb, f, accs[j], bytes[j], xs, ns[j], o0, o1, oy, c0, min(ns[j], c0+step)); err != nil {
							return err
						}
					}
				}
			}
			for o := o0; o < o1; o++ {
				for j, jb := range jobs {
					if jb.fused.on(jb.k, o) { // jobRow formed its bytes (or int32s)
						if jb.fused.put8 == nil {
							continue // and stored them
						}
						if err := jb.fused.put8(o, oy, bytes[j][(o-o0)*ns[j]:][:jb.wo]); err != nil {
							return err
						}
						continue
					}
					if err := jb.put(o, oy, accs[j][(o-o0)*ns[j]:][:jb.wo]); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	// By row where every goroutine gets several: each then reads only its
	// rows of the packed input (2.2 MB for 64 channels at 128², more than
	// a core's L2) and all the weights (74 KB), and ran 5 to 15 % faster
	// at 2 threads than the split by channel (docs/bench/cpu-kernels.md).
	// Else by channel only where every goroutine gets several, and in
	// whole tiles of dot.TileRows channels: a split of a few channels is
	// uneven, and one that parts a tile runs its channels on Mac16 alone.
	procs := runtime.GOMAXPROCS(0)
	if (!rowSplit || y1-y0 < 8*procs) && cout >= 8*procs {
		const t = dot.TileRows
		return parallelRows(0, (cout+t-1)/t, (y1-y0)*t*work, func(a, b int) error { return do(a*t, min(b*t, cout), y0, y1) })
	}
	return parallelRows(y0, y1, cout*work, func(a, b int) error { return do(0, cout, a, b) })
}

// unfused computes row oy of the fused tile at o as an unfused one, its
// sums then put for each channel in turn: the way back when the fused
// store found a y that wrapped or left i8, so that put reports it as the
// unfused path would (rqRow's, then storeRow's refusal).
func unfused[E int16 | uint8](jb *simdJob, f *laneForm[E], xs []E, n, o, oy int) error {
	const t = dot.TileRows
	nt := jb.lw.ntap
	acc := make([]int64, t*n)
	for c0 := 0; c0 < n; c0 += simdCols {
		if !f.tile(acc[c0:], n, min(simdCols, n-c0), xs[f.per*c0:], jb.taps[o/jb.k.og], jb.lw.tile[o*nt:][:t*nt], jb.chunk) {
			return errorMac
		}
	}
	for r := range t {
		if err := jb.put(o+r, oy, acc[r*n:][:jb.wo]); err != nil {
			return err
		}
	}
	return errorFused // the fused store and put disagree
}

// errorFused is a bug: a fused tile found a value that wraps or leaves i8
// where the unfused path finds none.
var errorFused = errors.New("cpuref: a fused tile's epilogue disagrees with the unfused one")

// jobRow adds columns [b0, b1) (multiples of dot.Block) of output row oy
// of channels [o0, o1) of job jb into acc (cleared by the caller), n
// columns a channel, from xs, the packed input at the row's first padded
// row; the rows of fused tiles go into jb.fused's bytes instead, or into
// b8 at n bytes a channel when it stores them through put8 (acc's rows of
// those channels are then scratch). acc has TileRows − 1 rows of scratch
// past o1's for a short last tile.
func jobRow[E int16 | uint8](jb *simdJob, f *laneForm[E], acc []int64, b8 []int8, xs []E, n, o0, o1, oy, b0, b1 int) error {
	k, nt, chunk, cout := jb.k, jb.lw.ntap, jb.chunk, int(jb.k.p.Cout)
	cols := simdCols
	if k.og == 1 {
		cols = b1 - b0 // no two channels read the same input: the window a call
	}
	for c0 := b0; c0 < b1; c0 += cols {
		cols := min(cols, b1-c0)
		for o := o0; o < o1; o++ {
			if fs := jb.fused; fs.on(k, o) && fs.s32 != nil { // TileRows channels, stored as int32
				if !f.tileS32(fs.s32[o*fs.ldb+oy*fs.wo+c0:], fs.ldb, cols, xs[f.per*c0:], jb.taps[o/k.og], jb.lw.tile[o*nt:][:dot.TileRows*nt], chunk, fs.lo, fs.hi) {
					return errorMac // simdRows checked the chunk, fusedS32 the rest
				}
				o += dot.TileRows - 1
				continue
			}
			if fs := jb.fused; fs.on(k, o) { // TileRows channels, stored as bytes
				q := fs.q[o/dot.TileRows]
				dst, ldb := fs.dst, fs.ldb
				if fs.put8 != nil {
					dst, ldb = b8[(o-o0)*n+c0:], n
				} else {
					dst = dst[o*fs.ldb+oy*fs.wo+c0:]
				}
				if !f.tileRQ(dst, ldb, acc[(o-o0)*n:], cols, xs[f.per*c0:], jb.taps[o/k.og], jb.lw.tile[o*nt:][:dot.TileRows*nt], chunk, q) {
					if err := unfused(jb, f, xs, n, o, oy); err != nil {
						return err
					}
				}
				o += dot.TileRows - 1
				continue
			}
			var ok bool
			if tile, _ := k.tileOK(o); tile && min(o+dot.TileRows, cout) <= o1 { // TileRows channels, one read of x
				ok = f.tile(acc[(o-o0)*n+c0:], n, cols, xs[f.per*c0:], jb.taps[o/k.og], jb.lw.tile[o*nt:][:dot.TileRows*nt], chunk)
				o += dot.TileRows - 1
			} else {
				ok = f.mac(acc[(o-o0)*n+c0:][:cols], xs[f.per*c0:], jb.taps[o/k.og], jb.lw.one[o], chunk)
			}
			if !ok {
				return errorMac // pack's layout keeps every read inside
			}
		}
	}
	return nil
}
