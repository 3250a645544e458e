//go:build !purego

#include "textflag.h"
#include "avx512.h"

// The AVX-512 kernels on zmm registers: Mac16 and Mac16x2 (dot.go) with
// vpmaddwd + vpaddd (avx512bw) and with vpdpwssd (avx512vnni), and Mac8
// and Mac8x2 with vpdpbusd (avx512vnni). avx512.h has the macros each
// body is built from and what keeps a lane exact.
//
// Registers of the Mac16 kernels, as in mac16AVX2 (mac16_amd64.s):
//	DI   acc at the current column block
//	CX   columns left
//	SI   x at the current column block (x + 4 bytes a column)
//	R8   off, R9 w, R10 taps, R11 chunk
//	BX   tap index k, DX end of its chunk, AX off[k]
//	Z0–Z3  int32 lanes of columns +0–15, +16–31, +32–47, +48–63
//	Z4   w[k] broadcast to every dword
//	Z5–Z8  vpmaddwd results (avx512bw), the input's bytes (Mac8)
//	Z9, Z10  widened lanes
//
// The Mac16x2 kernels add R12 (acc1), hold row 0's lanes in Z0–Z3 and
// row 1's in Z4–Z7, the tap's operand pairs in Z8, Z11, Z12, Z13, w[2k]
// and w[2k+1] broadcast in Z14 and Z15, and vpmaddwd results in Z16–Z19.

// MAC16 is the body of a Mac16 kernel after its arguments are loaded.
#define MAC16 \
b64:; \
	CMPQ CX, $64; \
	JLT  b32; \
	XORQ BX, BX; \
c64:; \
	CHUNK_END(n64); \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
t64:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*4), Z4; \
	MAC((SI)(AX*XS), Z4, Z5, Z0); \
	MAC(64(SI)(AX*XS), Z4, Z6, Z1); \
	MAC(128(SI)(AX*XS), Z4, Z7, Z2); \
	MAC(192(SI)(AX*XS), Z4, Z8, Z3); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t64; \
	WIDEN16(Z0, Y0, 0, DI); \
	WIDEN16(Z1, Y1, 128, DI); \
	WIDEN16(Z2, Y2, 256, DI); \
	WIDEN16(Z3, Y3, 384, DI); \
	JMP c64; \
n64:; \
	ADDQ $512, DI; \
	ADDQ $256, SI; \
	SUBQ $64, CX; \
	JMP  b64; \
b32:; \
	CMPQ CX, $32; \
	JLT  b16; \
	XORQ BX, BX; \
c32:; \
	CHUNK_END(n32); \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
t32:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*4), Z4; \
	MAC((SI)(AX*XS), Z4, Z5, Z0); \
	MAC(64(SI)(AX*XS), Z4, Z6, Z1); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t32; \
	WIDEN16(Z0, Y0, 0, DI); \
	WIDEN16(Z1, Y1, 128, DI); \
	JMP c32; \
n32:; \
	ADDQ $256, DI; \
	ADDQ $128, SI; \
	SUBQ $32, CX; \
	JMP  b32; \
b16:; \
	CMPQ CX, $16; \
	JLT  b8; \
	XORQ BX, BX; \
c16:; \
	CHUNK_END(n16); \
	VPXORD Z0, Z0, Z0; \
t16:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*4), Z4; \
	MAC((SI)(AX*XS), Z4, Z5, Z0); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t16; \
	WIDEN16(Z0, Y0, 0, DI); \
	JMP c16; \
n16:; \
	ADDQ $128, DI; \
	ADDQ $64, SI; \
	SUBQ $16, CX; \
	JMP  b16; \
b8:; \
	CMPQ CX, $8; \
	JLT  done; \
	XORQ BX, BX; \
c8:; \
	CHUNK_END(n8); \
	VPXOR Y0, Y0, Y0; \
t8:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*4), Y4; \
	MAC((SI)(AX*XS), Y4, Y5, Y0); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t8; \
	WIDEN8(Y0, X0, DI); \
	JMP c8; \
n8:; \
	ADDQ $64, DI; \
	ADDQ $32, SI; \
	SUBQ $8, CX; \
	JMP  b8; \
done:; \
	VZEROUPPER; \
	RET

// MAC16X2 is the body of a Mac16x2 kernel after its arguments are loaded.
#define MAC16X2 \
b64:; \
	CMPQ CX, $64; \
	JLT  b32; \
	XORQ BX, BX; \
c64:; \
	CHUNK_END(n64); \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
