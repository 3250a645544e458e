//go:build !purego

#include "textflag.h"

// flooredAVX512 (floored.go's Floored4): for each block of 8 positions,
// a += Σ_k ⌊g_k·r_k / 2^s⌋. vpmuldq multiplies the low dwords as signed
// (g_k ∈ i32 broadcast; r_k ∈ [0, 2^31), so its low dword is itself), the
// 64-bit product is exact, vpsraq by s ≤ 63 floors it (§2), vpaddq adds it.
//
//	DI a    CX cnt (bytes)    AX offset    R8–R11 r0–r3
//	Z0–Z3 g0–g3    X4 s
TEXT ·flooredAVX512(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), DI
	MOVQ cnt+8(FP), CX
	SHLQ $3, CX
	MOVQ gam+16(FP), SI
	MOVQ r0+24(FP), R8
	MOVQ r1+32(FP), R9
	MOVQ r2+40(FP), R10
	MOVQ r3+48(FP), R11
	VPBROADCASTQ 0(SI), Z0
	VPBROADCASTQ 8(SI), Z1
	VPBROADCASTQ 16(SI), Z2
	VPBROADCASTQ 24(SI), Z3
	VMOVQ s+56(FP), X4
	XORQ AX, AX

loop:
	VMOVDQU64 (R8)(AX*1), Z5
	VMOVDQU64 (R9)(AX*1), Z6
	VMOVDQU64 (R10)(AX*1), Z7
	VMOVDQU64 (R11)(AX*1), Z8
	VPMULDQ   Z0, Z5, Z5
	VPMULDQ   Z1, Z6, Z6
	VPMULDQ   Z2, Z7, Z7
	VPMULDQ   Z3, Z8, Z8
	VPSRAQ    X4, Z5, Z5
	VPSRAQ    X4, Z6, Z6
	VPSRAQ    X4, Z7, Z7
	VPSRAQ    X4, Z8, Z8
	VPADDQ    Z5, Z6, Z6
	VPADDQ    Z7, Z8, Z8
	VPADDQ    (DI)(AX*1), Z6, Z6
	VPADDQ    Z6, Z8, Z8
	VMOVDQU64 Z8, (DI)(AX*1)
	ADDQ      $64, AX
	CMPQ      AX, CX
	JLT       loop
	VZEROUPPER
	RET
