// chscale (§5.4): out[c][y][x] = R_round(in[c][y][x] · M[r][c], s), with row
// r the value of the scalar (ROW = r·C locates M[r] in prm) and
// the shift S. acc32: M's entries fit i32 and s ≤ 63 (§7.2).
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int HW;
uniform int S;
uniform int ROW; // r·C: where row r of M starts in prm

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	w64 p = w_mul(in0_ld(i), prm_ld(uint(ROW) + i / uint(HW)));
	out_st(i, int(round_shift(p, uint(S)).lo));
}
