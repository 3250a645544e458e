package prior

import (
	"unicode/utf8"

	"github.com/waiops/waiops/refusal"
)

// bitReader reads one NNC unit's fields most significant bit first
// (§12.2); a field past the unit's end is nnc_truncated.
type bitReader struct {
	b   []byte
	pos uint64 // in bits
}

func (r *bitReader) u(n int, what string) (uint64, error) {
	if uint64(n) > uint64(len(r.b))*8-r.pos {
		return 0, refusal.New(NNCTruncated, "nnc: %s runs past its unit's end", what)
	}
	v := uint64(0)
	for range n {
		v = v<<1 | uint64(r.b[r.pos>>3]>>(7-r.pos&7)&1)
		r.pos++
	}
	return v, nil
}

// i reads an n-bit two's complement integer.
func (r *bitReader) i(n int, what string) (int64, error) {
	v, err := r.u(n, what)
	if err != nil {
		return 0, err
	}
	return int64(v<<(64-n)) >> (64 - n), nil
}

// ue reads the order-k exponential-Golomb code of §12.2; a code longer than
// 40 bits is nnc_malformed.
func (r *bitReader) ue(k int, what string) (uint64, error) {
	v := uint64(0)
	for z := 0; ; z++ {
		if z+1+k > 40 { // k is already the initial k plus z
			return 0, refusal.New(NNCMalformed, "nnc: %s: an exponential-Golomb code longer than 40 bits", what)
		}
		b, err := r.u(1, what)
		if err != nil {
			return 0, err
		}
		if b == 1 {
			break
		}
		v += 1 << k
		k++
	}
	x, err := r.u(k, what)
	return v + x, err
}

// str reads a zero-terminated UTF-8 string that begins on a byte.
func (r *bitReader) str(what string) (string, error) {
	if r.pos%8 != 0 {
		return "", refusal.New(NNCMalformed, "nnc: %s does not begin on a byte", what)
	}
	start := r.pos / 8
	for i := start; i < uint64(len(r.b)); i++ {
		if r.b[i] == 0 {
			s := r.b[start:i]
			if !utf8.Valid(s) {
				return "", refusal.New(NNCMalformed, "nnc: %s is not UTF-8", what)
			}
			r.pos = (i + 1) * 8
			return string(s), nil
		}
	}
	return "", refusal.New(NNCTruncated, "nnc: %s has no zero byte before its unit's end", what)
}

// align reads a byte alignment: a 1 bit, then 0 bits to the byte boundary.
func (r *bitReader) align() error {
	b, err := r.u(1, "a byte alignment")
	if err != nil {
		return err
	}
	pad, err := r.u(int((8-r.pos%8)%8), "a byte alignment")
	if err != nil {
		return err
	}
	if b != 1 || pad != 0 {
		return refusal.New(NNCMalformed, "nnc: a byte alignment is not a 1 bit then 0 bits")
	}
	return nil
}

// bitWriter writes fields most significant bit first.
type bitWriter struct {
	b   []byte
	pos uint64
}

func (w *bitWriter) u(n int, v uint64) {
	for i := n - 1; i >= 0; i-- {
		if w.pos%8 == 0 {
			w.b = append(w.b, 0)
		}
		w.b[len(w.b)-1] |= byte(v>>i&1) << (7 - w.pos%8)
		w.pos++
	}
}

// ue writes v as the order-k exponential-Golomb code; the callers hold v
// under 2^24 (§12.3, docs/READINGS.md D-F).
func (w *bitWriter) ue(k int, v uint64) {
	for v >= 1<<k {
		w.u(1, 0)
		v -= 1 << k
		k++
	}
	w.u(1, 1)
	w.u(k, v)
}

func (w *bitWriter) str(s string) {
	w.b = append(w.b, s...)
	w.b = append(w.b, 0)
	w.pos = uint64(len(w.b)) * 8
}

func (w *bitWriter) align() {
	w.u(1, 1)
	for w.pos%8 != 0 {
		w.u(1, 0)
	}
}
