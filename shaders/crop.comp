// crop (§5.10): out[c][y][x] = in[c][y0 + y][x0 + x] over an output of
// [C, OH, OW] from an input of [C, H, W], with y0 and x0 constants or
// scalars (the host reads them from the plan).
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int H;
uniform int W;
uniform int OH;
uniform int OW;
uniform int Y0;
uniform int X0;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	uint x = i % uint(OW);
	uint y = (i / uint(OW)) % uint(OH);
	uint c = i / uint(OW * OH);
	out_st(i, in0_ld((c * uint(H) + uint(Y0) + y) * uint(W) + uint(X0) + x));
}
