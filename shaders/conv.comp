// conv (§5.2), tiled. A work group of TX × TY threads computes a tile of
// TX·PX × TY output positions for OCB output channels of one group: each
// thread holds PX positions along x times OCB channels of sums. For each run
// of CIB input channels of the group, the work group stages the input
// patches the tile reads (zero outside the input: X̃ of §5.2) and the
// CIB × OCB × KH × KW weights in shared memory; each thread then reads OCB
// weights and PX inputs per tap and forms OCB·PX products from them.
// Channels past the group's end stage zero weights. With TILED 0 (a kernel
// too large for the shared budget) the same sums read global memory.
//
// acc32: every product and partial sum (conv.term, conv.acc) fits i32 in
// any order (§6), so int accumulation is exact.
//
// With PHASE 1 the same kernel runs one phase ρ = (RY, RX) of a
// conv_transpose (§9.3): a stride-1 convolution of the input with the
// phase's flipped sub-kernel of KH × KW taps, over the phase's grid of
// HO × WO positions (u, v) = (U0 + oy, V0 + ox). Tap (i, j) is
// Wt[c][o][RY + SHT·(KH − 1 − i)][RX + SWT·(KW − 1 − j)], zero past the
// kernel (a missing tap adds a zero term), and PH = KH − 1 − U0 (likewise
// PW) puts row i of the patch at input row u − (KH − 1 − i). Output (o, u, v)
// is out[o][u·SHT + RY − PHT][v·SWT + RX − PWT]; the host picks the grid so
// that every such position lies inside [HOT, WOT], and a position whose
// taps all fall outside the input sums to 0 and holds rq_o(0).
// acc32: each product is a weight's term (convT.term) and every partial
// sum of a phase lies in A(K_ρ, b) ⊆ convT.acc (§8.3, §9.3), which fits
// i32 in any order, so int accumulation is exact here too.
layout(local_size_x = TX, local_size_y = TY) in;

uniform int H;      // input sides
uniform int W;
uniform int HO;     // output sides
uniform int WO;
uniform int CG;     // cin / groups
uniform int OG;     // cout / groups
uniform int PH;     // zero padding
uniform int PW;
uniform int TILES_X;
uniform int TILES_Y;
uniform int BLOCKS; // ⌈OG / OCB⌉
uniform int G;      // work groups in all
uniform int P_W;    // offset of Wt[cout][cg][KH][KW] in prm (conv),
                    // Wt[cin][cout][KHT][KWT] (PHASE)
#if PHASE
uniform int RY;     // the phase ρ
uniform int RX;
uniform int U0;     // the phase grid's first position
uniform int V0;
uniform int PHT;    // conv_transpose's padding, output sides and stride
uniform int PWT;
uniform int HOT;
uniform int WOT;
uniform int SHT;
uniform int SWT;

// weight is tap k = i·KW + j of the flipped sub-kernel for output channel o
// and input channel c (§9.3), 0 past the kernel.
int weight(uint o, uint c, int k) {
	int i = RY + SHT * (KH - 1 - k / KW);
	int j = RX + SWT * (KW - 1 - k % KW);
	if (i >= KHT || j >= KWT) {
		return 0;
	}
	return prm_ld(uint(P_W) + ((c * uint(OG) + o) * uint(KHT) + uint(i)) * uint(KWT) + uint(j));
}

// out_at is the output element of channel o at grid position (oy, ox).
uint out_at(uint o, int oy, int ox) {
	int y = (U0 + oy) * SHT + RY - PHT;
	int x = (V0 + ox) * SWT + RX - PWT;
	return (o * uint(HOT) + uint(y)) * uint(WOT) + uint(x);
}
#else
// weight is tap k of output channel o over channel c of its group.
int weight(uint o, uint c, int k) { return prm_ld(uint(P_W) + (o * uint(CG) + c) * uint(KH * KW) + uint(k)); }

// out_at is the output element of channel o at (oy, ox).
uint out_at(uint o, int oy, int ox) { return (o * uint(HO) + uint(oy)) * uint(WO) + uint(ox); }
#endif

#define PATCH_H ((TY - 1) * SH + KH)
#define PATCH_W ((TX * PX - 1) * SW + KW)
#define PATCH (PATCH_H * PATCH_W)
#define KK (KH * KW)

