//go:build !purego

#include "textflag.h"

// The igdn kernels (norm.go): Terms with vpmaddwd, a shift and an add per
// term, and Root with a bit-by-bit isqrt and a 64-bit product, on zmm
// (AVX-512 F, BW, VL) and on ymm (AVX2).
//
// Terms. One column block is 32 positions (Cols), one group is Rows = 4
// output rows, so a group's N lives in 8 zmm (or, on ymm, 16 positions in 8
// ymm, two passes a block). For input row j, the block's x2 are loaded once
// and each row's γ[i][j] is broadcast to every dword; vpmaddwd against the
// dword pair (x2, 0) and (γ, hi) gives γ·x2 + hi·0 = γ·x2 exactly (Terms'
// bounds: x2 < 2^15, γ ∈ i16, so the product fits i32), vpsrad by gf
// floors it (§2; the count is min(gf, 31), whose result is the sign for
// gf ≥ 31, the floor of a value in i32), and vpaddd adds the term. Every
// partial sum lies in i32 (the caller's proof), so no lane wraps. The γ of
// a group are contiguous, Rows per input row, and the groups follow each
// other, so AX walks them once per column block.
//
// Registers of terms*:
//	DI   n            SI   x2          R8   γ (packed)    R9   β
//	R10  end of β     R11  c           R13  row stride (4·m bytes)
//	CX   column byte offset of the block
//	AX   γ at the current group and input row
//	BX   β at the current group
//	DX   n at the current group's first row
//	R12  x2 at the current input row
//	R14  input rows left
//	X12  the shift count gf

// TERM512 adds row r's terms into its accumulators a0 (columns 0–15) and
// a1 (16–31): o is r's byte offset in AX's four γ.
#define TERM512(o, a0, a1) \
	VPBROADCASTD o(AX), Z13; \
	VPMADDWD     Z8, Z13, Z10; \
	VPMADDWD     Z9, Z13, Z11; \
	VPSRAD       X12, Z10, Z10; \
	VPSRAD       X12, Z11, Z11; \
	VPADDD       Z10, a0, a0; \
	VPADDD       Z11, a1, a1

// func termsAVX512(n, x2, gam, beta *int32, groups, c, m int, gf uint64)
TEXT ·termsAVX512(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), DI
	MOVQ x2+8(FP), SI
	MOVQ gam+16(FP), R8
	MOVQ beta+24(FP), R9
	MOVQ groups+32(FP), R10
	MOVQ c+40(FP), R11
	MOVQ m+48(FP), R13
	MOVQ gf+56(FP), X12
	SHLQ $2, R13
	SHLQ $4, R10
	ADDQ R9, R10
	XORQ CX, CX

tcol512:
	CMPQ CX, R13
	JGE  tdone512
	MOVQ R8, AX
	MOVQ R9, BX
	LEAQ (DI)(CX*1), DX

tgroup512:
	VPBROADCASTD 0(BX), Z0
	VMOVDQA64    Z0, Z1
	VPBROADCASTD 4(BX), Z2
	VMOVDQA64    Z2, Z3
	VPBROADCASTD 8(BX), Z4
	VMOVDQA64    Z4, Z5
	VPBROADCASTD 12(BX), Z6
	VMOVDQA64    Z6, Z7
	LEAQ         (SI)(CX*1), R12
	MOVQ         R11, R14

ttap512:
	VMOVDQU32 (R12), Z8
	VMOVDQU32 64(R12), Z9
	TERM512(0, Z0, Z1)
	TERM512(4, Z2, Z3)
	TERM512(8, Z4, Z5)
	TERM512(12, Z6, Z7)
	ADDQ      $16, AX
	ADDQ      R13, R12
	DECQ      R14
	JNZ       ttap512

	VMOVDQU32 Z0, (DX)
	VMOVDQU32 Z1, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z2, (DX)
	VMOVDQU32 Z3, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z4, (DX)
	VMOVDQU32 Z5, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z6, (DX)
	VMOVDQU32 Z7, 64(DX)
	ADDQ      R13, DX
	ADDQ      $16, BX
	CMPQ      BX, R10
	JLT       tgroup512
	ADDQ      $128, CX
	JMP       tcol512

tdone512:
	VZEROUPPER
	RET

