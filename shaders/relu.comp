// relu (§5.5): max(v, 0).
layout(local_size_x = LOCAL) in;
uniform int N;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, max(in0_ld(i), 0));
}
