package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The constants of one row's epilogue, nine int64 at q + 72·r (TileRQ in
// cpuref/dot/tile.go): rq's Pre, Mult, the rounding's add and even bit,
// Post, the clamp's ends, the shift and the narrowing's offset.
const (
	qPre = 8 * iota
	qMult
	qAdd
	qEven
	qPost
	qLo
	qHi
	qShift
	qOff // the narrowing's offset: 128 (an i8 store) or 0 (u8)
	qRow // bytes a row's constants take
)

// fusedTiles writes the tile kernels with the epilogue fused into the
// tile's store: the taps all in one chunk (the caller checks taps ≤
// chunk, so the int32 lanes end holding the exact sums), then for each
// row r and each sum v, while v is in a register,
//
//	p = (v + Pre)·Mult             vpmullq (AVX512DQ)
//	q = (p + add + (p>>s & even)) >> s   §2's rounding (RQRow's formula)
//	y = q + Post, a wrap of y noted
//	y = clamp(y, Lo, Hi), y + Off outside [0, 255] noted (Off 128: y
//	    outside i8; Off 0: outside u8)
//
// and y's low byte stored (vpmovqb) at dst + r·ldb + column. They return
// false when a y wrapped or a clamped y left its 8 bits; the caller then
// runs the tile's rows again on the unfused path for its refusal.
func fusedTiles() {
	for _, t := range []struct {
		fn, elem string
		s        isa
		xs       uint8
		epi      epilogue
		doc      string
	}{
		{"tileRQ16AVX512BW", "int16", bw, 2, epilogue64, "AVX512BW and AVX512DQ"},
		{"tileRQ16AVX512VNNI", "int16", wssd, 2, epilogue64, "AVX512VNNI and AVX512DQ"},
		{"tileRQ8AVX512VNNI", "uint8", busd, 1, epilogue64, "AVX512VNNI and AVX512DQ"},
		{"tileRQ32x16AVX512BW", "int16", bw, 2, epilogue32, "AVX512BW, the rq in 32-bit lanes (TileRQ's in32)"},
		{"tileRQ32x16AVX512VNNI", "int16", wssd, 2, epilogue32, "AVX512VNNI, the rq in 32-bit lanes (TileRQ's in32)"},
		{"tileRQ32x8AVX512VNNI", "uint8", busd, 1, epilogue32, "AVX512VNNI, the rq in 32-bit lanes (TileRQ's in32)"},
	} {
		TEXT(t.fn, NOSPLIT, fmt.Sprintf("func(dst *int8, ldb, n int, x *%s, off *int32, w *uint32, taps int, q *int64) bool", t.elem))
		Doc(fmt.Sprintf("%s is tileRQ's kernel (tile.go) with %s: n columns, a multiple of Block; taps ≥ 1 entries in off, TileRows·taps in w, all in one chunk; q the rows' constants.", t.fn, t.doc))
		tileArgs("dst", "ldb", 0, "q")
		// Z25: the noted failures.
		VPXORQ(Z25, Z25, Z25)
		for _, b := range []int{64, 48, 32, 16, 8} {
			s := t.s
			if b == 8 {
				s.vec, s.lane = func(i int) VecPhysical { return ymm[i] }, 32
			}
			fusedBlock(t.fn, s, t.xs, b, 1, t.epi)
		}
		VPTESTMQ(Z25, Z25, K1)
		KMOVW(K1, EAX)
		TESTL(EAX, EAX)
		SETEQ(AL)
		Store(AL, ReturnIndex(0))
		clean(32)
		VZEROUPPER()
		RET()
	}
}

// An epilogue writes the rq, clamp and narrowing of row row's nv vectors
// of int32 lanes (acc(v, row), cols columns a vector), storing y's bytes
// at m + v·cols and or'ing each failure into Z25.
type epilogue func(s isa, row, nv, cols int, acc func(v, row int) VecPhysical, m Mem)