// termsHi (PackHi's form). The same blocks and groups as termsAVX512,
// with 16-bit lanes: a block's 32 x2 are narrowed to words by one
// vpackssdw (exact: each is below 2^15) and, for each row, vpmulhw against
// the broadcast γ' = γ·2^(16−gf) gives the 32 floored terms ⌊x2·γ'/2^16⌋
// = ⌊γ·x2/2^gf⌋ in one instruction; vpaddw sums them in the row's word
// lanes for at most chunk input rows, where PackHi's chunk keeps every
// such partial sum in i16 (so no lane wraps), and then each word lane is
// sign-extended and added into the row's dword lanes (Z0–Z7, as in
// termsAVX512), which start at β. The pack leaves the words in its own
// order, each 128-bit lane holding four columns of the low 16 and then
// the same four of the high 16; every column is summed apart, so the
// order matters only at the widening, where vpunpck[lh]wd of a word lane
// with itself and a shift right by 16 give the sign-extended words of the
// low and of the high 16 columns, each back in column order.
//
// Registers as termsAVX512's, and:
//	R11  input rows left in this chunk
//	R14  input rows left after it
//	Z16–Z19  the four rows' word lanes
// c and chunk are read from the arguments again for each group.

// HTERM adds row r's 32 terms (o is r's byte offset in AX's four γ') into
// its word lanes a.
#define HTERM(o, a) \
	VPBROADCASTD o(AX), Z13; \
	VPMULHW      Z8, Z13, Z10; \
	VPADDW       Z10, a, a

// WIDENW adds word lanes a, in the pack's order, into dword lanes lo
// (columns 0–15) and hi (16–31).
#define WIDENW(a, lo, hi) \
	VPUNPCKLWD a, a, Z10; \
	VPSRAD     $16, Z10, Z10; \
	VPADDD     Z10, lo, lo; \
	VPUNPCKHWD a, a, Z11; \
	VPSRAD     $16, Z11, Z11; \
	VPADDD     Z11, hi, hi

// func termsHiAVX512(n, x2, gam, beta *int32, groups, c, m, chunk int)
TEXT ·termsHiAVX512(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), DI
	MOVQ x2+8(FP), SI
	MOVQ gam+16(FP), R8
	MOVQ beta+24(FP), R9
	MOVQ groups+32(FP), R10
	MOVQ m+48(FP), R13
	SHLQ $2, R13
	SHLQ $4, R10
	ADDQ R9, R10
	XORQ CX, CX

hcol:
	CMPQ CX, R13
	JGE  hdone
	MOVQ R8, AX
	MOVQ R9, BX
	LEAQ (DI)(CX*1), DX

hgroup:
	VPBROADCASTD 0(BX), Z0
	VMOVDQA64    Z0, Z1
	VPBROADCASTD 4(BX), Z2
	VMOVDQA64    Z2, Z3
	VPBROADCASTD 8(BX), Z4
	VMOVDQA64    Z4, Z5
	VPBROADCASTD 12(BX), Z6
	VMOVDQA64    Z6, Z7
	LEAQ         (SI)(CX*1), R12
	MOVQ         c+40(FP), R14

hchunk:
	MOVQ    chunk+56(FP), R11
	CMPQ    R11, R14
	CMOVQGT R14, R11
	SUBQ    R11, R14
	VPXORD  Z16, Z16, Z16
	VPXORD  Z17, Z17, Z17
	VPXORD  Z18, Z18, Z18
	VPXORD  Z19, Z19, Z19

htap:
	VMOVDQU32 (R12), Z8
	VPACKSSDW 64(R12), Z8, Z8
	HTERM(0, Z16)
	HTERM(4, Z17)
	HTERM(8, Z18)
	HTERM(12, Z19)
	ADDQ         $16, AX
	ADDQ         R13, R12
	DECQ         R11
	JNZ          htap

	WIDENW(Z16, Z0, Z1)
	WIDENW(Z17, Z2, Z3)
	WIDENW(Z18, Z4, Z5)
	WIDENW(Z19, Z6, Z7)
	TESTQ R14, R14
	JNZ   hchunk

	VMOVDQU32 Z0, (DX)
	VMOVDQU32 Z1, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z2, (DX)
	VMOVDQU32 Z3, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z4, (DX)
	VMOVDQU32 Z5, 64(DX)
	ADDQ      R13, DX
	VMOVDQU32 Z6, (DX)
	VMOVDQU32 Z7, 64(DX)
	ADDQ      R13, DX
	ADDQ      $16, BX
	CMPQ      BX, R10
	JLT       hgroup
	ADDQ      $128, CX
	JMP       hcol

