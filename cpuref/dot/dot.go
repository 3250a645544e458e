// Package dot holds the CPU fabric's integer dot-product kernels: rows of
// 16-bit operand pairs multiplied and added into 32-bit lanes, each lane
// widened into an int64 sum before it can hold more products than §6's K_c
// allows (integer-operators §6, "Chunked 32-bit partial sums" and
// "Dot-product instructions").
//
// There is one Go signature per kernel (Mac16, Mac8: one weight row;
// Tile16, Tile8: TileRows rows at once; Tile16RQ, Tile8RQ: the same with
// the rq, clamp and narrowing to i8 or u8 in the store; Tile16S32,
// Tile8S32: the exact one-chunk sums stored as int32; tile.go) and one implementation
// per instruction set: pure Go (mac16_generic.go, mac8_generic.go) and, on
// amd64, AVX2 vpmaddwd + vpaddd on ymm, AVX-512BW vpmaddwd + vpaddd on
// zmm, AVX-512 VNNI vpdpwssd on zmm and, for Mac8 and Tile8, vpdpbusd.
// Mac16 and Mac8 are hand-written (mac16_amd64.s, avx512_amd64.s); the
// tile kernels, the peak loops and the byte movers Quad8 and Spread8
// (narrow.go) are generated with avo by _gen (kern_amd64.s). A dispatcher picks the widest implementation
// golang.org/x/sys/cpu reports once, at package init; the purego build tag
// forces the pure-Go kernels.
//
// It also holds the rq epilogue's 64-bit form (RQRowStrided: §5.1
// with §6's rq.p in 64 bits), pure Go and AVX-512 (vpmullq, AVX512DQ; AVX2
// has no 64-bit multiply and takes the pure loop), dispatched the same way.
//
// Who should use it: cpuref, for operators whose operands the bounds of §8
// put inside i16 and whose K_c is at least 2 (Choose16), and for rq rows
// whose bounds cpuref has proved fit 64 bits. Everything else stays on
// cpuref's int64 and 128-bit paths. The kernels never see an offset
// encoding: every operand is the element's value (§3, Storage).
package dot

import "math"

// Impl is one implementation of the kernels.
type Impl struct {
	// Name is the instruction set: "purego", "avx2", "avx512bw",
	// "avx512vnni".
	Name string
	// mac16 has the contract of the package's Mac16, with its checks done.
	mac16 func(acc []int64, x []int16, off []int32, w []uint32, chunk int)
	// peak runs n rounds of PeakRound products of the instruction mac16
	// is built on, on registers: the benchmarks' measure of the machine.
	peak func(n int)
	// mac8 and peak8 are the same for Mac8 (a peak8
	// round forms 2·PeakRound u8 × s8 products), nil where the set has no
	// exact u8 × s8 instruction.
	mac8  func(acc []int64, x []uint8, off []int32, w []uint32, chunk int)
	peak8 func(n int)
	// tile16 and tile8 have the contracts of Tile16 and Tile8 (tile.go),
	// with their checks done; tile8 is nil where mac8 is.
	tile16 func(acc []int64, ld, n int, x []int16, off []int32, w []uint32, chunk int)
	tile8  func(acc []int64, ld, n int, x []uint8, off []int32, w []uint32, chunk int)
	// tile16RQ and tile8RQ are Tile16RQ's and Tile8RQ's loops (tile.go),
	// fused or composed; tile8RQ is nil where mac8 is.
	tile16RQ tileRQ[int16]
	tile8RQ  tileRQ[uint8]
	// tile16S32 and tile8S32 are Tile16S32's and Tile8S32's loops, fused
	// or composed; tile8S32 is nil where mac8 is.
	tile16S32 tileS32[int16]
	tile8S32  tileS32[uint8]
	// rq is RQRowStrided's loop, with its constants formed (rqGeneric's
	// contract); nil where the set has no 64-bit multiply.
	rq func(dst []int64, stride int, src []int64, pre, mult, add, post int64, s uint, even, lo, hi int64) bool
	// narrow8, widen8, extent8 and pair8 are the loops of Narrow8,
	// Widen8, Extent8 and Pair8 (narrow.go), nil where the set has none of
	// its own (and then quad8 too).
	narrow8 func(dst []int8, stride int, src []int64, lo, hi int64) bool
	widen8  func(dst []int64, src []int8)
	extent8 func(src []int8) (lo, hi int8)
	pair8   func(dst []int16, a, b []int8)
	// quad8 is Quad8's loop with all four rows present, spread8 Spread8's
	// (narrow.go).
	quad8   func(dst []uint8, a, b, c, d []uint8)
	spread8 func(dst []int8, stride int, src []int8)
}

