// subpos_split (§5.10): out_k[c][y][x] = in[c][2y + a_k][2x + b_k]; the host
// dispatches once per output k with (A, B) = order[k], over an output of
// [C, OH, OW] from an input of [C, 2·OH, 2·OW].
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int OH;
uniform int OW;
uniform int A;
uniform int B;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	uint x = i % uint(OW);
	uint y = (i / uint(OW)) % uint(OH);
	uint c = i / uint(OW * OH);
	out_st(i, in0_ld((c * uint(2 * OH) + 2u * y + uint(A)) * uint(2 * OW) + 2u * x + uint(B)));
}