hdone:
	VZEROUPPER
	RET

// termsHiAVX2 is termsHiAVX512 on ymm: 16 columns a pass (two a block),
// narrowed by vpackssdw (exact: every x2 < 2^15) and put back in column
// order by vpermq, word lanes Y8–Y11, dword lanes Y0–Y7.

// HTERM2 is HTERM on ymm.
#define HTERM2(o, a) \
	VPBROADCASTD o(AX), Y13; \
	VPMULHW      Y12, Y13, Y13; \
	VPADDW       Y13, a, a

// WIDENW2 is WIDENW on ymm: ax is a's low half (columns 0–7).
#define WIDENW2(a, ax, lo, hi) \
	VPMOVSXWD    ax, Y14; \
	VPADDD       Y14, lo, lo; \
	VEXTRACTI128 $1, a, X15; \
	VPMOVSXWD    X15, Y15; \
	VPADDD       Y15, hi, hi

// func termsHiAVX2(n, x2, gam, beta *int32, groups, c, m, chunk int)
TEXT ·termsHiAVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), DI
	MOVQ x2+8(FP), SI
	MOVQ gam+16(FP), R8
	MOVQ beta+24(FP), R9
	MOVQ groups+32(FP), R10
	MOVQ m+48(FP), R13
	SHLQ $2, R13
	SHLQ $4, R10
	ADDQ R9, R10
	XORQ CX, CX

h2col:
	CMPQ CX, R13
	JGE  h2done
	MOVQ R8, AX
	MOVQ R9, BX
	LEAQ (DI)(CX*1), DX

h2group:
	VPBROADCASTD 0(BX), Y0
	VMOVDQA      Y0, Y1
	VPBROADCASTD 4(BX), Y2
	VMOVDQA      Y2, Y3
	VPBROADCASTD 8(BX), Y4
	VMOVDQA      Y4, Y5
	VPBROADCASTD 12(BX), Y6
	VMOVDQA      Y6, Y7
	LEAQ         (SI)(CX*1), R12
	MOVQ         c+40(FP), R14

h2chunk:
	MOVQ    chunk+56(FP), R11
	CMPQ    R11, R14
	CMOVQGT R14, R11
	SUBQ    R11, R14
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	VPXOR   Y10, Y10, Y10
	VPXOR   Y11, Y11, Y11

h2tap:
	VMOVDQU   (R12), Y14
	VMOVDQU   32(R12), Y15
	VPACKSSDW Y15, Y14, Y12
	VPERMQ    $0xD8, Y12, Y12
	HTERM2(0, Y8)
	HTERM2(4, Y9)
	HTERM2(8, Y10)
	HTERM2(12, Y11)
	ADDQ      $16, AX
	ADDQ      R13, R12
	DECQ      R11
	JNZ       h2tap

	WIDENW2(Y8, X8, Y0, Y1)
	WIDENW2(Y9, X9, Y2, Y3)
	WIDENW2(Y10, X10, Y4, Y5)
	WIDENW2(Y11, X11, Y6, Y7)
	TESTQ R14, R14
	JNZ   h2chunk

	VMOVDQU Y0, (DX)
	VMOVDQU Y1, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y2, (DX)
	VMOVDQU Y3, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y4, (DX)
	VMOVDQU Y5, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y6, (DX)
	VMOVDQU Y7, 32(DX)
	ADDQ    R13, DX
	ADDQ    $16, BX
	CMPQ    BX, R10
	JLT     h2group
	ADDQ    $64, CX
	JMP     h2col

h2done:
	VZEROUPPER
	RET

// TERM2 is TERM512 on ymm: columns 0–7 and 8–15 of a 16-column pass.
#define TERM2(o, a0, a1) \
	VPBROADCASTD o(AX), Y13; \
	VPMADDWD     Y8, Y13, Y10; \
	VPMADDWD     Y9, Y13, Y11; \
	VPSRAD       X12, Y10, Y10; \
	VPSRAD       X12, Y11, Y11; \
	VPADDD       Y10, a0, a0; \
	VPADDD       Y11, a1, a1

