// leaky(a, f) (§5.5): v if v ≥ 0, else ⌊v·a / 2^f⌋, f in 0..=63.
// acc32: leaky.p (v·a) fits i32 and so does a (§7.2).
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int A;
uniform int F;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	int v = in0_ld(i);
	out_st(i, v >= 0 ? v : asr(v * A, uint(F)));
}
