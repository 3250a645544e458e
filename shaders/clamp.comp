// clamp (§5.5): clamp(v, lo, hi). The host narrows lo and hi to i32 (exact:
// see gpu/elementwise.go). The same kernel applies a clamp policy (§3) in
// place, with in0 and out bound to one tensor.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int LO;
uniform int HI;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, min(max(in0_ld(i), LO), HI));
}
