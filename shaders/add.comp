// add (§5.5): a + b. acc32: the sum is a tensor element, so it fits i32.
layout(local_size_x = LOCAL) in;
uniform int N;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, in0_ld(i) + in1_ld(i));
}