// func termsAVX2(n, x2, gam, beta *int32, groups, c, m int, gf uint64)
TEXT ·termsAVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), DI
	MOVQ x2+8(FP), SI
	MOVQ gam+16(FP), R8
	MOVQ beta+24(FP), R9
	MOVQ groups+32(FP), R10
	MOVQ c+40(FP), R11
	MOVQ m+48(FP), R13
	MOVQ gf+56(FP), X12
	SHLQ $2, R13
	SHLQ $4, R10
	ADDQ R9, R10
	XORQ CX, CX

tcol2:
	CMPQ CX, R13
	JGE  tdone2
	MOVQ R8, AX
	MOVQ R9, BX
	LEAQ (DI)(CX*1), DX

tgroup2:
	VPBROADCASTD 0(BX), Y0
	VMOVDQA      Y0, Y1
	VPBROADCASTD 4(BX), Y2
	VMOVDQA      Y2, Y3
	VPBROADCASTD 8(BX), Y4
	VMOVDQA      Y4, Y5
	VPBROADCASTD 12(BX), Y6
	VMOVDQA      Y6, Y7
	LEAQ         (SI)(CX*1), R12
	MOVQ         R11, R14

ttap2:
	VMOVDQU (R12), Y8
	VMOVDQU 32(R12), Y9
	TERM2(0, Y0, Y1)
	TERM2(4, Y2, Y3)
	TERM2(8, Y4, Y5)
	TERM2(12, Y6, Y7)
	ADDQ    $16, AX
	ADDQ    R13, R12
	DECQ    R14
	JNZ     ttap2

	VMOVDQU Y0, (DX)
	VMOVDQU Y1, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y2, (DX)
	VMOVDQU Y3, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y4, (DX)
	VMOVDQU Y5, 32(DX)
	ADDQ    R13, DX
	VMOVDQU Y6, (DX)
	VMOVDQU Y7, 32(DX)
	ADDQ    R13, DX
	ADDQ    $16, BX
	CMPQ    BX, R10
	JLT     tgroup2
	ADDQ    $64, CX
	JMP     tcol2

tdone2:
	VZEROUPPER
	RET

// Root. Per element, v = max(0, N) and r = isqrt(v) (§2). The AVX-512
// kernel settles r by the restoring digit-by-digit method, with no
// multiply; the AVX2 one bit by bit as norm.go's isqrtBits (see ISQRT2).
// Then the low dword of x (x itself: x ∈ i32) times r is one signed
// 32 × 32 → 64 product (vpmuldq; |x·r| < 2^47), shifted right
// arithmetically by frac ≤ 63: the floor (§2). AVX2 has no 64-bit
// arithmetic shift; it takes ~(~p >> frac) for p < 0, the same floor. Two
// independent vectors go at once, so that one chain's latency hides the
// other's.
//
// The restoring method. Let R be the root's bits settled so far, those
// above bit s, op = v − R² and res = R·2^(s+1). Step s keeps the bit 2^s
// when (R + 2^s)² ≤ v, that is when op ≥ 2·R·2^s + 4^s = res + 4^s = t;
// then op −= t and R += 2^s. The next step's res is R'·2^s: res/2 + 4^s
// where the bit was kept, res/2 where not (res is even). After step 0,
// res = R·2^0 = r: the bits are those isqrtBits settles, the largest
// r < 2^bits with r² ≤ v, which for v < 2^(2·bits) is isqrt(v). A step is
// five instructions a vector (t, the compare, the masked subtract from
// op, the shift of res, the masked add to it) and one shared (4^s, shifted
// down by two).
//
// Widths. R ≤ isqrt(v) < R + 2^(s+1) and R ≤ 2^bits − 2^(s+1) before step
// s, so op < (R + 2^(s+1))² − R² ≤ 2^(bits+s+2) − 4^(s+1), res < 2^(bits+s+1)
// and t = (R + 2^s)² − R² < 2^(bits+s+1). With bits ≤ 16 and s < bits,
// every one is below 2^32 and exact in an unsigned dword, compared
// unsigned. For s ≤ 14 − bits every one is below 2^16: those steps (the
// last w = min(bits − 2, 15 − bits) of them, where positive) run in
// unsigned word lanes, the two vectors' op and res packed into one
// (vpackusdw, exact: each is below 2^16) and res unpacked after
// (vpunpck[lh]wd with zero, which undoes the pack's lane order), so that
// a step is half the instructions an element.
//
// The top two bits come from a table instead of two steps. With k =
// 2·bits − 4, the top four bits of v's 2·bits, i = ⌊v / 2^k⌋ < 16, have
// isqrt(i) = ⌊isqrt(v) / 2^(bits−2)⌋ (the floor of the root of a floor is
// the floor of the root: ⌊√⌊v/4^j⌋⌋ = ⌊√v / 2^j⌋ for j = bits − 2), which
// is R after the steps bits − 1 and bits − 2. One vpermd from isqrt4 and
// one from its squares, both shifted up by k, give res = R·2^(bits−2) =
// isqrt(i)·2^k and R² = isqrt(i)²·2^k (9·2^28 < 2^32 at most): the state
// before step bits − 3, from which bits − 2 steps remain. For bits ≤ 2, k
// = 0 and i = v < 16 with isqrt(i) the whole root: no step remains.
//
// Registers of root*:
//	DI   out          SI   x           R8   n          R12  elements left
//	R9   dword steps (AVX-512), bits (AVX2)    R14  word steps
//	R10  steps left in this block's isqrt
//	X11  k            X12  frac        Z14/Y14  zero
//	Z13  4^(bits−3) in dwords          Z17  4^(w−1) in words
//	Z15  isqrt4·2^k   Z16  its squares·2^k   Z18, Z19  spread
//	Y13  the top bit 2^(bits−1) (AVX2)

