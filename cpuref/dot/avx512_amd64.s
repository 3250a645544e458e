//go:build !purego

#include "textflag.h"
#include "avx512.h"

// The AVX-512 kernels on zmm registers: Mac16 (dot.go) with
// vpmaddwd + vpaddd (avx512bw) and with vpdpwssd (avx512vnni), and Mac8
// with vpdpbusd (avx512vnni). avx512.h has the macros each
// body is built from and what keeps a lane exact.
//
// Registers of the Mac16 kernels, as in mac16AVX2 (mac16_amd64.s):
//	DI   acc at the current column block
//	CX   columns left
//	SI   x at the current column block (x + 4 bytes a column)
//	R8   off, R9 w, R10 taps, R11 chunk
//	BX   tap index k, DX end of its chunk, AX off[k], R13 k + 4
//	Z0–Z3  int32 lanes of columns +0–15, +16–31, +32–47, +48–63 (set A)
//	Z11–Z14, Z16–Z19, Z20–Z23  the same for sets B, C and D (MAC16)
//	Z4, Z15, Z24, Z25  w[k], …, w[k+3] broadcast to every dword
//	Z5–Z8  vpmaddwd results (avx512bw), the input's bytes (Mac8)
//	Z9, Z10  widened lanes
//
// The T64, T32, T16 and T8 macros add one tap, at o bytes past tap k's
// entries of off and w, into one accumulator set: its weights broadcast
// into bc and MAC'd with the 64, 32, 16 or 8 columns' operands.
#define T64(o, bc, a0, a1, a2, a3) \
	MOVLQSX      o(R8)(BX*4), AX; \
	VPBROADCASTD o(R9)(BX*4), bc; \
	MAC((SI)(AX*XS), bc, Z5, a0); \
	MAC(64(SI)(AX*XS), bc, Z6, a1); \
	MAC(128(SI)(AX*XS), bc, Z7, a2); \
	MAC(192(SI)(AX*XS), bc, Z8, a3)

#define T32(o, bc, a0, a1) \
	MOVLQSX      o(R8)(BX*4), AX; \
	VPBROADCASTD o(R9)(BX*4), bc; \
	MAC((SI)(AX*XS), bc, Z5, a0); \
	MAC(64(SI)(AX*XS), bc, Z6, a1)

#define T16(o, bc, a0) \
	MOVLQSX      o(R8)(BX*4), AX; \
	VPBROADCASTD o(R9)(BX*4), bc; \
	MAC((SI)(AX*XS), bc, Z5, a0)

#define T8(o, bc, a0) \
	MOVLQSX      o(R8)(BX*4), AX; \
	VPBROADCASTD o(R9)(BX*4), bc; \
	MAC((SI)(AX*XS), bc, Y5, a0)

// QUAD jumps to rest unless four taps from k remain in the chunk
// (k + 4 ≤ DX), leaving k + 4 in R13.
#define QUAD(rest) \
	LEAQ 4(BX), R13; \
	CMPQ R13, DX; \
	JGT  rest

// MAC16 is the body of a Mac16 kernel after its arguments are loaded.
// Within a chunk the taps go four at a time into four accumulator sets,
// A (Z0–Z3), B (Z11–Z14), C (Z16–Z19) and D (Z20–Z23), with their
// weights broadcast in Z4, Z15, Z24 and Z25, so that four times as many
// independent chains hide vpdpwssd's latency (one set alone waits on its
// own previous sum); a chunk's last taps short of four go into A. The
// sets are added into A at the chunk's end: each lane of each set holds
// the sum of a subset of the chunk's products modulo 2^32, so A then
// holds the chunk's sum modulo 2^32, which is the sum itself because
// Choose16's (Choose8's) chunk keeps every sum of its products in i32.
#define MAC16 \
b64:; \
	CMPQ CX, $64; \
	JLT  b32; \
	XORQ BX, BX; \
c64:; \
	CHUNK_END(n64); \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z11, Z11, Z11; VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; \
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23; \
q64:; \
	QUAD(s64); \
	T64(0, Z4, Z0, Z1, Z2, Z3); \
	T64(4, Z15, Z11, Z12, Z13, Z14); \
	T64(8, Z24, Z16, Z17, Z18, Z19); \
	T64(12, Z25, Z20, Z21, Z22, Z23); \
	MOVQ R13, BX; \
	JMP  q64; \
