package dot

import "math"

// TileRows is the number of weight rows (output channels) one Tile16 or
// Tile8 call computes: the tile kernels hold TileRows rows × a block of
// columns (64 on zmm, 16 on ymm) of int32 lanes in registers, so each
// operand load feeds TileRows multiply-adds and each broadcast weight
// feeds a whole block (cpuref/dot/_gen writes them).
const TileRows = 4

// Tile16 is Mac16 for TileRows weight rows over the same taps: w holds
// them interleaved, w[TileRows·k + r] the tap's pair for row r, and row
// r's n columns are acc[r·ld:][:n]; each gets the sums Mac16 would give
// it, every lane widened after at most chunk taps as in Mac16. It returns
// false, and changes nothing, when the arguments do not fit: n not a
// multiple of Block, ld < n, acc shorter than (TileRows − 1)·ld + n,
// len(w) ≠ TileRows·taps.Len(), chunk < 1, a tap that would read past x,
// or taps not NewTaps'.
func Tile16(acc []int64, ld, n int, x []int16, taps *Taps, w []uint32, chunk int) bool {
	if !tileFits(len(acc), ld, n, len(x), taps, 2, len(w), chunk) {
		return false
	}
	if n > 0 && len(w) > 0 {
		best.tile16(acc, ld, n, x, taps.off, w, chunk)
	}
	return true
}

// Tile8 is Tile16 for Mac8's operands (u8 inputs in quads, i8 weights,
// taps from NewTaps8, chunk from Choose8).
func Tile8(acc []int64, ld, n int, x []uint8, taps *Taps, w []uint32, chunk int) bool {
	if !tileFits(len(acc), ld, n, len(x), taps, 4, len(w), chunk) {
		return false
	}
	if n > 0 && len(w) > 0 {
		best8.tile8(acc, ld, n, x, taps.off, w, chunk)
	}
	return true
}

// tileFits is Tile16's and Tile8's check of their arguments, unit the
// operands a column takes.
func tileFits(nacc, ld, n, nx int, taps *Taps, unit int32, nw, chunk int) bool {
	return taps.unit == unit && n >= 0 && n%Block == 0 && ld >= n && nacc >= (TileRows-1)*ld+n &&
		nw == TileRows*len(taps.off) && chunk >= 1 && (nw == 0 || taps.maxOff+int(unit)*n <= nx)
}

// tileGeneric runs a one-row pure-Go kernel (mac16Generic, mac8Generic) on
// each of the TileRows rows w interleaves.
func tileGeneric[E int16 | uint8](mac func([]int64, []E, []int32, []uint32, int)) func([]int64, int, int, []E, []int32, []uint32, int) {
	return func(acc []int64, ld, n int, x []E, off []int32, w []uint32, chunk int) {
		row := make([]uint32, len(off))
		for r := range TileRows {
			for k := range row {
				row[k] = w[TileRows*k+r]
			}
			mac(acc[r*ld:][:n], x, off, row, chunk)
		}
	}
}

// TileRQ is the epilogue Tile16RQ and Tile8RQ fuse into the tile's store,
// the constants of each row's rq (§5.1 in RQ64's 64-bit form), clamp and
// narrowing formed once: row r's nine at c[9r:], in the order of tileRQ
// in _gen/fused.go. The ninth is the narrowing's offset, 128 for an i8
// store and 0 for a u8 one: a clamped y is stored when y + offset lies in
// [0, 255], as the byte y's low eight bits make.
type TileRQ struct {
	c [TileRows * tileRQRow]int64
	// in32 says the epilogue is exact in the sums' own int32 lanes (the
	// kernels' 32-bit form): every row has Pre 0 and Mult 1, and for sums
	// up to B, v + add + 1 and |q| + |Post| stay inside i32.
	in32 bool
}

// tileRQRow is the constants of one row of a TileRQ.
const tileRQRow = 9