// RESTORE(op, res, t, k) is step s of the restoring method in the dword
// lanes of op, with Z2 = 4^s; it leaves res shifted for step s − 1.
#define RESTORE(op, res, t, k) \
	VPADDD  Z2, res, t; \
	VPCMPUD $5, t, op, k; \
	VPSUBD  t, op, k, op; \
	VPSRLD  $1, res, res; \
	VPADDD  Z2, res, k, res

// RESTOREW is RESTORE in word lanes.
#define RESTOREW(op, res, t, k) \
	VPADDW  Z2, res, t; \
	VPCMPUW $5, t, op, k; \
	VPSUBW  t, op, k, op; \
	VPSRLW  $1, res, res; \
	VPADDW  Z2, res, k, res

// SEED(op, res) sets res and op for step bits − 3 from the table.
#define SEED(op, res) \
	VPSRLD  X11, op, Z3; \
	VPERMD  Z15, Z3, res; \
	VPERMD  Z16, Z3, Z3; \
	VPSUBD  Z3, op, op

// OUT512(r, o) writes ⌊x·r / 2^frac⌋ for the 16 lanes of r, at byte o of
// x and out: vpermd with spread puts r's lanes 0–7, then 8–15, in the low
// dwords of eight qwords, the only halves vpmuldq reads.
#define OUT512(r, o) \
	VPERMD        r, Z18, Z5; \
	VPERMD        r, Z19, Z6; \
	VPMULDQ       o(SI), Z5, Z5; \
	VPMULDQ       o+64(SI), Z6, Z6; \
	VPSRAQ        X12, Z5, Z5; \
	VPSRAQ        X12, Z6, Z6; \
	VMOVDQU64     Z5, o(DI); \
	VMOVDQU64     Z6, o+64(DI)

