package dcz

// bitWriter appends bits least significant first, the order in which RFC
// 8878 §4.1's backward bitstreams are written (the decoder reads them from
// the last byte's highest set bit down).
type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

// add appends the low n bits of v; n is at most 32, so acc (fewer than 8
// bits pending before the add) never holds more than 39.
func (w *bitWriter) add(v uint64, n uint) {
	w.acc |= (v & (1<<n - 1)) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// close appends the end mark, a 1 bit, and pads the last byte with zeros.
func (w *bitWriter) close() {
	w.add(1, 1)
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
}
