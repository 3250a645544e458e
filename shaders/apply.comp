// apply (§5.9): out[g·d + i][y][x] = R_round(Σ_{j<d} A[g·d + i][0][j] ·
// V[g·d + j][y][x], s), one thread per output element; A is [C, 1, D], V
// and the output [C, H, W] with HW = H·W. The rq has no multiplier or bias.
//
// acc32: every product and partial sum (apply.term, apply.acc) fits i32.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int D;
uniform int HW;

void main() {
	uint n = elem_id();
	if (n >= uint(N)) {
		return;
	}
	uint pos = n % uint(HW);
	uint row = n / uint(HW);
	uint v0 = (row / uint(D)) * uint(D);
	int acc = 0;
	for (uint j = 0u; j < uint(D); j++) {
		acc += in0_ld(row * uint(D) + j) * in1_ld((v0 + j) * uint(HW) + pos);
	}
	out_st(n, rq(acc, row));
}