#if TILED
#define CSTEP CIB
shared int tile[CIB * PATCH];
shared int wsh[CIB * OCB * KK];
#else
#define CSTEP 1
#endif

void main() {
	uint g = group_id();
	if (g >= uint(G)) {
		return; // uniform across the work group
	}
	uint tx = g % uint(TILES_X);
	uint ty = (g / uint(TILES_X)) % uint(TILES_Y);
	uint rest = g / uint(TILES_X * TILES_Y);
	uint ob = rest % uint(BLOCKS);
	uint grp = rest / uint(BLOCKS);
	uint lx = gl_LocalInvocationID.x;
	uint ly = gl_LocalInvocationID.y;
	uint lid = gl_LocalInvocationIndex;
	int oy = int(ty) * TY + int(ly);
	int ox0 = (int(tx) * TX + int(lx)) * PX; // this thread's first position
	// The patch's first input row and column (negative inside the padding).
	int iy0 = int(ty) * TY * SH - PH;
	int ix0 = int(tx) * TX * PX * SW - PW;
	uint o0 = grp * uint(OG) + ob * uint(OCB);
	uint oEnd = (grp + 1u) * uint(OG);
	int acc[OCB * PX];
	for (int k = 0; k < OCB * PX; k++) {
		acc[k] = 0;
	}
	int wv[OCB];
	for (int ci = 0; ci < CG; ci += CSTEP) {
		uint plane = (grp * uint(CG) + uint(ci)) * uint(H);
#if TILED
		// Stage channels ci .. ci + CIB − 1.
		for (uint k = lid; k < uint(CIB * PATCH); k += uint(TX * TY)) {
			uint cb = k / uint(PATCH);
			uint at = k % uint(PATCH);
			int y = iy0 + int(at / uint(PATCH_W));
			int x = ix0 + int(at % uint(PATCH_W));
			bool inside = ci + int(cb) < CG && y >= 0 && y < H && x >= 0 && x < W;
			tile[k] = inside ? in0_ld((plane + cb * uint(H) + uint(y)) * uint(W) + uint(x)) : 0;
		}
		for (uint k = lid; k < uint(CIB * OCB * KK); k += uint(TX * TY)) {
			uint cb = k / uint(OCB * KK);
			uint o = o0 + (k / uint(KK)) % uint(OCB);
			bool real = o < oEnd && ci + int(cb) < CG;
			wsh[k] = real ? weight(o, uint(ci) + cb, int(k % uint(KK))) : 0;
		}
		barrier();
		for (int cb = 0; cb < CIB; cb++) {
			for (int i = 0; i < KH; i++) {
				for (int j = 0; j < KW; j++) {
					for (int q = 0; q < OCB; q++) {
						wv[q] = wsh[(cb * OCB + q) * KK + i * KW + j];
					}
					int row = cb * PATCH + (int(ly) * SH + i) * PATCH_W + int(lx) * PX * SW + j;
					for (int p = 0; p < PX; p++) {
						int x = tile[row + p * SW];
						for (int q = 0; q < OCB; q++) {
							acc[p * OCB + q] += wv[q] * x;
						}
					}
				}
			}
		}
		barrier();
#else
		for (int i = 0; i < KH; i++) {
			int y = oy * SH - PH + i;
			for (int j = 0; j < KW; j++) {
				for (int q = 0; q < OCB; q++) {
					uint o = min(o0 + uint(q), oEnd - 1u); // past oEnd: never stored
					wv[q] = weight(o, uint(ci), i * KW + j);
				}
				// Positions past WO are never stored: stop before forming
				// their x, so no signed product can pass i32 (§7.3).
				for (int p = 0; p < PX && ox0 + p < WO; p++) {
					int x = (ox0 + p) * SW - PW + j;
					if (y < 0 || y >= H || x < 0 || x >= W) {
						continue;
					}
					int v = in0_ld((plane + uint(y)) * uint(W) + uint(x));
					for (int q = 0; q < OCB; q++) {
						acc[p * OCB + q] += wv[q] * v;
					}
				}
			}
		}
#endif
	}
	if (oy >= HO) {
		return;
	}
	for (int p = 0; p < PX && ox0 + p < WO; p++) {
		for (int q = 0; q < OCB; q++) {
			uint o = o0 + uint(q);
			if (o < oEnd) {
				out_st(out_at(o, oy, ox0 + p), rq(acc[p * OCB + q], o));
			}
		}
	}
}