// fusedBlock writes the loop over blocks of b columns of a fused kernel
// whose outputs take eb bytes each.
func fusedBlock(fn string, s isa, xs uint8, b, eb int, epi epilogue) {
	cols := s.lane / 4
	nv := b / cols
	l := func(what string) string { return fmt.Sprintf("%s%s%d", what, fn, b) }
	acc := func(v, row int) VecPhysical { return s.vec(tileRows*v + row) }
	Comment(fmt.Sprintf("Blocks of %d columns: %d vectors × %d rows, then their epilogue.", b, nv, tileRows))
	Label(l("block"))
	CMPQ(RCX, U32(b))
	JLT(LabelRef(l("next")))
	for v := range nv {
		for row := range tileRows {
			zero(s, acc(v, row))
		}
	}
	XORQ(RBX, RBX)
	MOVQ(R9, R14)
	Label(l("tap"))
	tapMACs(s, xs, nv, tileRegs{w: 16, x: 20, tmp: 22})
	ADDQ(U8(16), R14)
	INCQ(RBX)
	CMPQ(RBX, R10)
	JLT(LabelRef(l("tap")))
	rowBase := []Mem{{Base: RDI}, {Base: RDI, Index: R12, Scale: 1}, {Base: RDI, Index: R12, Scale: 2}, {Base: RDI, Index: R13, Scale: 1}}
	for row := range tileRows {
		epi(s, row, nv, cols, acc, rowBase[row])
	}
	ADDQ(U32(b*eb), RDI)
	ADDQ(U32(4*b), RSI)
	SUBQ(U32(b), RCX)
	JMP(LabelRef(l("block")))
	Label(l("next"))
}

// qm is row row's constant at offset o of its nine.
func qm(row, o int) Mem { return Mem{Base: R11, Disp: qRow*row + o} }

// epilogue64 is the epilogue in 64-bit lanes, vpmullq's (fusedTiles' doc).
func epilogue64(s isa, row, nv, cols int, acc func(v, row int) VecPhysical, m Mem) {
	pre, mult, add, even, post, lo, hi, sh, off := Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24
	t, u, y, v2 := Z26, Z27, Z28, Z29
	qm := func(o int) Mem { return qm(row, o) }
	VPBROADCASTQ(qm(qPre), pre)
	VPBROADCASTQ(qm(qMult), mult)
	VPBROADCASTQ(qm(qAdd), add)
	VPBROADCASTQ(qm(qEven), even)
	VPBROADCASTQ(qm(qPost), post)
	VPBROADCASTQ(qm(qLo), lo)
	VPBROADCASTQ(qm(qHi), hi)
	VPBROADCASTQ(qm(qShift), sh)
	VPBROADCASTQ(qm(qOff), off)
	for v := range nv {
		a := acc(v, row)
		halves := s.lane / 32
		for h := range halves {
			if h == 0 {
				VPMOVSXDQ(a.AsY(), t)
			} else {
				VEXTRACTI64X4(U8(1), a, t.AsY())
				VPMOVSXDQ(t.AsY(), t)
			}
			VPADDQ(pre, t, t)
			VPMULLQ(mult, t, t)    // p
			VPSRAQ(sh.AsX(), t, u) // p >> s
			VPANDQ(even, u, u)     // its low bit where half even
			VPADDQ(add, u, u)
			VPADDQ(t, u, u)
			VPSRAQ(sh.AsX(), u, u) // q
			VPADDQ(post, u, y)     // y = q + Post
			VPXORQ(y, u, u)        // q ^ y
			VPXORQ(y, post, v2)    // Post ^ y
			VPANDQ(v2, u, u)       // sign set where y wrapped
			VPSRAQ(U8(63), u, u)
			VPORQ(u, Z25, Z25)
			VPMAXSQ(lo, y, y)
			VPMINSQ(hi, y, y)
			VPADDQ(off, y, v2) // y + Off in [0, 255] iff y fits the store's 8 bits
			VPSRLQ(U8(8), v2, v2)
			VPORQ(v2, Z25, Z25)
			VPMOVQB(y, m.Offset(v*cols+8*h))
		}
	}
}

