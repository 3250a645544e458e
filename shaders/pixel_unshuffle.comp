// pixel_unshuffle (§5.10): out[c·r² + i·r + j][h][w] = in[c][h·r + i][w·r + j],
// over an output of [C·r², OH, OW] from an input of [C, H, W].
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int H;
uniform int W;
uniform int OH;
uniform int OW;
uniform int R;

void main() {
	uint n = elem_id();
	if (n >= uint(N)) {
		return;
	}
	uint r = uint(R);
	uint w = n % uint(OW);
	uint h = (n / uint(OW)) % uint(OH);
	uint oc = n / uint(OW * OH);
	uint c = oc / (r * r);
	uint ij = oc % (r * r);
	out_st(n, in0_ld((c * uint(H) + h * r + ij / r) * uint(W) + w * r + ij % r));
}
