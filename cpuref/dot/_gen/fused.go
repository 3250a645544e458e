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
	}{
		{"tileRQ16AVX512BW", "int16", bw, 2},
		{"tileRQ16AVX512VNNI", "int16", wssd, 2},
		{"tileRQ8AVX512VNNI", "uint8", busd, 1},
	} {
		TEXT(t.fn, NOSPLIT, fmt.Sprintf("func(dst *int8, ldb, n int, x *%s, off *int32, w *uint32, taps int, q *int64) bool", t.elem))
		Doc(fmt.Sprintf("%s is tileRQ's kernel (tile.go) with %s and AVX512DQ: n columns, a multiple of Block; taps ≥ 1 entries in off, TileRows·taps in w, all in one chunk; q the rows' constants.", t.fn, t.s.name))
		tileArgs("dst", "ldb", 0, "q")
		// Z25: the noted failures.
		VPXORQ(Z25, Z25, Z25)
		for _, b := range []int{64, 48, 32, 16, 8} {
			s := t.s
			if b == 8 {
				s.vec, s.lane = func(i int) VecPhysical { return ymm[i] }, 32
			}
			fusedBlock(t.fn, s, t.xs, b)
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

// fusedBlock writes the loop over blocks of b columns of a fused kernel.
func fusedBlock(fn string, s isa, xs uint8, b int) {
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
	pre, mult, add, even, post, lo, hi, sh, off := Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24
	t, u, y, v2 := Z26, Z27, Z28, Z29
	for row := range tileRows {
		qm := func(o int) Mem { return Mem{Base: R11, Disp: qRow*row + o} }
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
				VPMOVQB(y, rowBase[row].Offset(v*cols+8*h))
			}
		}
	}
	ADDQ(U32(b), RDI)
	ADDQ(U32(4*b), RSI)
	SUBQ(U32(b), RCX)
	JMP(LabelRef(l("block")))
	Label(l("next"))
}