// isqrt4 is isqrt(i) for i < 16, then its square.
DATA isqrt4<>+0(SB)/4, $0
DATA isqrt4<>+4(SB)/4, $1
DATA isqrt4<>+8(SB)/4, $1
DATA isqrt4<>+12(SB)/4, $1
DATA isqrt4<>+16(SB)/4, $2
DATA isqrt4<>+20(SB)/4, $2
DATA isqrt4<>+24(SB)/4, $2
DATA isqrt4<>+28(SB)/4, $2
DATA isqrt4<>+32(SB)/4, $2
DATA isqrt4<>+36(SB)/4, $3
DATA isqrt4<>+40(SB)/4, $3
DATA isqrt4<>+44(SB)/4, $3
DATA isqrt4<>+48(SB)/4, $3
DATA isqrt4<>+52(SB)/4, $3
DATA isqrt4<>+56(SB)/4, $3
DATA isqrt4<>+60(SB)/4, $3
DATA isqrt4<>+64(SB)/4, $0
DATA isqrt4<>+68(SB)/4, $1
DATA isqrt4<>+72(SB)/4, $1
DATA isqrt4<>+76(SB)/4, $1
DATA isqrt4<>+80(SB)/4, $4
DATA isqrt4<>+84(SB)/4, $4
DATA isqrt4<>+88(SB)/4, $4
DATA isqrt4<>+92(SB)/4, $4
DATA isqrt4<>+96(SB)/4, $4
DATA isqrt4<>+100(SB)/4, $9
DATA isqrt4<>+104(SB)/4, $9
DATA isqrt4<>+108(SB)/4, $9
DATA isqrt4<>+112(SB)/4, $9
DATA isqrt4<>+116(SB)/4, $9
DATA isqrt4<>+120(SB)/4, $9
DATA isqrt4<>+124(SB)/4, $9
GLOBL isqrt4<>(SB), RODATA|NOPTR, $128

// spread is the vpermd indexes 0, 0, 1, 1, …, 15, 15: entries 0–15 copy
// dwords 0–7 into both halves of eight qwords, entries 16–31 dwords 8–15.
DATA spread<>+0(SB)/8, $0x0000000000000000
DATA spread<>+8(SB)/8, $0x0000000100000001
DATA spread<>+16(SB)/8, $0x0000000200000002
DATA spread<>+24(SB)/8, $0x0000000300000003
DATA spread<>+32(SB)/8, $0x0000000400000004
DATA spread<>+40(SB)/8, $0x0000000500000005
DATA spread<>+48(SB)/8, $0x0000000600000006
DATA spread<>+56(SB)/8, $0x0000000700000007
DATA spread<>+64(SB)/8, $0x0000000800000008
DATA spread<>+72(SB)/8, $0x0000000900000009
DATA spread<>+80(SB)/8, $0x0000000a0000000a
DATA spread<>+88(SB)/8, $0x0000000b0000000b
DATA spread<>+96(SB)/8, $0x0000000c0000000c
DATA spread<>+104(SB)/8, $0x0000000d0000000d
DATA spread<>+112(SB)/8, $0x0000000e0000000e
DATA spread<>+120(SB)/8, $0x0000000f0000000f
GLOBL spread<>(SB), RODATA|NOPTR, $128

// func rootAVX512(out, x *int64, n *int32, cnt int, frac uint64, bits int)
TEXT ·rootAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ cnt+24(FP), R12
	MOVQ frac+32(FP), X12
	MOVQ bits+40(FP), R9
	XORQ BX, BX
	// k = max(2·bits − 4, 0).
	LEAQ    -4(R9)(R9*1), AX
	CMPQ    AX, BX
	CMOVQLT BX, AX
	MOVQ    AX, X11
	// Z13 = 4^(bits−3), the first dword step's (unused where none runs).
	LEAQ -6(R9)(R9*1), CX
	MOVL $1, AX
	SHLL CX, AX
	VPBROADCASTD AX, Z13
	// R10 = max(bits − 2, 0) steps after the table: R14 = w of them in
	// words, R9 = the rest, first, in dwords.
	MOVQ    R9, R10
	SUBQ    $2, R10
	CMOVQLT BX, R10
	MOVQ    $15, R14
	SUBQ    R9, R14
	CMPQ    R14, R10
	CMOVQGT R10, R14
	CMPQ    R14, BX
	CMOVQLT BX, R14
	MOVQ    R10, R9
	SUBQ    R14, R9
	// Z17 = 4^(w−1) in every word (unused where w = 0).
	LEAQ -2(R14)(R14*1), CX
	MOVL $1, AX
	SHLL CX, AX
	VPBROADCASTW AX, Z17
	VMOVDQU32 isqrt4<>(SB), Z15
	VMOVDQU32 isqrt4<>+64(SB), Z16
	VPSLLD    X11, Z15, Z15
	VPSLLD    X11, Z16, Z16
	VMOVDQU32 spread<>(SB), Z18
	VMOVDQU32 spread<>+64(SB), Z19
	VPXORD    Z14, Z14, Z14

