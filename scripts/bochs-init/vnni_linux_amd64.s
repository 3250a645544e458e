#include "textflag.h"

// func vpdpwssd(acc *[16]int32, a, b *[32]int16)
TEXT ·vpdpwssd(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), AX
	MOVQ a+8(FP), BX
	MOVQ b+16(FP), CX
	VMOVDQU32 (AX), Z0
	VMOVDQU16 (BX), Z1
	VMOVDQU16 (CX), Z2
	// Go operand order: Z0 += Z1·Z2 (Intel: vpdpwssd zmm0, zmm1, zmm2).
	VPDPWSSD Z2, Z1, Z0
	VMOVDQU32 Z0, (AX)
	VZEROUPPER
	RET

// func vpdpwssdMasked(acc *[16]int32, a, b *[32]int16, m uint16)
TEXT ·vpdpwssdMasked(SB), NOSPLIT, $0-26
	MOVQ acc+0(FP), AX
	MOVQ a+8(FP), BX
	MOVQ b+16(FP), CX
	KMOVW m+24(FP), K1
	VMOVDQU32 (AX), Z0
	VMOVDQU16 (BX), Z1
	VMOVDQU16 (CX), Z2
	VPDPWSSD Z2, Z1, K1, Z0
	VMOVDQU32 Z0, (AX)
	VZEROUPPER
	RET
