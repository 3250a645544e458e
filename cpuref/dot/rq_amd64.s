//go:build !purego

#include "textflag.h"

// The AVX-512 loops of RQRowStrided (rq.go) on zmm, eight sums a step, n a
// multiple of 8: vpmullq (AVX512DQ) forms p = (v + pre)·mult, exact under
// RQ64's bounds (|p| ≤ 2^62, so its low 64 bits are p), then
// q = (p + add + (p >> s & even)) >> s with arithmetic shifts (vpsravq),
// y = q + post, and (q ^ y) & (post ^ y) is or'd into Z7: its sign bit is
// set once some y wrapped; y is then clamped to [lo, hi] (vpmaxsq, vpminsq).
// Each returns whether none wrapped.
//
// Registers: DI dst, SI src, CX sums left; Z1 pre, Z2 mult, Z3 add,
// Z4 post, Z5 s, Z6 even, broadcast; Z0 v, then p, then q; Z8 p >> s & even;
// Z9 y; Z10, Z11 the wrap test; Z7 its or; Z13 lo, Z14 hi.

// RQ_LOAD loads the arguments both loops share.
#define RQ_LOAD \
	MOVQ         dst+0(FP), DI; \
	MOVQ         src+8(FP), SI; \
	MOVQ         n+16(FP), CX; \
	VPBROADCASTQ pre+24(FP), Z1; \
	VPBROADCASTQ mult+32(FP), Z2; \
	VPBROADCASTQ add+40(FP), Z3; \
	VPBROADCASTQ post+48(FP), Z4; \
	VPBROADCASTQ s+56(FP), Z5; \
	VPBROADCASTQ even+64(FP), Z6; \
	VPBROADCASTQ lo+72(FP), Z13; \
	VPBROADCASTQ hi+80(FP), Z14; \
	VPXORQ       Z7, Z7, Z7

// RQ_STEP forms the clamped y of the eight sums at SI in Z9.
#define RQ_STEP \
	VMOVDQU64 (SI), Z0; \
	VPADDQ    Z1, Z0, Z0; \
	VPMULLQ   Z2, Z0, Z0; \
	VPSRAVQ   Z5, Z0, Z8; \
	VPANDQ    Z6, Z8, Z8; \
	VPADDQ    Z3, Z0, Z0; \
	VPADDQ    Z8, Z0, Z0; \
	VPSRAVQ   Z5, Z0, Z0; \
	VPADDQ    Z4, Z0, Z9; \
	VPXORQ    Z0, Z9, Z10; \
	VPXORQ    Z4, Z9, Z11; \
	VPANDQ    Z10, Z11, Z10; \
	VPORQ     Z10, Z7, Z7; \
	VPMAXSQ   Z13, Z9, Z9; \
	VPMINSQ   Z14, Z9, Z9

// RQ_DONE returns whether the sign bit of no lane of Z7 is set.
#define RQ_DONE \
	VEXTRACTI64X4 $1, Z7, Y8; \
	VPORQ         Y8, Y7, Y7; \
	VEXTRACTI128  $1, Y7, X8; \
	VPOR          X8, X7, X7; \
	VPSHUFD       $0x4e, X7, X8; \
	VPOR          X8, X7, X7; \
	VMOVQ         X7, AX; \
	SHRQ          $63, AX; \
	XORQ          $1, AX; \
	MOVB          AX, ret+88(FP); \
	VZEROUPPER; \
	RET

// func rqRowAVX512(dst, src *int64, n int, pre, mult, add, post int64, s uint, even, lo, hi int64) bool
TEXT ·rqRowAVX512(SB), NOSPLIT, $0-89
	RQ_LOAD

loop:
	CMPQ      CX, $8
	JLT       done
	RQ_STEP
	VMOVDQU64 Z9, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JMP       loop

done:
	RQ_DONE

// func rqRow2AVX512(dst, src *int64, n int, pre, mult, add, post int64, s uint, even, lo, hi int64) bool
//
// Stride 2: y_0 … y_3 are spread to the even lanes of Z12 and y_4 … y_7
// to those of Z11 (vpexpandq under K1 = 0x55), and each is stored under K1
// to dst[2i]: the odd elements between are not written, and a masked-off
// lane is not accessed, so the last store reads nothing past dst[2n − 2].
TEXT ·rqRow2AVX512(SB), NOSPLIT, $0-89
	RQ_LOAD
	MOVQ  $0x55, AX
	KMOVB AX, K1

loop2:
	CMPQ          CX, $8
	JLT           done2
	RQ_STEP
	VPEXPANDQ.Z   Z9, K1, Z12
	VEXTRACTI64X4 $1, Z9, Y10
	VPEXPANDQ.Z   Z10, K1, Z11
	VMOVDQU64     Z12, K1, (DI)
	VMOVDQU64     Z11, K1, 64(DI)
	ADDQ          $64, SI
	ADDQ          $128, DI
	SUBQ          $8, CX
	JMP           loop2

done2:
	RQ_DONE
