// gram (§5.9): out[g·d + i][0][j] = R_round(Σ_{y,x} A[g·d + i][y][x] ·
// B[g·d + j][y][x], s), one thread per output element; the output is
// [C, 1, D] and HW is the inputs' H·W. The rq has no multiplier and no bias.
//
// acc32: every product and partial sum (gram.term, gram.acc) fits i32.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int D;
uniform int HW;

void main() {
	uint n = elem_id();
	if (n >= uint(N)) {
		return;
	}
	uint row = n / uint(D);
	uint col = (row / uint(D)) * uint(D) + n % uint(D);
	int acc = 0;
	for (uint k = 0u; k < uint(HW); k++) {
		acc += in0_ld(row * uint(HW) + k) * in1_ld(col * uint(HW) + k);
	}
	out_st(n, rq(acc, row));
}
