//go:build !purego

#include "textflag.h"

// The AVX-512 loops of Narrow8 and Widen8 (narrow.go), eight elements a
// step, n a multiple of 8, of Extent8, 64 a step, and of Pair8, 16.
//
// narrow8: Z0 the sums, clamped to [Z13, Z14]; Z1 = y + 128 shifted right
// by 8 (logically), or'd into Z7, which is zero at the end exactly when
// every y fitted i8; vpmovqb truncates the eight to their low bytes (their
// values, when they fit). At stride 2 the bytes are zero-extended to
// words (vpmovzxbw) and stored under K1 = 0x5555, so only the even bytes
// are written and a masked-off byte is not accessed.

// NARROW_LOAD loads the arguments both loops share.
#define NARROW_LOAD \
	MOVQ         dst+0(FP), DI; \
	MOVQ         src+8(FP), SI; \
	MOVQ         n+16(FP), CX; \
	VPBROADCASTQ lo+24(FP), Z13; \
	VPBROADCASTQ hi+32(FP), Z14; \
	MOVQ         $128, AX; \
	VPBROADCASTQ AX, Z12; \
	VPXORQ       Z7, Z7, Z7

// NARROW_STEP leaves the eight clamped values at SI as bytes in X2.
#define NARROW_STEP \
	VMOVDQU64 (SI), Z0; \
	VPMAXSQ   Z13, Z0, Z0; \
	VPMINSQ   Z14, Z0, Z0; \
	VPADDQ    Z12, Z0, Z1; \
	VPSRLQ    $8, Z1, Z1; \
	VPORQ     Z1, Z7, Z7; \
	VPMOVQB   Z0, X2

// NARROW_DONE returns whether no lane of Z7 is set.
#define NARROW_DONE \
	VPTESTMQ Z7, Z7, K2; \
	KORTESTW K2, K2; \
	SETEQ    ret+40(FP); \
	VZEROUPPER; \
	RET

// func narrow8AVX512(dst *int8, src *int64, n int, lo, hi int64) bool
TEXT ·narrow8AVX512(SB), NOSPLIT, $0-41
	NARROW_LOAD

loop:
	CMPQ CX, $8
	JLT  done
	NARROW_STEP
	MOVQ X2, (DI)
	ADDQ $64, SI
	ADDQ $8, DI
	SUBQ $8, CX
	JMP  loop

done:
	NARROW_DONE

// func narrow8x2AVX512(dst *int8, src *int64, n int, lo, hi int64) bool
TEXT ·narrow8x2AVX512(SB), NOSPLIT, $0-41
	NARROW_LOAD
	MOVL  $0x5555, AX
	KMOVW AX, K1

loop2:
	CMPQ      CX, $8
	JLT       done2
	NARROW_STEP
	VPMOVZXBW X2, X3
	VMOVDQU8  X3, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JMP       loop2

done2:
	NARROW_DONE

// func widen8AVX512(dst *int64, src *int8, n int)
TEXT ·widen8AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop3:
	CMPQ      CX, $8
	JLT       done3
	VPMOVSXBQ (SI), Z0
	VMOVDQU64 Z0, (DI)
	ADDQ      $8, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JMP       loop3

done3:
	VZEROUPPER
	RET

// func extent8AVX512(src *int8, n int, lo, hi *[64]int8)
//
// Z1 and Z2 start as the first 64 bytes and take each further 64 bytes'
// vpminsb and vpmaxsb, lane by lane.
TEXT ·extent8AVX512(SB), NOSPLIT, $0-32
	MOVQ      src+0(FP), SI
	MOVQ      n+8(FP), CX
	VMOVDQU8  (SI), Z1
	VMOVDQA64 Z1, Z2
	ADDQ      $64, SI
	SUBQ      $64, CX

loop4:
	CMPQ     CX, $64
	JLT      done4
	VMOVDQU8 (SI), Z0
	VPMINSB  Z0, Z1, Z1
	VPMAXSB  Z0, Z2, Z2
	ADDQ     $64, SI
	SUBQ     $64, CX
	JMP      loop4

done4:
	MOVQ     lo+16(FP), DI
	VMOVDQU8 Z1, (DI)
	MOVQ     hi+24(FP), DI
	VMOVDQU8 Z2, (DI)
	VZEROUPPER
	RET

// func pair8AVX512(dst *int16, a, b *int8, n int)
//
// Sixteen columns a step: a's bytes sign-extended to dwords (vpmovsxbd)
// and masked to their low 16 bits, b's sign-extended and shifted up 16,
// or'd: each dword is one Pair (a low, b high), stored in column order.
TEXT ·pair8AVX512(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         b+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVL         $0xffff, AX
	VPBROADCASTD AX, Z3

loop5:
	CMPQ      CX, $16
	JLT       done5
	VPMOVSXBD (SI), Z0
	VPANDD    Z3, Z0, Z0
	VPMOVSXBD (DX), Z1
	VPSLLD    $16, Z1, Z1
	VPORD     Z1, Z0, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ      $16, SI
	ADDQ      $16, DX
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop5

done5:
	VZEROUPPER
	RET
