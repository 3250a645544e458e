// rgba8: no operator; the viewer's presentation step. It lays a [3, H, W]
// frame tensor (every value a byte: the graph ends in clamp(0, 255) or the
// RGB8 step) out as one 32-bit word per pixel, R | G << 8 | B << 16 | 0xff << 24,
// which is RGBA8 bytes in memory for a pixel-unpack upload. Each value is
// clamped to 0 … 255 first, which changes nothing for such a graph.
layout(local_size_x = LOCAL) in;
uniform int N; // H·W pixels

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	int r = clamp(in0_ld(i), 0, 255);
	int g = clamp(in0_ld(uint(N) + i), 0, 255);
	int b = clamp(in0_ld(2u * uint(N) + i), 0, 255);
	out_st(i, r | (g << 8) | (b << 16) | int(0xff000000u));
}
