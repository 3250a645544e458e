// wire: no operator; a graph output crossing from device to host at its
// certified width. B (8 or 16) is the bits an element takes there: 32 / B
// elements to a 32-bit word, element k of a word in its bits k·B … k·B +
// B − 1 (the host's bytes in little-endian order). The certificate's
// interval of the tensor lies in iB or uB (§8.1), so its low B bits hold
// it, in two's complement or unsigned. in0 holds the tensor, out gets the
// packed words, one thread a word; the elements past N leave their bits 0.
// (A graph input is read packed by its readers: gpu/shader.go's writeSlot.)
layout(local_size_x = LOCAL) in;
uniform int N; // elements

#define PER (32 / B)

void main() {
	uint i = elem_id();
	uint words = (uint(N) + uint(PER) - 1u) / uint(PER);
	if (i >= words) {
		return;
	}
	uint w = 0u;
	for (int k = 0; k < PER; k++) {
		uint e = i * uint(PER) + uint(k);
		if (e < uint(N)) {
			w = bitfieldInsert(w, uint(in0_ld(e)), k * B, B);
		}
	}
	out_st(i, int(w));
}
