//go:build !purego

#include "textflag.h"

// func rqRowAVX512(dst, src *int64, n int, pre, mult, add, post int64, s uint, even int64) bool
//
// RQRow's loop (rq.go) on zmm, eight sums a step, n a multiple of 8:
// vpmullq (AVX512DQ) forms p = (v + pre)·mult, exact under RQ64's bounds
// (|p| ≤ 2^62, so its low 64 bits are p), then
// q = (p + add + (p >> s & even)) >> s with arithmetic shifts (vpsravq),
// y = q + post, and (q ^ y) & (post ^ y) is or'd into Z7: its sign bit is
// set once some y wrapped. It returns whether none did.
//
// Registers: DI dst, SI src, CX sums left; Z1 pre, Z2 mult, Z3 add,
// Z4 post, Z5 s, Z6 even, broadcast; Z0 v, then p, then q; Z8 p >> s & even;
// Z9 y; Z10, Z11 the wrap test; Z7 its or.
TEXT ·rqRowAVX512(SB), NOSPLIT, $0-73
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ pre+24(FP), Z1
	VPBROADCASTQ mult+32(FP), Z2
	VPBROADCASTQ add+40(FP), Z3
	VPBROADCASTQ post+48(FP), Z4
	VPBROADCASTQ s+56(FP), Z5
	VPBROADCASTQ even+64(FP), Z6
	VPXORQ       Z7, Z7, Z7

loop:
	CMPQ      CX, $8
	JLT       done
	VMOVDQU64 (SI), Z0
	VPADDQ    Z1, Z0, Z0
	VPMULLQ   Z2, Z0, Z0
	VPSRAVQ   Z5, Z0, Z8
	VPANDQ    Z6, Z8, Z8
	VPADDQ    Z3, Z0, Z0
	VPADDQ    Z8, Z0, Z0
	VPSRAVQ   Z5, Z0, Z0
	VPADDQ    Z4, Z0, Z9
	VPXORQ    Z0, Z9, Z10
	VPXORQ    Z4, Z9, Z11
	VPANDQ    Z10, Z11, Z10
	VPORQ     Z10, Z7, Z7
	VMOVDQU64 Z9, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JMP       loop

done:
	// The or of Z7's eight lanes, then its sign bit.
	VEXTRACTI64X4 $1, Z7, Y8
	VPORQ         Y8, Y7, Y7
	VEXTRACTI128  $1, Y7, X8
	VPOR          X8, X7, X7
	VPSHUFD       $0x4e, X7, X8
	VPOR          X8, X7, X7
	VMOVQ         X7, AX
	SHRQ          $63, AX
	XORQ          $1, AX
	MOVB          AX, ret+72(FP)
	VZEROUPPER
	RET
