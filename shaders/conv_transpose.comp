// conv_transpose (§5.3), in the gather form of its definition: each thread
// computes one output (o, y, x) as the sum over the taps with
// ty = y + ph − i ≥ 0, ty mod sh = 0 and ty / sh < H (likewise x). Taps i
// run from (y + ph) mod sh in steps of sh, so only the divisible ones are
// visited (these are §9.3's phases). A position no tap reaches holds rq_o(0).
// The host runs it only past convTMaxPhases (sh·sw > 64, the huge strides);
// below, conv.comp runs the phase form (gpu/conv_transpose.go).
//
// acc32: every product and partial sum (convT.term, convT.acc) fits i32.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int CIN;
uniform int COUT;
uniform int H;
uniform int W;
uniform int HO;
uniform int WO;
uniform int KH;
uniform int KW;
uniform int SH;
uniform int SW;
uniform int PH;
uniform int PW;
uniform int P_W; // offset of Wt[cin][cout][KH][KW] in prm

void main() {
	uint n = elem_id();
	if (n >= uint(N)) {
		return;
	}
	int x = int(n % uint(WO));
	int y = int((n / uint(WO)) % uint(HO));
	uint o = n / uint(WO * HO);
	int acc = 0;
	for (int ci = 0; ci < CIN; ci++) {
		uint wbase = uint(P_W) + (uint(ci) * uint(COUT) + o) * uint(KH * KW);
		for (int i = (y + PH) % SH; i < KH; i += SH) {
			int ty = y + PH - i;
			if (ty < 0 || ty / SH >= H) {
				continue;
			}
			uint row = (uint(ci) * uint(H) + uint(ty / SH)) * uint(W);
			for (int j = (x + PW) % SW; j < KW; j += SW) {
				int tx = x + PW - j;
				if (tx < 0 || tx / SW >= W) {
					continue;
				}
				acc += prm_ld(wbase + uint(i * KW + j)) * in0_ld(row + uint(tx / SW));
			}
		}
	}
	out_st(n, rq(acc, o));
}
