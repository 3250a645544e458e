// chunk_add (§5.5): out[c] = in[c] + in[c + C/2]; N is the output's
// C/2·H·W, so in[c + C/2] sits N elements further on.
layout(local_size_x = LOCAL) in;
uniform int N;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, in0_ld(i) + in0_ld(i + uint(N)));
}
