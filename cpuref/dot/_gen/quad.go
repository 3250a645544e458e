package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// quad8 writes Quad8's loop on zmm: 16 columns a round, each row's 16
// bytes zero-extended into dwords (vpmovzxbd), rows 1 to 3 shifted to
// their byte, the four or'd and stored as 16 quads.
func quad8() {
	TEXT("quad8AVX512", NOSPLIT, "func(dst *uint8, a, b, c, d *uint8, n int)")
	Doc("quad8AVX512 is Quad8's loop (narrow.go) on zmm for n columns, a multiple of 16, with every row present.")
	Load(Param("dst"), RDI)
	Load(Param("a"), R8)
	Load(Param("b"), R9)
	Load(Param("c"), R10)
	Load(Param("d"), R11)
	Load(Param("n"), RCX)
	XORQ(RAX, RAX)
	Label("roundquad8")
	CMPQ(RAX, RCX)
	JGE(LabelRef("donequad8"))
	VPMOVZXBD(Mem{Base: R8, Index: RAX, Scale: 1}, Z0)
	VPMOVZXBD(Mem{Base: R9, Index: RAX, Scale: 1}, Z1)
	VPMOVZXBD(Mem{Base: R10, Index: RAX, Scale: 1}, Z2)
	VPMOVZXBD(Mem{Base: R11, Index: RAX, Scale: 1}, Z3)
	VPSLLD(U8(8), Z1, Z1)
	VPSLLD(U8(16), Z2, Z2)
	VPSLLD(U8(24), Z3, Z3)
	VPTERNLOGD(U8(0xfe), Z2, Z1, Z0) // a | b | c
	VPORD(Z3, Z0, Z0)
	VMOVDQU32(Z0, Mem{Base: RDI, Index: RAX, Scale: 4})
	ADDQ(U8(16), RAX)
	JMP(LabelRef("roundquad8"))
	Label("donequad8")
	VZEROUPPER()
	RET()
}

// spread2 writes Spread8's loop for stride 2 on zmm: 32 bytes a round,
// zero-extended to words (vpmovzxbw) and stored through the mask of the
// even bytes, so the odd bytes of dst keep what they held.
func spread2() {
	TEXT("spread2AVX512", NOSPLIT, "func(dst *int8, src *int8, n int)")
	Doc("spread2AVX512 is Spread8's loop (narrow.go) on zmm for stride 2 and n bytes, a multiple of 32: dst[2i] = src[i].")
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	Load(Param("n"), RCX)
	MOVQ(U64(0x5555555555555555), RAX)
	KMOVQ(RAX, K1)
	XORQ(RAX, RAX)
	Label("roundspread2")
	CMPQ(RAX, RCX)
	JGE(LabelRef("donespread2"))
	VPMOVZXBW(Mem{Base: RSI, Index: RAX, Scale: 1}, Z0)
	VMOVDQU8(Z0, K1, Mem{Base: RDI, Index: RAX, Scale: 2})
	ADDQ(U8(32), RAX)
	JMP(LabelRef("roundspread2"))
	Label("donespread2")
	VZEROUPPER()
	RET()
}
