// igdn (§5.7): at each position, N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋
// (each term floored, then summed), r_i = isqrt(max(0, N_i)),
// out = ⌊x_i·r_i / 2^frac⌋. HW is H·W.
//
// TILED 1: a work group of PT × RG threads takes a tile of PT·PX
// positions, PX per thread (p, p + PT, ..). It stages x_j² for all C
// channels of the tile in shared memory once, then γ in chunks of IB rows
// (all C columns); thread (p, r) sums rows r, r + RG, .. of the chunk at
// each of its PX positions at once, so that each x² it reads from shared
// memory serves IB / RG terms and each γ serves PX. RG > 1 where the tile
// has fewer than 64 positions (many channels), so that a work group still
// fills two warps. A position past HW stages
// 0 and is never stored. TILED 0 (C too large for one position's x² and
// one γ row in the shared budget): one thread per output, reading global
// memory.
//
// DIRECT 1 (below) is the register-tiled form for a software rasteriser.
//
// acc32: x_j² (igdn.x2), each floored term, every partial sum of N and
// x_i·r_i (igdn.xr) fit i32 (class wide, §7.1), and γ fits i32 (§7.2);
// igdn.gx2 is the one product, formed in two words (§7.3).
uniform int N;
uniform int HW;
uniform int FRAC;
uniform int P_GAMMA; // γ[C][C], row = output channel
uniform int P_BETA;  // β[C]

// term is ⌊γ·x² / 2^gf⌋, its variant chosen from the certificate
// (gpu/igdn.go, igdnTerm): TERM 1, igdn.gx2 in [0, 2^31) and gf < 32, one
// 32-bit product and a logical shift; TERM 2, igdn.gx2 inside i32, one
// product and asr; TERM 0, the two-word product (§7.3). GF, a define, lets
// the shifts' cases fold away.
#if TERM == 1
int term(int g, int x2) { return int(uint(g * x2) >> GF); }
#elif TERM == 2
int term(int g, int x2) { return asr(g * x2, GF); }
#else
int term(int g, int x2) { return int(w_shr(w_mul(g, x2), GF).lo); }
#endif

// finish is out_i from N_i and x_i.
int finish(int sum, int x) { return asr(x * int(isqrt(uint(max(0, sum)))), uint(FRAC)); }

#if TILED
#define TP (PT * PX)
#define IBR ((IB + RG - 1) / RG) // the γ rows of a chunk one thread sums
layout(local_size_x = PT, local_size_y = RG) in;
shared int x2s[C * TP]; // x_j² at tile position t: x2s[j·TP + t]
shared int gs[IB * C];  // γ[i0 + r][j]: gs[r·C + j]

void main() {
	uint lid = gl_LocalInvocationIndex;
	uint lp = gl_LocalInvocationID.x; // positions lp, lp + PT, ..
	int lr = int(gl_LocalInvocationID.y); // rows lr, lr + RG, .. of a chunk
	uint p0 = group_id() * uint(TP);
	for (uint k = lid; k < uint(C * TP); k += uint(PT * RG)) {
		uint pos = p0 + k % uint(TP);
		int x = pos < uint(HW) ? in0_ld(k / uint(TP) * uint(HW) + pos) : 0;
		x2s[k] = x * x;
	}
	int sum[IBR * PX];
	int x2[PX];
	for (uint i0 = 0u; i0 < uint(C); i0 += uint(IB)) {
		barrier(); // the previous chunk's γ is read
		for (uint k = lid; k < uint(IB * C); k += uint(PT * RG)) {
			uint i = i0 + k / uint(C);
			gs[k] = i < uint(C) ? prm_ld(uint(P_GAMMA) + i * uint(C) + k % uint(C)) : 0;
		}
		barrier();
		for (int rr = 0; rr < IBR; rr++) {
			uint i = i0 + uint(lr + rr * RG);
			int beta = lr + rr * RG < IB && i < uint(C) ? prm_ld(uint(P_BETA) + i) : 0;
			for (int q = 0; q < PX; q++) {
				sum[rr * PX + q] = beta;
			}
		}
		for (uint j = 0u; j < uint(C); j++) {
			for (int q = 0; q < PX; q++) {
				x2[q] = x2s[j * uint(TP) + lp + uint(q * PT)];
			}
			for (int rr = 0; rr < IBR; rr++) {
				// A row past the chunk (RG not dividing IB) sums γ of
				// the chunk's last row and is never stored.
				int g = gs[uint(min(lr + rr * RG, IB - 1) * C) + j];
				for (int q = 0; q < PX; q++) {
					sum[rr * PX + q] += term(g, x2[q]);
				}
			}
		}
		for (int rr = 0; rr < IBR; rr++) {
			uint i = i0 + uint(lr + rr * RG);
			for (int q = 0; q < PX; q++) {
				uint pos = p0 + lp + uint(q * PT);
				uint n = i * uint(HW) + pos;
				if (pos < uint(HW) && lr + rr * RG < IB && i < uint(C)) {
					out_st(n, finish(sum[rr * PX + q], in0_ld(n)));
				}
			}
		}
	}
}
#elif defined(DIRECT)
// DIRECT (a software rasteriser, where shared reads are loops over the
// SIMD lanes): thread t sums RB output channels at PX positions, all in
// registers, reading each x_j once for its RB rows and each γ once for its
// PX positions (gpu/igdn.go picks PX and RB). N is the number of threads, PB the blocks of PX positions.
layout(local_size_x = LOCAL) in;
uniform int C;
uniform int PB;