rblock512:
	CMPQ      R12, $32
	JLT       rdone512
	VMOVDQU32 (R8), Z0
	VMOVDQU32 64(R8), Z7
	VPMAXSD   Z14, Z0, Z0
	VPMAXSD   Z14, Z7, Z7
	SEED(Z0, Z1)
	SEED(Z7, Z8)
	MOVQ      R9, R10
	TESTQ     R10, R10
	JZ        rword512
	VMOVDQA64 Z13, Z2

rbit512:
	RESTORE(Z0, Z1, Z3, K1)
	RESTORE(Z7, Z8, Z9, K2)
	VPSRLD $2, Z2, Z2
	DECQ   R10
	JNZ    rbit512

rword512:
	MOVQ      R14, R10
	TESTQ     R10, R10
	JZ        rout512
	VPACKUSDW Z7, Z0, Z0
	VPACKUSDW Z8, Z1, Z1
	VMOVDQA64 Z17, Z2

rwbit512:
	RESTOREW(Z0, Z1, Z3, K1)
	VPSRLW $2, Z2, Z2
	DECQ   R10
	JNZ    rwbit512
	VPUNPCKHWD Z14, Z1, Z8
	VPUNPCKLWD Z14, Z1, Z1

rout512:
	OUT512(Z1, 0)
	OUT512(Z8, 128)
	ADDQ $128, R8
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $32, R12
	JMP  rblock512

rdone512:
	VZEROUPPER
	RET

// ISQRT2(v, r, c, sq, m) settles one bit of r in the lanes of v, as
// isqrtBits: the candidate c = r | bit (Y2) is kept where c² ≤ v. c <
// 2^16, so c² < 2^32 is exact in an unsigned dword; the kept-lane mask is
// min(c², v) = c² (unsigned), and the bit is or-ed in where it holds.
#define ISQRT2(v, r, c, sq, m) \
	VPOR     Y2, r, c; \
	VPMULLD  c, c, sq; \
	VPMINUD  v, sq, m; \
	VPCMPEQD m, sq, m; \
	VPAND    Y2, m, m; \
	VPOR     m, r, r

// SRA2(p) is p >> frac, arithmetic, on four qwords: with s = (p < 0), all
// ones or zero, ~x is x ^ s, so the result is ((p ^ s) >> frac) ^ s.
#define SRA2(p) \
	VPCMPGTQ p, Y14, Y11; \
	VPXOR    Y11, p, p; \
	VPSRLQ   X12, p, p; \
	VPXOR    Y11, p, p

// OUT2(r, x, o) writes ⌊x·r / 2^frac⌋ for the 8 lanes of r (x its low
// half), at byte o of x and out.
#define OUT2(r, x, o) \
	VPMOVZXDQ    x, Y5; \
	VEXTRACTI128 $1, r, X6; \
	VPMOVZXDQ    X6, Y6; \
	VPMULDQ      o(SI), Y5, Y5; \
	VPMULDQ      o+32(SI), Y6, Y6; \
	SRA2(Y5); \
	SRA2(Y6); \
	VMOVDQU      Y5, o(DI); \
	VMOVDQU      Y6, o+32(DI)

// func rootAVX2(out, x *int64, n *int32, cnt int, frac uint64, bits int)
TEXT ·rootAVX2(SB), NOSPLIT, $0-48
	MOVQ  out+0(FP), DI
	MOVQ  x+8(FP), SI
	MOVQ  n+16(FP), R8
	MOVQ  cnt+24(FP), R12
	MOVQ  frac+32(FP), X12
	MOVQ  bits+40(FP), R9
	LEAQ  -1(R9), CX
	MOVL  $1, AX
	SHLL  CX, AX
	MOVQ  AX, X13
	VPBROADCASTD X13, Y13
	VPXOR Y14, Y14, Y14

rblock2:
	CMPQ    R12, $16
	JLT     rdone2
	VMOVDQU (R8), Y0
	VMOVDQU 32(R8), Y7
	VPMAXSD Y14, Y0, Y0
	VPMAXSD Y14, Y7, Y7
	VPXOR   Y1, Y1, Y1
	VPXOR   Y8, Y8, Y8
	VMOVDQA Y13, Y2
	MOVQ    R9, R10