// NewTileRQ forms q's rows' constants (RQRowStrided's add and even bit,
// Clamp's ends or the whole int64 range) for sums up to B in magnitude,
// stored at i8 width, or at u8 width when unsigned (§3 Storage: the type
// that holds the values; the store checks each value lies in it, never
// offsets one). Each row's sums must meet RQ64's bounds. The clamp's ends
// are saturated to i32: a y past i32 fails either store either way, so
// the stored bytes and the answer do not change.
func NewTileRQ(q *[TileRows]RQ64, B uint64, unsigned bool) *TileRQ {
	t := &TileRQ{in32: true}
	off := int64(128)
	if unsigned {
		off = 0
	}
	const m32 = 1<<31 - 1
	for r := range q {
		add, even, s, lo, hi := q[r].formed()
		lo, hi = min(max(lo, -m32-1), m32), min(max(hi, -m32-1), m32)
		copy(t.c[tileRQRow*r:], []int64{q[r].Pre, q[r].Mult, add, even, q[r].Post, lo, hi, int64(s), off})
		// p = v, |p + add + 1| ≤ B + 2^s; |q| ≤ ⌊B/2^s⌋ + 1.
		post := uint64(max(q[r].Post, -q[r].Post)) // |Post| < 2^63: RQ64's y bound
		t.in32 = t.in32 && q[r].Pre == 0 && q[r].Mult == 1 && s <= 30 && B <= m32-1<<s && post <= m32-1-B>>s
	}
	return t
}

// row is row r's constants as rq's loop takes them, and the narrowing's
// offset.
func (t *TileRQ) row(r int) (pre, mult, add, even, post, lo, hi int64, s uint, off int64) {
	c := t.c[tileRQRow*r:]
	return c[0], c[1], c[2], c[3], c[4], c[5], c[6], uint(c[7]), c[8]
}

// Tile16RQ is Tile16 on zeroed sums followed, for each row r, by RQRow
// with q's row r and Narrow8 of the results into dst[r·ldb:][:n] (or,
// for a q formed unsigned, their narrowing to u8, each byte's bits in
// dst's int8) (ldb ≥ n,
// dst at least (TileRows − 1)·ldb + n long): a tile of a conv's output
// stored at i8 width (§3 Storage) without a second pass over its sums
// where the implementation fuses them (AVX-512 with DQ, every tap in one
// chunk). acc, at least TileRows·n long, holds the sums where it does not.
// It returns false when the arguments do not fit (as Tile16's), or when a
// y wrapped or a clamped y left i8 or u8 (RQRow's and Narrow8's false); dst then
// holds garbage, and the caller runs the rows unfused for its refusal.
func Tile16RQ(dst []int8, ldb int, acc []int64, n int, x []int16, taps *Taps, w []uint32, chunk int, q *TileRQ) bool {
	if !tileFits(len(acc), n, n, len(x), taps, 2, len(w), chunk) || ldb < n || len(dst) < (TileRows-1)*ldb+n {
		return false
	}
	return n == 0 || best.tile16RQ(dst, ldb, acc, n, x, taps.off, w, chunk, q)
}

// Tile8RQ is Tile16RQ for Tile8's operands.
func Tile8RQ(dst []int8, ldb int, acc []int64, n int, x []uint8, taps *Taps, w []uint32, chunk int, q *TileRQ) bool {
	if !tileFits(len(acc), n, n, len(x), taps, 4, len(w), chunk) || ldb < n || len(dst) < (TileRows-1)*ldb+n {
		return false
	}
	return n == 0 || best8.tile8RQ(dst, ldb, acc, n, x, taps.off, w, chunk, q)
}

// Tile16S32 is Tile16 on zeroed sums with every tap in one chunk, each
// row r's sums clamped to [lo, hi] and stored as int32 into
// dst[r·ldb:][:n] (ldb ≥ n, dst at least (TileRows − 1)·ldb + n long): a
// tile of a conv whose output is its exact sums as int32, as an int8
// library returns them. One chunk holds every partial sum in i32 (§6,
// Choose16), so the sums are exact in the lanes and a clamp whose ends
// reach i32 keeps them there. It returns false, and writes nothing, when
// the arguments do not fit (as Tile16's), the taps are more than one
// chunk, lo > hi, or [lo, hi] misses i32.
func Tile16S32(dst []int32, ldb, n int, x []int16, taps *Taps, w []uint32, chunk int, lo, hi int64) bool {
	return runS32(best.tile16S32, 2, dst, ldb, n, x, taps, w, chunk, lo, hi)
}

// Tile8S32 is Tile16S32 for Tile8's operands.
func Tile8S32(dst []int32, ldb, n int, x []uint8, taps *Taps, w []uint32, chunk int, lo, hi int64) bool {
	return runS32(best8.tile8S32, 4, dst, ldb, n, x, taps, w, chunk, lo, hi)
}

