// subpos_merge (§5.10): the inverse of subpos_split, out[c][2y + a_k][2x + b_k]
// = in_k[c][y][x]; the host dispatches once per input k with (A, B) =
// order[k], over an input of [C, H, W] into an output of [C, 2H, 2W].
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int H;
uniform int W;
uniform int A;
uniform int B;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	uint x = i % uint(W);
	uint y = (i / uint(W)) % uint(H);
	uint c = i / uint(W * H);
	out_st((c * uint(2 * H) + 2u * y + uint(A)) * uint(2 * W) + 2u * x + uint(B), in0_ld(i));
}
