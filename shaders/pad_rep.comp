// pad_rep (§5.10): out[c][y][x] = in[c][min(y, H−1)][min(x, W−1)] over an
// output of [C, OH, OW].
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int H;
uniform int W;
uniform int OH;
uniform int OW;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	uint x = i % uint(OW);
	uint y = (i / uint(OW)) % uint(OH);
	uint c = i / uint(OW * OH);
	out_st(i, in0_ld((c * uint(H) + min(y, uint(H - 1))) * uint(W) + min(x, uint(W - 1))));
}
