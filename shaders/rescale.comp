// rescale (§5.4): out[c][y][x] = rq_c(in[c][y][x]); HW is H·W.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int HW;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, rq(in0_ld(i), i / uint(HW)));
}