void main() {
	uint t = elem_id();
	if (t >= uint(N)) {
		return;
	}
	uint pos0 = t % uint(PB) * uint(PX);
	uint i0 = t / uint(PB) * uint(RB);
	int sum[RB * PX];
	for (int r = 0; r < RB; r++) {
		int beta = prm_ld(uint(P_BETA) + min(i0 + uint(r), uint(C - 1)));
		for (int q = 0; q < PX; q++) {
			sum[r * PX + q] = beta;
		}
	}
	// A position past HW or a row past C is never stored: it reads the
	// last position's x or the last row's γ rather than branch around the
	// read, and sums real terms of another output, which fit as those do.
	// Each row's γ, and each position's x_j, one step apart in j.
	uint grow[RB];
	for (int r = 0; r < RB; r++) {
		grow[r] = uint(P_GAMMA) + min(i0 + uint(r), uint(C - 1)) * uint(C);
	}
	uint xat[PX];
	for (int q = 0; q < PX; q++) {
		xat[q] = min(pos0 + uint(q), uint(HW - 1));
	}
	int x2[PX];
	for (uint j = 0u; j < uint(C); j++) {
		for (int q = 0; q < PX; q++) {
			int x = in0_ld(xat[q]);
			xat[q] += uint(HW);
			x2[q] = x * x;
		}
		for (int r = 0; r < RB; r++) {
			int g = prm_ld(grow[r] + j);
			for (int q = 0; q < PX; q++) {
				sum[r * PX + q] += term(g, x2[q]);
			}
		}
	}
	// Each x_i is read, and each out_i formed, by every thread whether it
	// stores or not (a past row or position reads the last), so that no
	// read waits inside a branch.
	for (int r = 0; r < RB; r++) {
		uint i = min(i0 + uint(r), uint(C - 1));
		for (int q = 0; q < PX; q++) {
			uint pos = pos0 + uint(q);
			uint n = i * uint(HW) + min(pos, uint(HW - 1));
			int v = finish(sum[r * PX + q], in0_ld(n));
			if (i0 + uint(r) < uint(C) && pos < uint(HW)) {
				out_st(n, v);
			}
		}
	}
}
#else
layout(local_size_x = LOCAL) in;
uniform int C;

void main() {
	uint n = elem_id();
	if (n >= uint(N)) {
		return;
	}
	uint pos = n % uint(HW);
	uint i = n / uint(HW);
	int sum = prm_ld(uint(P_BETA) + i);
	for (uint j = 0u; j < uint(C); j++) {
		int xj = in0_ld(j * uint(HW) + pos);
		sum += term(prm_ld(uint(P_GAMMA) + i * uint(C) + j), xj * xj);
	}
	out_st(n, finish(sum, in0_ld(n)));
}
#endif
