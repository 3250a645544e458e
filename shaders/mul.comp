// mul (§5.4): out[c][y][x] = rq_c(a[c][y][x] · b[c′][y][x]), c′ = c when b
// has C channels, else 0 (BC is b's element count: C·H·W or H·W).
// acc32: mul.p fits i32 (class acc), so a·b is an int product.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int HW;
uniform int BC;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, rq(in0_ld(i) * in1_ld(i % uint(BC)), i / uint(HW)));
}
