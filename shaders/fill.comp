// fill (§5.10): every element is the value (acc32: it fits i32).
layout(local_size_x = LOCAL) in;
uniform int N;
uniform int V;

void main() {
	uint i = elem_id();
	if (i >= uint(N)) {
		return;
	}
	out_st(i, V);
}