s64:; \
	CMPQ BX, DX; \
	JGE  f64; \
	T64(0, Z4, Z0, Z1, Z2, Z3); \
	INCQ BX; \
	JMP  s64; \
f64:; \
	VPADDD Z11, Z0, Z0; VPADDD Z16, Z0, Z0; VPADDD Z20, Z0, Z0; \
	VPADDD Z12, Z1, Z1; VPADDD Z17, Z1, Z1; VPADDD Z21, Z1, Z1; \
	VPADDD Z13, Z2, Z2; VPADDD Z18, Z2, Z2; VPADDD Z22, Z2, Z2; \
	VPADDD Z14, Z3, Z3; VPADDD Z19, Z3, Z3; VPADDD Z23, Z3, Z3; \
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
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z11, Z11, Z11; VPXORD Z12, Z12, Z12; \
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; \
q32:; \
	QUAD(s32); \
	T32(0, Z4, Z0, Z1); \
	T32(4, Z15, Z11, Z12); \
	T32(8, Z24, Z16, Z17); \
	T32(12, Z25, Z20, Z21); \
	MOVQ R13, BX; \
	JMP  q32; \
s32:; \
	CMPQ BX, DX; \
	JGE  f32; \
	T32(0, Z4, Z0, Z1); \
	INCQ BX; \
	JMP  s32; \
f32:; \
	VPADDD Z11, Z0, Z0; VPADDD Z16, Z0, Z0; VPADDD Z20, Z0, Z0; \
	VPADDD Z12, Z1, Z1; VPADDD Z17, Z1, Z1; VPADDD Z21, Z1, Z1; \
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
	VPXORD Z0, Z0, Z0; VPXORD Z11, Z11, Z11; VPXORD Z16, Z16, Z16; VPXORD Z20, Z20, Z20; \
q16:; \
	QUAD(s16); \
	T16(0, Z4, Z0); \
	T16(4, Z15, Z11); \
	T16(8, Z24, Z16); \
	T16(12, Z25, Z20); \
	MOVQ R13, BX; \
	JMP  q16; \
s16:; \
	CMPQ BX, DX; \
	JGE  f16; \
	T16(0, Z4, Z0); \
	INCQ BX; \
	JMP  s16; \
f16:; \
	VPADDD Z11, Z0, Z0; VPADDD Z16, Z0, Z0; VPADDD Z20, Z0, Z0; \
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
	VPXORD Y0, Y0, Y0; VPXORD Y11, Y11, Y11; VPXORD Y16, Y16, Y16; VPXORD Y20, Y20, Y20; \
q8:; \
	QUAD(s8); \
	T8(0, Y4, Y0); \
	T8(4, Y15, Y11); \
	T8(8, Y24, Y16); \
	T8(12, Y25, Y20); \
	MOVQ R13, BX; \
	JMP  q8; \
s8:; \
	CMPQ BX, DX; \
	JGE  f8; \
	T8(0, Y4, Y0); \
	INCQ BX; \
	JMP  s8; \
f8:; \
	VPADDD Y11, Y0, Y0; VPADDD Y16, Y0, Y0; VPADDD Y20, Y0, Y0; \
	WIDEN8(Y0, X0, DI); \
	JMP c8; \
n8:; \
	ADDQ $64, DI; \
	ADDQ $32, SI; \
	SUBQ $8, CX; \
	JMP  b8; \
done:; \
	CLEAN; \
	VZEROUPPER; \
	RET

// avx512bw: vpmaddwd into tmp, then vpaddd into the lane; offsets count
// int16s.
#define XS 2
#define MAC(src, w, tmp, acc) VPMADDWD src, w, tmp; VPADDD tmp, acc, acc

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

#undef MAC

// avx512vnni, int16 pairs: one vpdpwssd, the pair sum added into the lane
// in place.
#define MAC(src, w, tmp, acc) VPDPWSSD src, w, acc

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

#undef XS
#undef MAC

// avx512vnni, u8 quads (Mac8): vpdpbusd takes its unsigned bytes from a
// register and its signed ones from the other source, so the input's
// bytes are loaded into tmp and the tap's broadcast weights w are the
// signed operand; offsets count bytes.
#define XS 1
#define MAC(src, w, tmp, acc) VMOVDQU64 src, tmp; VPDPBUSD w, tmp, acc

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

