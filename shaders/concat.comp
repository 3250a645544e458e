// concat (§5.10): the inputs share H and W, so in CHW order each input is
// one run of the output; the host dispatches once per input, at the element
// offset OFF where its channels start.
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int OFF;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(uint(OFF) + i, in0_ld(i));
}
