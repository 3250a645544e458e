// pixel_shuffle (§5.10): out[c][h·r + i][w·r + j] = in[c·r² + i·r + j][h][w],
// over an output of [C/r², OH, OW] from an input of [C, H, W].
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
	uint ox = n % uint(OW);
	uint oy = (n / uint(OW)) % uint(OH);
	uint c = n / uint(OW * OH);
	uint ic = c * r * r + (oy % r) * r + ox % r;
	out_st(n, in0_ld((ic * uint(H) + oy / r) * uint(W) + ox / r));
}
