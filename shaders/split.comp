// split (§5.10): out[c] = in[start + c], one run from element OFF =
// start·H·W.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int OFF;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, in0_ld(uint(OFF) + i));
}