rbit2:
	ISQRT2(Y0, Y1, Y3, Y4, Y5)
	ISQRT2(Y7, Y8, Y9, Y10, Y11)
	VPSRLD $1, Y2, Y2
	DECQ   R10
	JNZ    rbit2

	OUT2(Y1, X1, 0)
	OUT2(Y8, X8, 64)
	ADDQ $64, R8
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, R12
	JMP  rblock2

rdone2:
	VZEROUPPER
	RET

// Squares. Per element, x² is the signed product of x's low dword with
// itself (vpmuldq), exact for |x| ≤ 181, narrowed to a dword; the check
// keeps the running maximum and minimum of x (AVX-512) or or-s the lanes'
// x > lim and −lim > x (AVX2), and tests them once at the end. A square
// past the bound is formed from x's low dword only: a wrong value, which
// the caller discards because the check fails.
//
// Registers of squares*:
//	DI   x2           SI   x           CX   elements left
//	Z10/Y10  lim      Z11/Y11  −lim    Z12, Z13  maximum, minimum (AVX-512)
//	Y12  or of the lanes out of range (AVX2)

// func squaresAVX512(x2 *int32, x *int64, cnt int, lim int64) bool
TEXT ·squaresAVX512(SB), NOSPLIT, $0-33
	MOVQ x2+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ cnt+16(FP), CX
	MOVQ lim+24(FP), AX
	VPBROADCASTQ AX, Z10
	VPXORQ       Z11, Z11, Z11
	VPSUBQ       Z10, Z11, Z11
	VPXORQ       Z12, Z12, Z12
	VPXORQ       Z13, Z13, Z13

sq512:
	CMPQ      CX, $16
	JLT       sqend512
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VPMAXSQ   Z0, Z12, Z12
	VPMINSQ   Z0, Z13, Z13
	VPMAXSQ   Z1, Z12, Z12
	VPMINSQ   Z1, Z13, Z13
	VPMULDQ   Z0, Z0, Z0
	VPMULDQ   Z1, Z1, Z1
	VPMOVQD   Z0, (DI)
	VPMOVQD   Z1, 32(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       sq512

sqend512:
	VPCMPGTQ Z10, Z12, K1
	VPCMPGTQ Z13, Z11, K2
	KORW     K1, K2, K1
	KORTESTW K1, K1
	SETEQ    ret+32(FP)
	VZEROUPPER
	RET

// func squaresAVX2(x2 *int32, x *int64, cnt int, lim int64) bool
TEXT ·squaresAVX2(SB), NOSPLIT, $0-33
	MOVQ x2+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ cnt+16(FP), CX
	MOVQ lim+24(FP), X10
	VPBROADCASTQ X10, Y10
	VPXOR        Y11, Y11, Y11
	VPSUBQ       Y10, Y11, Y11
	VPXOR        Y12, Y12, Y12

sq2:
	CMPQ     CX, $8
	JLT      sqend2
	VMOVDQU  (SI), Y0
	VMOVDQU  32(SI), Y1
	VPCMPGTQ Y10, Y0, Y2
	VPOR     Y2, Y12, Y12
	VPCMPGTQ Y0, Y11, Y2
	VPOR     Y2, Y12, Y12
	VPCMPGTQ Y10, Y1, Y2
	VPOR     Y2, Y12, Y12
	VPCMPGTQ Y1, Y11, Y2
	VPOR     Y2, Y12, Y12
	VPMULDQ  Y0, Y0, Y0
	VPMULDQ  Y1, Y1, Y1
	// Narrow each qword to its low dword: vpshufd puts dwords 0 and 2 of
	// each 128-bit lane low, vpermq joins the two lanes' low halves.
	VPSHUFD  $0x08, Y0, Y0
	VPSHUFD  $0x08, Y1, Y1
	VPERMQ   $0x08, Y0, Y0
	VPERMQ   $0x08, Y1, Y1
	VMOVDQU  X0, (DI)
	VMOVDQU  X1, 16(DI)
	ADDQ     $64, SI
	ADDQ     $32, DI
	SUBQ     $8, CX
	JMP      sq2

sqend2:
	VPTEST Y12, Y12
	SETEQ  ret+32(FP)
	VZEROUPPER
	RET
