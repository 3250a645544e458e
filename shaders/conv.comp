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
uniform int P_W;    // offset of Wt[cout][cg][KH][KW] in prm

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
			wsh[k] = real ? prm_ld(uint(P_W) + (o * uint(CG) + uint(ci) + cb) * uint(KK) + k % uint(KK)) : 0;
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
					wv[q] = prm_ld(uint(P_W) + (o * uint(CG) + uint(ci)) * uint(KK) + uint(i * KW + j));
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
				out_st((o * uint(HO) + uint(oy)) * uint(WO) + uint(ox0 + p), rq(acc[p * OCB + q], o));
			}
		}
	}
}
