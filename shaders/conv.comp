// conv (§5.2), tiled. A work group of TX × TY threads computes a tile of
// TX·PX × TY grid positions for OCB output channels of one group and NPB
// phases: each thread holds PX positions along x times OCB channels times
// NPB phases of sums. For each run of CIB input channels of the group, the
// work group stages the input patch the tile reads (zero outside the
// input: X̃ of §5.2), row by row with no division (every thread runs the
// same number of steps: a rasteriser's SIMD lanes stay together), into a shared tile whose
// rows have an odd stride (ROW), and copies the run's weights, which the
// host laid out in exactly the order they are read (gpu/conv.go,
// convWeights): [input channel][phase][tap][OCB], so that one tap's OCB
// weights are consecutive (a vector load, the same address for every
// thread). Each thread then reads each patch row it needs once into
// registers (xr) and slides its taps over them. Channels past the group's
// end hold zero weights. With TILED 0 (a kernel too large for the shared
// budget) the same sums read global memory.
//
// The grid runs the output-channel block fastest, then the phase block,
// then the tile's x, its y and the group: neighbouring work groups read
// the same input patch.
//
// acc32: every product and partial sum (conv.term, conv.acc) fits i32 in
// any order (§6), so int accumulation is exact.
//
// With PHASE 1 a dispatch runs the NPY × NPX phases ρ = (ry, rx) of a
// conv_transpose (§9.3), NPB of them in each work group over one staged
// tile: each phase is a stride-1 convolution of the input with its flipped
// sub-kernel of KH × KW taps (the largest phase's; a missing tap is a zero
// weight, a zero term §9.3 allows), and all of them share the grid of
// positions (u, v) = (U0 + oy, V0 + ox), since patch row i of every phase
// is input row u − (KH − 1 − i). A block's grid starts at the least first
// position of its phases (U0, V0, computed here as the host does). Output
// (o, u, v) of phase ρ is out[o][u·NPY + ry − PHT][v·NPX + rx − PWT],
// stored when it lies inside [HOT, WOT]; a position whose taps all fall
// outside the input sums to 0 and holds rq_o(0). acc32: each product is a
// weight's term (convT.term) and every partial sum of a phase lies in
// A(K_ρ, b) ⊆ convT.acc (§8.3, §9.3), which fits i32 in any order, so int
// accumulation is exact here too.
layout(local_size_x = TX, local_size_y = TY) in;

uniform int H;      // input sides
uniform int W;
uniform int HO;     // the grid's sides (conv: the output's)
uniform int WO;
uniform int CG;     // cin / groups
uniform int OG;     // cout / groups
uniform int PH;     // zero padding
uniform int PW;
uniform int TILES_X;
uniform int TILES_Y;
uniform int BLOCKS; // ⌈OG / OCB⌉
uniform int G;      // work groups in all
uniform int P_W;    // offset of the laid-out weights in prm
uniform int CGP;    // input channels of a block of the layout (CG + padding)
#if PHASE
uniform int PHT;    // conv_transpose's padding and output sides
uniform int PWT;
uniform int HOT;
uniform int WOT;
#define PBLOCKS (NPY * NPX / NPB)
#else
#define NPB 1
#define PBLOCKS 1
#endif

#define KK (KH * KW)
#define WBLOCK (NPB * KK * OCB) // one input channel's weights in a block

#if TILED
#define PATCH_H ((TY - 1) * SH + KH)
#define PATCH_W ((TX * PX - 1) * SW + KW)
#define ROW (PATCH_W | 1) // odd: the rows start in different banks
#define CSTEP CIB
shared int tile[CIB * PATCH_H * ROW];
shared int wsh[CIB * WBLOCK];
#else
#define CSTEP 1
#endif

