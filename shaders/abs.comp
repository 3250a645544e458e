// abs (§5.5, docs/READINGS.md D-A1): |v|. acc32 certifies the result fits i32, so
// v = −2^31 never reaches here.
layout(local_size_x = LOCAL) in;
uniform int N;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	int v = in0_ld(i);
	out_st(i, v < 0 ? -v : v);
}
