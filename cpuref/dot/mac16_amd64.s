//go:build !purego

#include "textflag.h"

// func mac16AVX2(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)
//
// Mac16 (dot.go) with vpmaddwd + vpaddd. Column t's operand pair for tap
// k is the dword at byte (off[k] + 2t)·2 of x, so one 32-byte load holds
// the pairs of 8 consecutive columns, and vpmaddwd against the tap's
// broadcast weight pair gives each column's two products summed in its
// int32 lane. Columns go 32 at a time (four lane registers), then 8 at a
// time. Within a block the taps run in chunks of at most chunk taps; after
// each chunk the lanes are sign-extended to int64 and added into acc.
// Choose16's chunk keeps every lane's partial sums in i32 (dot.go).
//
// Registers:
//	DI   acc at the current column block
//	CX   columns left
//	SI   x at the current column block (x + 4·column)
//	R8   off
//	R9   w
//	R10  taps
//	R11  chunk
//	BX   tap index k
//	DX   end of the current chunk, min(k + chunk, taps)
//	AX   off[k]
//	Y0–Y3  int32 lanes of columns +0–7, +8–15, +16–23, +24–31
//	Y4   w[k] broadcast to every dword
//	Y5–Y8  vpmaddwd results, then widened lanes
TEXT ·mac16AVX2(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ taps+40(FP), R10
	MOVQ chunk+48(FP), R11

block32:
	CMPQ CX, $32
	JLT  block8
	XORQ BX, BX

chunk32:
	CMPQ BX, R10
	JGE  next32
	MOVQ BX, DX
	ADDQ R11, DX
	CMPQ DX, R10
	CMOVQGT R10, DX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

tap32:
	MOVLQSX      (R8)(BX*4), AX
	VPBROADCASTD (R9)(BX*4), Y4
	VPMADDWD     (SI)(AX*2), Y4, Y5
	VPADDD       Y5, Y0, Y0
	VPMADDWD     32(SI)(AX*2), Y4, Y6
	VPADDD       Y6, Y1, Y1
	VPMADDWD     64(SI)(AX*2), Y4, Y7
	VPADDD       Y7, Y2, Y2
	VPMADDWD     96(SI)(AX*2), Y4, Y8
	VPADDD       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, DX
	JLT          tap32

	// Widen: lanes 0–3 and 4–7 of each register into two int64 quads.
	VPMOVSXDQ    X0, Y5
	VPADDQ       (DI), Y5, Y5
	VMOVDQU      Y5, (DI)
	VEXTRACTI128 $1, Y0, X6
	VPMOVSXDQ    X6, Y6
	VPADDQ       32(DI), Y6, Y6
	VMOVDQU      Y6, 32(DI)
	VPMOVSXDQ    X1, Y5
	VPADDQ       64(DI), Y5, Y5
	VMOVDQU      Y5, 64(DI)
	VEXTRACTI128 $1, Y1, X6
	VPMOVSXDQ    X6, Y6
	VPADDQ       96(DI), Y6, Y6
	VMOVDQU      Y6, 96(DI)
	VPMOVSXDQ    X2, Y5
	VPADDQ       128(DI), Y5, Y5
	VMOVDQU      Y5, 128(DI)
	VEXTRACTI128 $1, Y2, X6
	VPMOVSXDQ    X6, Y6
	VPADDQ       160(DI), Y6, Y6
	VMOVDQU      Y6, 160(DI)
	VPMOVSXDQ    X3, Y5
	VPADDQ       192(DI), Y5, Y5
	VMOVDQU      Y5, 192(DI)
	VEXTRACTI128 $1, Y3, X6
	VPMOVSXDQ    X6, Y6
	VPADDQ       224(DI), Y6, Y6
	VMOVDQU      Y6, 224(DI)
	JMP          chunk32

next32:
	ADDQ $256, DI
	ADDQ $128, SI
	SUBQ $32, CX
	JMP  block32

block8:
	CMPQ CX, $8
	JLT  done
	XORQ BX, BX

chunk8:
	CMPQ BX, R10
	JGE  next8
	MOVQ BX, DX
	ADDQ R11, DX
	CMPQ DX, R10
	CMOVQGT R10, DX
	VPXOR Y0, Y0, Y0

tap8:
	MOVLQSX      (R8)(BX*4), AX
	VPBROADCASTD (R9)(BX*4), Y4
	VPMADDWD     (SI)(AX*2), Y4, Y5
	VPADDD       Y5, Y0, Y0
	INCQ         BX
	CMPQ         BX, DX
	JLT          tap8

	VPMOVSXDQ    X0, Y5
	VPADDQ       (DI), Y5, Y5
	VMOVDQU      Y5, (DI)
	VEXTRACTI128 $1, Y0, X6
	VPMOVSXDQ    X6, Y6
	VPADDQ       32(DI), Y6, Y6
	VMOVDQU      Y6, 32(DI)
	JMP          chunk8

next8:
	ADDQ $64, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JMP  block8

done:
	VZEROUPPER
	RET