t64:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*8), Z14; \
	VPBROADCASTD 4(R9)(BX*8), Z15; \
	VMOVDQU64    (SI)(AX*XS), Z8; \
	VMOVDQU64    64(SI)(AX*XS), Z11; \
	VMOVDQU64    128(SI)(AX*XS), Z12; \
	VMOVDQU64    192(SI)(AX*XS), Z13; \
	MACR(Z8, Z14, Z16, Z0); \
	MACR(Z8, Z15, Z17, Z4); \
	MACR(Z11, Z14, Z16, Z1); \
	MACR(Z11, Z15, Z17, Z5); \
	MACR(Z12, Z14, Z16, Z2); \
	MACR(Z12, Z15, Z17, Z6); \
	MACR(Z13, Z14, Z16, Z3); \
	MACR(Z13, Z15, Z17, Z7); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t64; \
	WIDEN16(Z0, Y0, 0, DI); \
	WIDEN16(Z1, Y1, 128, DI); \
	WIDEN16(Z2, Y2, 256, DI); \
	WIDEN16(Z3, Y3, 384, DI); \
	WIDEN16(Z4, Y4, 0, R12); \
	WIDEN16(Z5, Y5, 128, R12); \
	WIDEN16(Z6, Y6, 256, R12); \
	WIDEN16(Z7, Y7, 384, R12); \
	JMP c64; \
n64:; \
	ADDQ $512, DI; \
	ADDQ $512, R12; \
	ADDQ $256, SI; \
	SUBQ $64, CX; \
	JMP  b64; \
b32:; \
	CMPQ CX, $32; \
	JLT  b16; \
	XORQ BX, BX; \
c32:; \
	CHUNK_END(n32); \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
t32:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*8), Z14; \
	VPBROADCASTD 4(R9)(BX*8), Z15; \
	VMOVDQU64    (SI)(AX*XS), Z8; \
	VMOVDQU64    64(SI)(AX*XS), Z11; \
	MACR(Z8, Z14, Z16, Z0); \
	MACR(Z8, Z15, Z17, Z4); \
	MACR(Z11, Z14, Z18, Z1); \
	MACR(Z11, Z15, Z19, Z5); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t32; \
	WIDEN16(Z0, Y0, 0, DI); \
	WIDEN16(Z1, Y1, 128, DI); \
	WIDEN16(Z4, Y4, 0, R12); \
	WIDEN16(Z5, Y5, 128, R12); \
	JMP c32; \
n32:; \
	ADDQ $256, DI; \
	ADDQ $256, R12; \
	ADDQ $128, SI; \
	SUBQ $32, CX; \
	JMP  b32; \
b16:; \
	CMPQ CX, $16; \
	JLT  b8; \
	XORQ BX, BX; \
c16:; \
	CHUNK_END(n16); \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z4, Z4, Z4; \
t16:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*8), Z14; \
	VPBROADCASTD 4(R9)(BX*8), Z15; \
	VMOVDQU64    (SI)(AX*XS), Z8; \
	MACR(Z8, Z14, Z16, Z0); \
	MACR(Z8, Z15, Z17, Z4); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t16; \
	WIDEN16(Z0, Y0, 0, DI); \
	WIDEN16(Z4, Y4, 0, R12); \
	JMP c16; \
n16:; \
	ADDQ $128, DI; \
	ADDQ $128, R12; \
	ADDQ $64, SI; \
	SUBQ $16, CX; \
	JMP  b16; \
b8:; \
	CMPQ CX, $8; \
	JLT  done; \
	XORQ BX, BX; \
c8:; \
	CHUNK_END(n8); \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y4, Y4, Y4; \
t8:; \
	MOVLQSX      (R8)(BX*4), AX; \
	VPBROADCASTD (R9)(BX*8), Y14; \
	VPBROADCASTD 4(R9)(BX*8), Y15; \
	VMOVDQU      (SI)(AX*XS), Y8; \
	MACR(Y8, Y14, Y16, Y0); \
	MACR(Y8, Y15, Y17, Y4); \
	INCQ BX; \
	CMPQ BX, DX; \
	JLT  t8; \
	WIDEN8(Y0, X0, DI); \
	WIDEN8(Y4, X4, R12); \
	JMP c8; \
n8:; \
	ADDQ $64, DI; \
	ADDQ $64, R12; \
	ADDQ $32, SI; \
	SUBQ $8, CX; \
	JMP  b8; \
done:; \
	VZEROUPPER; \
	RET