// runS32 is Tile16S32 and Tile8S32 through loop, whose operands hold per
// values a lane.
func runS32[E int16 | uint8](loop tileS32[E], per int32, dst []int32, ldb, n int, x []E, taps *Taps, w []uint32, chunk int, lo, hi int64) bool {
	if !tileFits(len(dst), ldb, n, len(x), taps, per, len(w), chunk) || !s32Fits(taps, chunk, lo, hi) {
		return false
	}
	if n > 0 && len(w) > 0 {
		loop(dst, ldb, n, x, taps.off, w, s32Ends(lo, hi))
	} else {
		s32Zero(dst, ldb, n, lo, hi)
	}
	return true
}

// s32Zero stores the rows of a tile without taps: every sum 0, clamped.
func s32Zero(dst []int32, ldb, n int, lo, hi int64) {
	for r := range TileRows {
		for j := range n {
			dst[r*ldb+j] = int32(min(max(0, lo), hi)) // lo ≤ MaxInt32, hi ≥ MinInt32
		}
	}
}

// s32Fits is Tile16S32's and Tile8S32's own check: every tap in one
// chunk, and a clamp that meets i32.
func s32Fits(taps *Taps, chunk int, lo, hi int64) bool {
	return len(taps.off) <= chunk && lo <= hi && lo <= math.MaxInt32 && hi >= math.MinInt32
}

// s32Ends is [lo, hi] saturated to i32, as the kernels take it: on sums
// inside i32 the same clamp.
func s32Ends(lo, hi int64) *[2]int64 {
	return &[2]int64{max(lo, math.MinInt32), min(hi, math.MaxInt32)}
}

// tileS32 is the loop of Tile16S32 or Tile8S32 with its checks done.
type tileS32[E int16 | uint8] func(dst []int32, ldb, n int, x []E, off []int32, w []uint32, q *[2]int64)

// composeS32 is tileS32 in passes: tile's sums (one chunk) into int64
// rows, then clamped and stored.
func composeS32[E int16 | uint8](tile func([]int64, int, int, []E, []int32, []uint32, int)) tileS32[E] {
	return func(dst []int32, ldb, n int, x []E, off []int32, w []uint32, q *[2]int64) {
		acc := make([]int64, TileRows*n)
		tile(acc, n, n, x, off, w, max(1, len(off)))
		for r := range TileRows {
			for j, v := range acc[r*n:][:n] {
				dst[r*ldb+j] = int32(min(max(v, q[0]), q[1]))
			}
		}
	}
}

// tileRQ is the loop of Tile16RQ or Tile8RQ with its checks done.
type tileRQ[E int16 | uint8] func(dst []int8, ldb int, acc []int64, n int, x []E, off []int32, w []uint32, chunk int, q *TileRQ) bool

// composeRQ is tileRQ in passes: tile's sums into acc, then rq and narrow8
// (an implementation's loops, or the pure ones where it has none) row by
// row.
func composeRQ[E int16 | uint8](tile func([]int64, int, int, []E, []int32, []uint32, int), rq func([]int64, int, []int64, int64, int64, int64, int64, uint, int64, int64, int64) bool,
	narrow8 func([]int8, int, []int64, int64, int64) bool) tileRQ[E] {
	if rq == nil {
		rq = rqGeneric
	}
	if narrow8 == nil {
		narrow8 = narrow8Generic
	}
	return func(dst []int8, ldb int, acc []int64, n int, x []E, off []int32, w []uint32, chunk int, q *TileRQ) bool {
		acc = acc[:TileRows*n]
		clear(acc)
		if len(off) > 0 {
			tile(acc, n, n, x, off, w, chunk)
		}
		ok := true
		for r := range TileRows {
			pre, mult, add, even, post, lo, hi, s, off := q.row(r)
			row := acc[r*n:][:n]
			ok = rq(row, 1, row, pre, mult, add, post, s, even, math.MinInt64, math.MaxInt64) && ok
			if off == 0 {
				ok = narrowU8(dst[r*ldb:][:n], row, lo, hi) && ok
			} else {
				ok = narrow8(dst[r*ldb:][:n], 1, row, lo, hi) && ok
			}
		}
		return ok
	}
}

// narrowU8 is narrow8Generic's store at u8 width: each src[i] clamped to
// [lo, hi], its low eight bits stored in dst[i], and whether every clamped
// value lay in [0, 255].
func narrowU8(dst []int8, src []int64, lo, hi int64) bool {
	var bad uint64
	for i, v := range src {
		v = min(max(v, lo), hi)
		bad |= uint64(v) >> 8
		dst[i] = int8(uint8(v))
	}
	return bad == 0
}