// PeakRound is the number of 16-bit products one round of a peak loop forms:
// 16 zmm multiply-adds of 32 products (16 independent sums, enough to keep
// both 512-bit multiply-add ports of a Zen 5 or Ice Lake core busy through
// vpdpwssd's latency), or 32 ymm ones of 16 for avx2.
const PeakRound = 512

//go:generate sh -c "cd _gen && go run . -out ../kern_amd64.s -stubs ../kern_amd64.go -pkg dot"

// generic is the pure-Go implementation, present in every build.
var generic = Impl{
	Name: "purego", peak: peakGeneric, rq: rqGeneric, narrow8: narrow8Generic, widen8: widen8Generic, extent8: extent8Generic,
	pair8: pair8Generic, quad8: quad8Generic, spread8: spread8Generic, tile16: tileGeneric(mac16Generic), tile8: tileGeneric(mac8Generic),
	mac16: mac16Generic, mac8: mac8Generic,
}

// impls lists the implementations this build has and this machine runs,
// the pure one first; best is the last of them, the one the dispatcher
// picked, best8 the last with a Mac8 kernel, bestRQ the last with an
// rq loop and bestWide the last with the loops of narrow.go.
var (
	impls    = withTileRQ(append([]Impl{generic}, native()...))
	best     = impls[len(impls)-1]
	best8    = last(impls, func(im Impl) bool { return im.mac8 != nil })
	bestRQ   = last(impls, func(im Impl) bool { return im.rq != nil })
	bestWide = last(impls, func(im Impl) bool { return im.narrow8 != nil })
)

// withTileRQ gives each implementation of l without a fused Tile16RQ
// (Tile8RQ, Tile16S32, Tile8S32) one composed of its own loops.
func withTileRQ(l []Impl) []Impl {
	for i := range l {
		im := &l[i]
		if im.tile16RQ == nil {
			im.tile16RQ = composeRQ(im.tile16, im.rq, im.narrow8)
		}
		if im.tile8RQ == nil && im.tile8 != nil {
			im.tile8RQ = composeRQ(im.tile8, im.rq, im.narrow8)
		}
		if im.tile16S32 == nil {
			im.tile16S32 = composeS32(im.tile16)
		}
		if im.tile8S32 == nil && im.tile8 != nil {
			im.tile8S32 = composeS32(im.tile8)
		}
	}
	return l
}

// last is the last of l that has, which the pure one has.
func last(l []Impl, has func(Impl) bool) Impl {
	for i := len(l) - 1; ; i-- {
		if has(l[i]) {
			return l[i]
		}
	}
}

// Implementations returns the names of the implementations this build has
// and this machine runs, the pure one first and the dispatcher's pick last.
func Implementations() []string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return names
}

// Selected is the name of the implementation Mac16 runs.
func Selected() string { return best.Name }

// Selected8 is the name of the implementation Mac8 runs.
func Selected8() string { return best8.Name }

// SelectedRQ is the name of the implementation RQRowStrided runs.
func SelectedRQ() string { return bestRQ.Name }

// Accelerated reports whether Mac16 runs an instruction-set kernel rather
// than the pure-Go one.
func Accelerated() bool { return best.Name != generic.Name }