void main() {
	uint g = group_id();
	if (g >= uint(G)) {
		return; // uniform across the work group
	}
	uint ob = g % uint(BLOCKS);
	uint rest = g / uint(BLOCKS);
	uint pb = rest % uint(PBLOCKS);
	rest /= uint(PBLOCKS);
	uint tx = rest % uint(TILES_X);
	rest /= uint(TILES_X);
	uint ty = rest % uint(TILES_Y);
	uint grp = rest / uint(TILES_Y);
	int lx = int(gl_LocalInvocationID.x);
	int ly = int(gl_LocalInvocationID.y);
	int oy = int(ty) * TY + ly;
	int ox0 = (int(tx) * TX + lx) * PX; // this thread's first position
	// The patch's first input row and column (negative inside the padding).
	int iy0 = int(ty) * TY * SH;
	int ix0 = int(tx) * TX * PX * SW;
#if !PHASE
	iy0 -= PH;
	ix0 -= PW;
#endif
	uint o0 = grp * uint(OG) + ob * uint(OCB);
	uint oEnd = (grp + 1u) * uint(OG);
	uint wbase = uint(P_W) + ((grp * uint(BLOCKS) + ob) * uint(PBLOCKS) + pb) * uint(CGP) * uint(WBLOCK);
#if PHASE
	// The block's first tap row and column that hold a weight: phase
	// (ry, rx) has ⌈(KHT − ry)/NPY⌉ rows of taps of the kernel (none past
	// it), the last ones of its KH; the taps before are zero weights,
	// skipped (§6: a zero term may be skipped).
	// The block's grid starts at (U0, V0), the least first position
	// ⌈(PHT − ry)/NPY⌉ of its phases (likewise x; PHT − ry > −NPY, so the
	// numerators are not negative); PH = KH − 1 − U0 (likewise PW).
	int IF = KH;
	int JF = KW;
	int U0 = PHT + NPY;
	int V0 = PWT + NPX;
	for (int e = 0; e < NPB; e++) {
		int ph = int(pb) * NPB + e;
		IF = min(IF, KH - (max(0, KHT - ph / NPX) + NPY - 1) / NPY);
		JF = min(JF, KW - (max(0, KWT - ph % NPX) + NPX - 1) / NPX);
		U0 = min(U0, (PHT - ph / NPX + NPY - 1) / NPY);
		V0 = min(V0, (PWT - ph % NPX + NPX - 1) / NPX);
	}
	iy0 -= KH - 1 - U0;
	ix0 -= KW - 1 - V0;
#else
	const int IF = 0;
	const int JF = 0;
#endif
	int acc[NPB * PX * OCB];
	for (int k = 0; k < NPB * PX * OCB; k++) {
		acc[k] = 0;
	}
	int wv[NPB * OCB];
#if !TILED
#define XR ((PX - 1) * SW + KW)
	int xr[XR];
#endif
	for (int ci = 0; ci < CG; ci += CSTEP) {
#if TILED
		// Stage channels ci .. ci + CIB − 1: thread (lx, ly) takes rows
		// ly, ly + TY, .. and in each the columns lx, lx + TX, ..
		for (int cb = 0; cb < CIB; cb++) {
			bool real = ci + cb < CG;
			uint plane = real ? (grp * uint(CG) + uint(ci + cb)) * uint(H) : 0u;
			for (int y0 = 0; y0 < PATCH_H; y0 += TY) {
				int y = y0 + ly;
				int iy = iy0 + y;
				bool rowIn = real && y < PATCH_H && iy >= 0 && iy < H;
				uint src = rowIn ? (plane + uint(iy)) * uint(W) : 0u;
				for (int x0 = 0; x0 < PATCH_W; x0 += TX) {
					int x = x0 + lx;
					int ix = ix0 + x;
					if (y < PATCH_H && x < PATCH_W) {
						tile[(cb * PATCH_H + y) * ROW + x] = rowIn && ix >= 0 && ix < W ? in0_ld(src + uint(ix)) : 0;
					}
				}
			}
		}
		// The run's weights are consecutive in the layout.
		uint wrun = wbase + uint(ci) * uint(WBLOCK);
		for (uint k = gl_LocalInvocationIndex; k < uint(CIB * WBLOCK); k += uint(TX * TY)) {
			wsh[k] = prm_ld(wrun + k);
		}
		barrier();
		for (int cb = 0; cb < CIB; cb++) {
			for (int i = IF; i < KH; i++) {
				for (int j = JF; j < KW; j++) {
					for (int e = 0; e < NPB; e++) {
						for (int q = 0; q < OCB; q++) {
							wv[e * OCB + q] = wsh[((cb * NPB + e) * KK + i * KW + j) * OCB + q];
						}
					}
					int row = (cb * PATCH_H + ly * SH + i) * ROW + lx * PX * SW + j;
					for (int p = 0; p < PX; p++) {
						int x = tile[row + p * SW];
						for (int e = 0; e < NPB; e++) {
							for (int q = 0; q < OCB; q++) {
								acc[(e * PX + p) * OCB + q] += wv[e * OCB + q] * x;
							}
						}
					}
				}
			}
		}
		barrier();
#else
		// Untiled (TILED 0: a software rasteriser, where a shared read
		// costs a loop over the SIMD lanes, or a kernel past the shared
		// budget): each patch row this thread's taps read, XR inputs, is
		// read once into registers (zero outside the input: X̃ of §5.2)
		// and the KW taps slide over it. Every tap j from 0 is formed, a
		// zero weight where a phase's sub-kernel starts later (§6: a zero
		// term changes no sum), so that every index of xr is a constant.
		uint plane = (grp * uint(CG) + uint(ci)) * uint(H);
		uint wrun = wbase + uint(ci) * uint(WBLOCK);
		int xb = ix0 + lx * PX * SW;
		for (int i = IF; i < KH; i++) {
			int y = iy0 + ly * SH + i;
			bool rowIn = oy < HO && y >= 0 && y < H;
			uint rowAt = rowIn ? (plane + uint(y)) * uint(W) : 0u;
			for (int r = 0; r < XR; r++) {
				int x = xb + r;
				xr[r] = rowIn && x >= 0 && x < W ? in0_ld(rowAt + uint(x)) : 0;
			}
			for (int j = 0; j < KW; j++) {
				for (int e = 0; e < NPB; e++) {
					for (int q = 0; q < OCB; q++) {
						wv[e * OCB + q] = prm_ld(wrun + uint((e * KK + i * KW + j) * OCB + q));
					}
				}
				for (int p = 0; p < PX; p++) {
					for (int e = 0; e < NPB; e++) {
						for (int q = 0; q < OCB; q++) {
							acc[(e * PX + p) * OCB + q] += wv[e * OCB + q] * xr[p * SW + j];
						}
					}
				}
			}
		}
#endif
	}
	if (oy >= HO) {
		return;
	}
	// Every loop that indexes acc has a constant trip count, so that the
	// compiler can keep acc in registers.
	for (int e = 0; e < NPB; e++) {
#if PHASE
		int ph = int(pb) * NPB + e;
		int y = (U0 + oy) * NPY + ph / NPX - PHT;
		bool rowOut = y >= 0 && y < HOT;
#endif
		for (int p = 0; p < PX; p++) {
#if PHASE
			int x = (V0 + ox0 + p) * NPX + ph % NPX - PWT;
			bool store = rowOut && ox0 + p < WO && x >= 0 && x < WOT;
			uint at = store ? uint(y) * uint(WOT) + uint(x) : 0u;
			uint plane = uint(HOT) * uint(WOT);
#else
			bool store = ox0 + p < WO;
			uint at = uint(oy) * uint(WO) + uint(ox0 + p);
			uint plane = uint(HO) * uint(WO);
#endif
			for (int q = 0; q < OCB; q++) {
				uint o = o0 + uint(q);
				if (store && o < oEnd) {
					out_st(o * plane + at, rq(acc[(e * PX + p) * OCB + q], o));
				}
			}
		}
	}
}