// PEAK is the body of a peak loop after CX holds its rounds: MAC on
// registers, 4 zmm of 32 products a round (PeakRound), two rounds an
// iteration over 8 independent lanes, and a last half for an odd count.
#define PEAK \
	VPTERNLOGD $0xff, Z8, Z8, Z8; \
	VPSRLW     $15, Z8, Z8; \
	VMOVDQU64  Z8, Z9; \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	MOVQ CX, DX; \
	SHRQ $1, CX; \
round:; \
	TESTQ CX, CX; \
	JZ    half; \
	MACR(Z8, Z9, Z10, Z0); \
	MACR(Z8, Z9, Z11, Z1); \
	MACR(Z8, Z9, Z12, Z2); \
	MACR(Z8, Z9, Z13, Z3); \
	MACR(Z8, Z9, Z10, Z4); \
	MACR(Z8, Z9, Z11, Z5); \
	MACR(Z8, Z9, Z12, Z6); \
	MACR(Z8, Z9, Z13, Z7); \
	DECQ CX; \
	JMP  round; \
half:; \
	TESTQ $1, DX; \
	JZ    peakdone; \
	MACR(Z8, Z9, Z10, Z0); \
	MACR(Z8, Z9, Z11, Z1); \
	MACR(Z8, Z9, Z12, Z2); \
	MACR(Z8, Z9, Z13, Z3); \
peakdone:; \
	VZEROUPPER; \
	RET

// avx512bw: vpmaddwd into tmp, then vpaddd into the lane; offsets count
// int16s.
#define XS 2
#define MAC(src, w, tmp, acc) VPMADDWD src, w, tmp; VPADDD tmp, acc, acc
#define MACR MAC

// func mac16AVX512BW(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)
TEXT ·mac16AVX512BW(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ taps+40(FP), R10
	MOVQ chunk+48(FP), R11
	MAC16

// func mac16x2AVX512BW(acc0, acc1 *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)
TEXT ·mac16x2AVX512BW(SB), NOSPLIT, $0-64
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R12
	MOVQ n+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ off+32(FP), R8
	MOVQ w+40(FP), R9
	MOVQ taps+48(FP), R10
	MOVQ chunk+56(FP), R11
	MAC16X2

// func peakAVX512BW(n int)
TEXT ·peakAVX512BW(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	PEAK

#undef MAC
#undef MACR

// avx512vnni, int16 pairs: one vpdpwssd, the pair sum added into the lane
// in place.
#define MAC(src, w, tmp, acc) VPDPWSSD src, w, acc
#define MACR MAC

// func mac16AVX512VNNI(acc *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)
TEXT ·mac16AVX512VNNI(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ taps+40(FP), R10
	MOVQ chunk+48(FP), R11
	MAC16

// func mac16x2AVX512VNNI(acc0, acc1 *int64, n int, x *int16, off *int32, w *uint32, taps, chunk int)
TEXT ·mac16x2AVX512VNNI(SB), NOSPLIT, $0-64
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R12
	MOVQ n+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ off+32(FP), R8
	MOVQ w+40(FP), R9
	MOVQ taps+48(FP), R10
	MOVQ chunk+56(FP), R11
	MAC16X2

// func peakAVX512VNNI(n int)
TEXT ·peakAVX512VNNI(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	PEAK

#undef XS
#undef MAC
#undef MACR

// avx512vnni, u8 quads (Mac8): vpdpbusd takes its unsigned bytes from a
// register and its signed ones from the other source, so the input's
// bytes are loaded into tmp and the tap's broadcast weights w are the
// signed operand; offsets count bytes.
#define XS 1
#define MAC(src, w, tmp, acc) VMOVDQU64 src, tmp; VPDPBUSD w, tmp, acc
#define MACR(src, w, tmp, acc) VPDPBUSD w, src, acc

// func mac8AVX512VNNI(acc *int64, n int, x *uint8, off *int32, w *uint32, taps, chunk int)
TEXT ·mac8AVX512VNNI(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ taps+40(FP), R10
	MOVQ chunk+48(FP), R11
	MAC16

// func mac8x2AVX512VNNI(acc0, acc1 *int64, n int, x *uint8, off *int32, w *uint32, taps, chunk int)
TEXT ·mac8x2AVX512VNNI(SB), NOSPLIT, $0-64
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), R12
	MOVQ n+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ off+32(FP), R8
	MOVQ w+40(FP), R9
	MOVQ taps+48(FP), R10
	MOVQ chunk+56(FP), R11
	MAC16X2

// func peak8AVX512VNNI(n int)
TEXT ·peak8AVX512VNNI(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	PEAK