// Accelerated8 reports whether Mac8 runs an instruction-set kernel
// (vpdpbusd) rather than the pure-Go one.
func Accelerated8() bool { return best8.Name != generic.Name }

// Block is the column granularity of Mac16: len(acc) is a multiple of it.
const Block = 8

// Taps is the tap list of Mac16: for tap k, the index off[k] in x of the
// first operand pair of column 0 (an even index: pairs are x[2m], x[2m+1]).
// Its fields are fixed by NewTaps, which has checked them.
type Taps struct {
	off    []int32
	maxOff int
	unit   int32 // the operands a column takes: 2 (Mac16) or 4 (Mac8)
}

// NewTaps checks off (every entry even and non-negative) and keeps it; it
// returns false otherwise.
func NewTaps(off []int32) (*Taps, bool) { return newTaps(off, 2) }

// NewTaps8 is NewTaps for Mac8: every entry a non-negative multiple of 4,
// the index in x of a column's first byte of four.
func NewTaps8(off []int32) (*Taps, bool) { return newTaps(off, 4) }

func newTaps(off []int32, unit int32) (*Taps, bool) {
	t := &Taps{off: off, unit: unit}
	for _, o := range off {
		if o < 0 || o%unit != 0 {
			return nil, false
		}
		t.maxOff = max(t.maxOff, int(o))
	}
	return t, true
}

// Len is the number of taps.
func (t *Taps) Len() int { return len(t.off) }

// Pair is a tap's two 16-bit weights, lo in the low half and hi in the high
// half, as Mac16 reads them.
func Pair(lo, hi int16) uint32 { return uint32(uint16(lo)) | uint32(uint16(hi))<<16 }

// Mac16 adds, for every column t < len(acc),
//
//	acc[t] += Σ_{k < taps.Len()} lo(w[k])·x[off[k] + 2t] + hi(w[k])·x[off[k] + 2t + 1]
//
// with lo and hi the halves of w[k] as int16 (Pair). Each 32-bit lane sums
// the products of at most chunk taps (2·chunk products) before it is
// widened into acc[t]: chunk comes from Choose16 over intervals that hold
// every operand, so each lane's chunk sum fits i32 and the result is the
// exact integer. It returns false, and changes nothing, when the arguments
// do not fit: len(acc) not a multiple of Block, len(w) ≠ taps.Len(),
// chunk < 1, a tap that would read past x, or taps not NewTaps'.
func Mac16(acc []int64, x []int16, taps *Taps, w []uint32, chunk int) bool {
	if taps.unit != 2 || len(acc)%Block != 0 || len(w) != len(taps.off) || chunk < 1 ||
		(len(w) > 0 && taps.maxOff+2*len(acc) > len(x)) {
		return false
	}
	if len(acc) == 0 || len(w) == 0 {
		return true
	}
	best.mac16(acc, x, taps.off, w, chunk)
	return true
}

// Quad is a tap's four 8-bit weights, w0 in the low byte, as Mac8 reads
// them.
func Quad(w0, w1, w2, w3 int8) uint32 {
	return uint32(uint8(w0)) | uint32(uint8(w1))<<8 | uint32(uint8(w2))<<16 | uint32(uint8(w3))<<24
}

// Mac8 is Mac16 for unsigned 8-bit inputs and signed 8-bit weights, four
// of each a tap: for every column t < len(acc),
//
//	acc[t] += Σ_{k < taps.Len()} Σ_{j < 4} w_j(w[k])·x[off[k] + 4t + j]
//
// with w_j the bytes of w[k] as int8 (Quad) and taps from NewTaps8. Each
// 32-bit lane sums the products of at most chunk taps (4·chunk products)
// before it is widened into acc[t], chunk from Choose8. The u8 form is for
// inputs whose every value is certified non-negative (§3, Storage: an
// element enters a product as its value, so no offset makes a signed
// input unsigned). It returns false, and changes nothing, when the
// arguments do not fit, as Mac16 does, or when taps is not NewTaps8's.
func Mac8(acc []int64, x []uint8, taps *Taps, w []uint32, chunk int) bool {
	if taps.unit != 4 || len(acc)%Block != 0 || len(w) != len(taps.off) || chunk < 1 ||
		(len(w) > 0 && taps.maxOff+4*len(acc) > len(x)) {
		return false
	}
	if len(acc) == 0 || len(w) == 0 {
		return true
	}
	best8.mac8(acc, x, taps.off, w, chunk)
	return true
}

