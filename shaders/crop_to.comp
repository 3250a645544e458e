// crop_to (§5.10): out[c][y][x] = in[c][y][x] over an output of [C, OH, OW]
// (ref's sides) from an input of [C, H, W]; only ref's shape is read, so
// ref is not bound.
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
	out_st(i, in0_ld((c * uint(H) + y) * uint(W) + x));
}
