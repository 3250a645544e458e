package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// tileRows is TileRows (tile.go in cpuref/dot): the output channels, weight
// rows, a tile holds.
const tileRows = 4

// A tile kernel's registers:
//
//	DI   acc at the current column block, row r at DI + r·ld·8
//	R12  ld·8, R13 3·ld·8: the byte offsets of rows 1 to 3
//	CX   columns left
//	SI   x at the current column block (4 bytes a column)
//	R8   off, R9 w, R10 taps, R11 chunk
//	BX   tap index k, DX end of its chunk, AX off[k], R14 &w[4k]
//
// and, for a block of V vectors of columns: the int32 lanes of row r,
// vector v in register 4v + r (0–15); the tap's four weights broadcast in
// 16–19 (8–11 for avx2); the input's operands in 20, 21 (12, 13); products
// in 22, 23 (14, 15); widened lanes in 24, 25 (12, 13).
type tileRegs struct{ w, x, tmp, wide int }

// tiles writes the tile kernels: Tile16 with vpmaddwd + vpaddd (avx2 on
// ymm, avx512bw on zmm) and vpdpwssd, Tile8 with vpdpbusd.
func tiles() {
	zr := tileRegs{w: 16, x: 20, tmp: 22, wide: 24}
	for _, t := range []struct {
		fn, elem string
		s        isa
		xs       uint8 // bytes an offset counts
		blocks   []int // column blocks, widest first
		r        tileRegs
	}{
		{"tile16AVX2", "int16", avx2, 2, []int{16, 8}, tileRegs{w: 8, x: 12, tmp: 14, wide: 12}},
		{"tile16AVX512BW", "int16", bw, 2, []int{64, 48, 32, 16, 8}, zr},
		{"tile16AVX512VNNI", "int16", wssd, 2, []int{64, 48, 32, 16, 8}, zr},
		{"tile8AVX512VNNI", "uint8", busd, 1, []int{64, 48, 32, 16, 8}, zr},
	} {
		TEXT(t.fn, NOSPLIT, fmt.Sprintf("func(acc *int64, ld, n int, x *%s, off *int32, w *uint32, taps, chunk int)", t.elem))
		Doc(fmt.Sprintf("%s is Tile%s's loop (tile.go) with %s: n columns, a multiple of Block; taps entries in off, TileRows·taps in w; chunk ≥ 1.", t.fn, t.elem[len(t.elem)-2:], t.s.name))
		tileArgs("acc", "ld", 3, "chunk")
		for _, b := range t.blocks {
			s := t.s
			if b == 8 && s.lane == 64 {
				s.vec, s.lane = func(i int) VecPhysical { return ymm[i] }, 32 // the 8-column tail on ymm (AVX512VL)
			}
			tileBlock(t.fn, s, t.xs, b, t.r)
		}
		if t.s.lane == 64 {
			clean(26)
		}
		VZEROUPPER()
		RET()
	}
}

// tileBlock writes the loop over blocks of b columns while at least b are
// left: for each chunk of taps (§6: at most chunk taps, 2·chunk or 4·chunk
// products, in a lane), the lanes start at 0, take every tap of the chunk,
// and are sign-extended into the int64 sums at acc. Each lane's chunk sum
// lies in i32 by Choose16's (Choose8's) chunk, and the lane adds modulo
// 2^32, so it ends the chunk holding that sum exactly (dot.go).
func tileBlock(fn string, s isa, xs uint8, b int, r tileRegs) {
	cols := s.lane / 4 // columns a vector holds: 4 bytes a column
	nv := b / cols
	l := func(what string) string { return fmt.Sprintf("%s%s%d", what, fn, b) }
	acc := func(v, row int) VecPhysical { return s.vec(tileRows*v + row) }
	Comment(fmt.Sprintf("Blocks of %d columns: %d vectors × %d rows.", b, nv, tileRows))
	Label(l("block"))
	CMPQ(RCX, U32(b))
	JLT(LabelRef(l("next")))
	XORQ(RBX, RBX)
	Label(l("chunk"))
	CMPQ(RBX, R10)
	JGE(LabelRef(l("done")))
	MOVQ(RBX, RDX)
	ADDQ(R11, RDX)
	CMPQ(RDX, R10)
	CMOVQGT(R10, RDX)
	for v := range nv {
		for row := range tileRows {
			zero(s, acc(v, row))
		}
	}
	MOVQ(RBX, R14)
	SHLQ(U8(4), R14)
	ADDQ(R9, R14)
	Label(l("tap"))
	tapMACs(s, xs, nv, r)
	ADDQ(U8(16), R14)
	INCQ(RBX)
	CMPQ(RBX, RDX)
	JLT(LabelRef(l("tap")))
	rowBase := []Mem{{Base: RDI}, {Base: RDI, Index: R12, Scale: 1}, {Base: RDI, Index: R12, Scale: 2}, {Base: RDI, Index: R13, Scale: 1}}
	for v := range nv {
		for row := range tileRows {
			widen(s, acc(v, row), rowBase[row].Offset(v*cols*8), s.vec(r.wide), s.vec(r.wide+1))
		}
	}
	JMP(LabelRef(l("chunk")))
	Label(l("done"))
	ADDQ(U32(8*b), RDI)
	ADDQ(U32(4*b), RSI)
	SUBQ(U32(b), RCX)
	JMP(LabelRef(l("block")))
	Label(l("next"))
}