// Operands are intervals that hold every weight and every input value of
// one sum, such as a node's weight range and the certified interval of its
// input (§8.5 mac), or tighter ones measured on a decode's actual values.
type Operands struct{ WLo, WHi, XLo, XHi int64 }

// Choose16 is the chunk of Mac16 for operands in o: the most taps a 32-bit
// lane may take. It is ok only when every operand fits i16 (mac.w_bits and
// mac.a_bits ≤ 16) and K_c ≥ 2, where P is the largest product magnitude
// max|w|·max|x| and K_c = ⌊(2^31 − 1)/P⌋ (§6), unbounded when P = 0.
// Each tap adds two products into a lane, so chunk = ⌊K_c/2⌋ taps hold at
// most K_c products, whose every partial sum lies in ±K_c·P ⊂ i32.
//
// Why the lane never wraps: vpmaddwd forms each pair sum w₀x₀ + w₁x₁ in 32
// bits, and vpaddd adds modulo 2^32. Addition modulo 2^32 keeps the sum's
// residue, so a lane ends a chunk holding the chunk's sum mod 2^32, which
// is the sum itself exactly when the sum lies in i32. Under the K_c rule
// every partial sum of the chunk, the pair sums included, lies in i32, so
// no intermediate wraps and the lane is exact. Past K_c it need not be:
// −2^15·−2^15 + −2^15·−2^15 = 2^31 is one pair whose sum is outside i32,
// and Choose16 refuses it (K_c = 1).
func Choose16(o Operands) (chunk int, ok bool) {
	if o.WLo > o.WHi || o.XLo > o.XHi ||
		o.WLo < math.MinInt16 || o.WHi > math.MaxInt16 ||
		o.XLo < math.MinInt16 || o.XHi > math.MaxInt16 {
		return 0, false
	}
	p := uint64(max(-o.WLo, o.WHi)) * uint64(max(-o.XLo, o.XHi)) // ≤ 2^30
	if p == 0 {
		return math.MaxInt32, true // K_c unbounded: every term is 0
	}
	kc := uint64(math.MaxInt32) / p
	if kc < 2 {
		return 0, false
	}
	return int(kc / 2), true
}

// Choose8 is the chunk of Mac8 for operands in o: ok only when every
// weight fits i8 (mac.w_bits ≤ 8), every input lies in [0, 255] (a
// non-negative certified interval that fits u8, as after a relu), with P
// and K_c as for Choose16 (§6); within those bounds K_c is at least 65793,
// so there is no K_c too small to refuse. Each tap adds four products into
// a lane, so chunk = ⌊K_c/4⌋ taps hold at most K_c products.
//
// Why the lane never wraps: vpdpbusd sums a lane's four u8 × s8 products
// and adds them into the lane modulo 2^32, which keeps the residue; under
// the K_c rule every partial sum lies in i32, so the lane ends each chunk
// holding its sum exactly.
func Choose8(o Operands) (chunk int, ok bool) {
	if o.WLo > o.WHi || o.XLo > o.XHi ||
		o.WLo < math.MinInt8 || o.WHi > math.MaxInt8 || o.XLo < 0 || o.XHi > math.MaxUint8 {
		return 0, false
	}
	p := uint64(max(-o.WLo, o.WHi)) * uint64(o.XHi) // ≤ 2^15 − 2^7
	if p == 0 {
		return math.MaxInt32, true // K_c unbounded: every term is 0
	}
	return int(uint64(math.MaxInt32) / p / 4), true // ≥ 16448
}