// epilogue32 is the epilogue in the int32 lanes themselves, where
// NewTileRQ found it exact (TileRQ's in32: Pre 0, Mult 1, and every
// p + add and q + Post of sums up to B inside i32, the clamp's ends
// saturated to i32), 16 columns a zmm:
//
//	q = (v + add + (v>>s & even)) >> s   vpsrad
//	y = clamp(q + Post, Lo, Hi), y + Off outside [0, 255] noted
//
// and y's low byte stored (vpmovdb). No y wraps, so none is checked.
func epilogue32(s isa, row, nv, cols int, acc func(v, row int) VecPhysical, m Mem) {
	add, even, post, lo, hi, off := s.vec(16), s.vec(17), s.vec(18), s.vec(19), s.vec(20), s.vec(21)
	sh := X22
	u, y := s.vec(26), s.vec(27)
	VPBROADCASTD(qm(row, qAdd), add)
	VPBROADCASTD(qm(row, qEven), even)
	VPBROADCASTD(qm(row, qPost), post)
	VPBROADCASTD(qm(row, qLo), lo)
	VPBROADCASTD(qm(row, qHi), hi)
	VPBROADCASTD(qm(row, qOff), off)
	VMOVQ(qm(row, qShift), sh)
	for v := range nv {
		a := acc(v, row)
		VPSRAD(sh, a, u)   // v >> s
		VPANDD(even, u, u) // its low bit where half even
		VPADDD(add, u, u)
		VPADDD(a, u, u)
		VPSRAD(sh, u, u) // q
		VPADDD(post, u, y)
		VPMAXSD(lo, y, y)
		VPMINSD(hi, y, y)
		VPADDD(off, y, u) // y + Off in [0, 255] iff y fits the store's 8 bits
		VPSRLD(U8(8), u, u)
		VPORD(zmm[26], Z25, Z25) // u as a zmm: an EVEX ymm write zeroed its top
		VPMOVDB(y, m.Offset(v*cols))
	}
}

// s32Tiles writes the tile kernels that store each row's exact sums as
// int32 (TileS32 in cpuref/dot/tile.go): every tap in one chunk, so each
// int32 lane ends holding its sum exactly (§6's K_c, the caller checks
// taps ≤ chunk), clamped to [lo, hi] (q: two int64 already saturated to
// i32) and stored at dst + 4·(r·ldb + column): no widening, no rq.
func s32Tiles() {
	for _, t := range []struct {
		fn, elem string
		s        isa
		xs       uint8
	}{
		{"tileS32x16AVX512BW", "int16", bw, 2},
		{"tileS32x16AVX512VNNI", "int16", wssd, 2},
		{"tileS32x8AVX512VNNI", "uint8", busd, 1},
	} {
		TEXT(t.fn, NOSPLIT, fmt.Sprintf("func(dst *int32, ldb, n int, x *%s, off *int32, w *uint32, taps int, q *int64)", t.elem))
		Doc(fmt.Sprintf("%s is TileS32's kernel (tile.go) with %s: n columns, a multiple of Block; taps ≥ 1 entries in off, TileRows·taps in w, all in one chunk; q the clamp's ends.", t.fn, t.s.name))
		tileArgs("dst", "ldb", 2, "q")
		for _, b := range []int{64, 48, 32, 16, 8} {
			s := t.s
			if b == 8 {
				s.vec, s.lane = func(i int) VecPhysical { return ymm[i] }, 32
			}
			fusedBlock(t.fn, s, t.xs, b, 4, epilogueS32)
		}
		clean(32)
		VZEROUPPER()
		RET()
	}
}

// epilogueS32 clamps row row's int32 lanes to [lo, hi] and stores them.
func epilogueS32(s isa, row, nv, cols int, acc func(v, row int) VecPhysical, m Mem) {
	lo, hi := s.vec(16), s.vec(17)
	VPBROADCASTD(Mem{Base: R11}, lo)
	VPBROADCASTD(Mem{Base: R11, Disp: 8}, hi)
	for v := range nv {
		a := acc(v, row)
		VPMAXSD(lo, a, a)
		VPMINSD(hi, a, a)
		VMOVDQU32(a, m.Offset(4*v*cols))
	}
}
