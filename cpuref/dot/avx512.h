// Macros of the AVX-512 kernels (avx512_amd64.s). Each kernel's body is
// that file's MAC16 body, expanded once per instruction set with two names
// defined for it:
//
//	XS                      the bytes an offset counts: 2 for int16, 1 for u8
//	MAC(src, w, tmp, acc)   acc's int32 lanes += the products of memory src
//	                        and the tap's weights w, summed by lane
//
// avx512bw defines MAC as vpmaddwd into tmp then vpaddd; avx512vnni as one
// vpdpwssd (int16 pairs) or a load into tmp and one vpdpbusd (u8 quads).
// Either way a lane takes two or four products a tap modulo 2^32, and
// Choose16's or Choose8's chunk keeps every partial sum in i32, so the
// lane is exact (dot.go; integer-operators.md §6).
//
// Columns go 64 at a time (four zmm lane registers), then 32 (two: the
// 32-column blocks cpuref's conv hands over), 16 and 8 (one ymm: the EVEX
// ymm forms are AVX512VL's, which every set here requires). A column's
// operands are 4 bytes whatever the set, so the blocks and strides are the
// same. After each chunk of taps the lanes are sign-extended to int64 and
// added into acc.

// WIDEN16 adds the 16 int32 lanes of z (y its low half) into the 16 int64
// at o(a), through Z9 and Z10.
#define WIDEN16(z, y, o, a) \
	VPMOVSXDQ     y, Z9; \
	VPADDQ        o(a), Z9, Z9; \
	VMOVDQU64     Z9, o(a); \
	VEXTRACTI64X4 $1, z, Y10; \
	VPMOVSXDQ     Y10, Z10; \
	VPADDQ        o+64(a), Z10, Z10; \
	VMOVDQU64     Z10, o+64(a)

// WIDEN8 adds the 8 int32 lanes of y (x its low half) into the 8 int64 at
// (a), through Y9 and Y10.
#define WIDEN8(y, x, a) \
	VPMOVSXDQ    x, Y9; \
	VPADDQ       (a), Y9, Y9; \
	VMOVDQU      Y9, (a); \
	VEXTRACTI128 $1, y, X10; \
	VPMOVSXDQ    X10, Y10; \
	VPADDQ       32(a), Y10, Y10; \
	VMOVDQU      Y10, 32(a)

// CHUNK_END sets DX to the end of the chunk that starts at tap BX,
// min(BX + chunk, taps), and jumps to next when BX has reached taps.
#define CHUNK_END(next) \
	CMPQ    BX, R10; \
	JGE     next; \
	MOVQ    BX, DX; \
	ADDQ    R11, DX; \
	CMPQ    DX, R10; \
	CMOVQGT R10, DX

// CLEAN zeroes Z16–Z25 before a kernel returns. VZEROUPPER clears the
// upper halves of Z0–Z15 only, and Intel's guidance is to leave no
// non-zero upper half in Z16–Z31 either before legacy-SSE code runs (Go's
// compiler copies structs with MOVUPS): an EVEX xor of a register with
// itself zeroes all of it, ten cheap instructions a call.
#define CLEAN \
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23; \
	VPXORD Z24, Z24, Z24; VPXORD Z25, Z25, Z25
