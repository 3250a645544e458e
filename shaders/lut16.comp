// lut16 (§5.6): out = T[v + 32768]. The load check keeps the input within
// [−32767, 32767], so the index lies in the table; prm holds T as int32.
layout(local_size_x = LOCAL) in;
uniform int N;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, prm_ld(uint(in0_ld(i) + 32768)));
}
