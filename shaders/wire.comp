// wire: no operator; a graph input or output crossing between host and
// device at its certified width. B (8 or 16) is the bits an element takes
// there: 32 / B elements to a 32-bit word, element k of a word in its bits
// k·B … k·B + B − 1 (the host's bytes in little-endian order). The values
// are two's complement or unsigned, and the certificate's interval of the
// tensor lies in iB or uB (§8.1), so nothing is lost either way.
//
// WIDEN: in0 holds the packed words, out gets one int per element, each
// read with bitfieldExtract: sign-extended, or zero-extended where UNSIGNED
// (an interval inside [0, 2^B − 1]). Otherwise (pack): in0 holds the
// tensor, out gets the packed words, one thread a word; the elements past
// N leave their bits 0.
layout(local_size_x = LOCAL) in;
uniform int N; // elements

#define PER (32 / B)

void main() {
	uint i = elem_id();
#ifdef WIDEN
	if (i >= uint(N)) {
		return;
	}
#ifdef UNSIGNED
	out_st(i, int(bitfieldExtract(uint(in0_ld(i / uint(PER))), int(i % uint(PER)) * B, B)));
#else
	out_st(i, bitfieldExtract(in0_ld(i / uint(PER)), int(i % uint(PER)) * B, B));
#endif
#else
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
#endif
}