// tileArgs loads a tile kernel's arguments into the registers the
// kernels' doc names: out (acc or dst) into DI, its row stride ld into R12,
// shifted left by shift (3: int64 rows), and three rows' stride into R13;
// n, x, off, w and taps; and last (chunk, or the fused epilogue's q) into
// R11.
func tileArgs(out, ld string, shift uint8, last string) {
	Load(Param(out), RDI)
	Load(Param(ld), R12)
	if shift > 0 {
		SHLQ(U8(shift), R12)
	}
	LEAQ(Mem{Base: R12, Index: R12, Scale: 2}, R13)
	Load(Param("n"), RCX)
	Load(Param("x"), RSI)
	Load(Param("off"), R8)
	Load(Param("w"), R9)
	Load(Param("taps"), R10)
	Load(Param(last), R11)
}

// tapMACs adds tap BX (its offset at off, its TileRows weights at R14)
// into the nv × TileRows accumulators of a block: the weights broadcast,
// then each vector of the input's operands loaded once and multiplied
// with all four.
func tapMACs(s isa, xs uint8, nv int, r tileRegs) {
	MOVLQSX(Mem{Base: R8, Index: RBX, Scale: 4}, RAX)
	for row := range tileRows {
		VPBROADCASTD(Mem{Base: R14, Disp: 4 * row}, s.vec(r.w+row))
	}
	for v := range nv {
		x := s.vec(r.x + v%2)
		vload(s, Mem{Base: RSI, Index: RAX, Scale: xs, Disp: v * s.lane}, x)
		for row := range tileRows {
			s.mac(x, s.vec(r.w+row), s.vec(r.tmp+row%2), s.vec(tileRows*v+row))
		}
	}
}

// vload loads a vector of s's width.
func vload(s isa, m Mem, v VecPhysical) {
	if s.evex {
		VMOVDQU64(m, v)
	} else {
		VMOVDQU(m, v)
	}
}

// widen adds the int32 lanes of a, sign-extended, into the int64 at m
// (cols of them), through t0 and t1.
func widen(s isa, a VecPhysical, m Mem, t0, t1 VecPhysical) {
	if s.lane == 64 {
		VPMOVSXDQ(a.AsY(), t0)
		VPADDQ(m, t0, t0)
		VMOVDQU64(t0, m)
		VEXTRACTI64X4(U8(1), a, t1.AsY())
		VPMOVSXDQ(t1.AsY(), t1)
		VPADDQ(m.Offset(64), t1, t1)
		VMOVDQU64(t1, m.Offset(64))
		return
	}
	VPMOVSXDQ(a.AsX(), t0)
	VPADDQ(m, t0, t0)
	vstore(s, t0, m)
	if s.evex {
		VEXTRACTI32X4(U8(1), a, t1.AsX())
	} else {
		VEXTRACTI128(U8(1), a, t1.AsX())
	}
	VPMOVSXDQ(t1.AsX(), t1)
	VPADDQ(m.Offset(32), t1, t1)
	vstore(s, t1, m.Offset(32))
}

// vstore stores a vector of s's width.
func vstore(s isa, v VecPhysical, m Mem) {
	if s.evex {
		VMOVDQU64(v, m)
	} else {
		VMOVDQU(v, m)
	}
}
