package dcz

import "github.com/klauspost/compress/huff0"

// sequence is one of RFC 8878 §3.1.1.3.2's: ll literals, then ml bytes
// copied from ofv's distance. ofv is the Offset_Value: 1 is the most recent
// offset (the coder uses it only after literals, where it means that), and
// v > 3 the distance v - 3.
type sequence struct{ ll, ml, ofv uint32 }

// minHuffman is the fewest literals worth a Huffman table; below it they go
// raw. huff0's four streams need a few bytes each.
const minHuffman = 256

// blockContent appends a Compressed_Block's content (RFC 8878 §3.1.1.3):
// the literals section, then the sequences section coded with the
// predefined distributions or RLE; codes is scratch space, returned for
// reuse.
func blockContent(dst, lits []byte, seqs []sequence, codes []seqCodes, huff *huff0.Scratch) ([]byte, []seqCodes) {
	dst = literalsSection(dst, lits, huff)
	return sequencesSection(dst, seqs, codes)
}

// literalsSection appends §3.1.1.3.1: Huffman-coded in four streams
// (huff0's Compress4X writes the tree description, jump table and streams
// the format fixes) where that is smaller, else raw.
func literalsSection(dst, lits []byte, huff *huff0.Scratch) []byte {
	n := uint32(len(lits))
	if n >= minHuffman {
		huff.Reuse = huff0.ReusePolicyNone // every block states its own tree
		out, _, err := huff0.Compress4X(lits, huff)
		if c := uint32(len(out)); err == nil && c+5 < n {
			// §3.1.1.3.1.1, Literals_Block_Type 2 (Compressed): Size_Format
			// 01 holds both sizes in 10 bits, 10 in 14, 11 in 18.
			switch m := max(n, c); {
			case m < 1<<10:
				h := 2 | 1<<2 | n<<4 | c<<14
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
			case m < 1<<14:
				h := 2 | 2<<2 | n<<4 | c<<18
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24))
			default:
				h := uint64(2|3<<2) | uint64(n)<<4 | uint64(c)<<22
				dst = append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32))
			}
			return append(dst, out...)
		}
	}
	// Literals_Block_Type 0 (Raw): a 5-bit size in one byte, 12 bits in two,
	// 20 in three.
	switch {
	case n < 1<<5:
		dst = append(dst, byte(n<<3))
	case n < 1<<12:
		h := 1<<2 | n<<4
		dst = append(dst, byte(h), byte(h>>8))
	default:
		h := 3<<2 | n<<4
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	}
	return append(dst, lits...)
}

// sequencesSection appends §3.1.1.3.2: Number_of_Sequences, the
// Symbol_Compression_Modes byte, each stream's table description, then the
// bitstream, written from the last sequence back to the first so that the
// decoder, reading it backward, meets the first first. A stream whose
// sequences all have one code is RLE (mode 1: the code is its table
// description, and it costs no bits); the others are Predefined (mode 0).
// Each sequence's extra bits go literals length, match length, offset, and
// the states are flushed match length, offset, literals length
// (§3.1.1.3.2.2's reading order, reversed).
func sequencesSection(dst []byte, seqs []sequence, codes []seqCodes) ([]byte, []seqCodes) {
	n := len(seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7F00:
		dst = append(dst, byte(n>>8+128), byte(n))
	default:
		dst = append(dst, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return dst, codes
	}
	codes = codes[:0]
	same := [3]bool{true, true, true} // ll, of, ml
	for _, s := range seqs {
		var c seqCodes
		c.ll, c.lx, c.lb = llCode(s.ll)
		c.ml, c.mx, c.mb = mlCode(s.ml)
		c.of, c.ox, c.ob = ofCode(s.ofv)
		codes = append(codes, c)
		same[0] = same[0] && c.ll == codes[0].ll
		same[1] = same[1] && c.of == codes[0].of
		same[2] = same[2] && c.ml == codes[0].ml
	}
	ll, of, ml := streamOf(llCoder, same[0]), streamOf(ofCoder, same[1]), streamOf(mlCoder, same[2])
	dst = append(dst, ll.mode<<6|of.mode<<4|ml.mode<<2)
	for i, s := range []*stream{&ll, &of, &ml} {
		if s.mode == 1 {
			dst = append(dst, [3]uint8{codes[0].ll, codes[0].of, codes[0].ml}[i])
		}
	}
	w := bitWriter{out: dst}
	for i := n - 1; i >= 0; i-- {
		c := codes[i]
		if i == n-1 {
			ll.start(c.ll)
			ml.start(c.ml)
			of.start(c.of)
		} else {
			of.code(&w, c.of)
			ml.code(&w, c.ml)
			ll.code(&w, c.ll)
		}
		w.add(uint64(c.lx), uint(c.lb))
		w.add(uint64(c.mx), uint(c.mb))
		w.add(uint64(c.ox), uint(c.ob))
	}
	ml.flush(&w)
	of.flush(&w)
	ll.flush(&w)
	w.close()
	return w.out, codes
}

// seqCodes is a sequence's three codes, each with its extra bits' value
// and number.
type seqCodes struct {
	ll, ml, of uint8
	lx, mx, ox uint32
	lb, mb, ob uint8
}

// stream is one of the three symbol streams as a block codes it: with the
// predefined coder (mode 0), or RLE (mode 1: no coder, no bits).
type stream struct {
	mode  uint8
	f     *fseCoder
	state uint32
}

func streamOf(f *fseCoder, rle bool) stream {
	if rle {
		return stream{mode: 1}
	}
	return stream{f: f}
}

func (s *stream) start(sym uint8) {
	if s.f != nil {
		s.state = s.f.first(sym)
	}
}

func (s *stream) code(w *bitWriter, sym uint8) {
	if s.f != nil {
		s.state = s.f.code(w, s.state, sym)
	}
}

func (s *stream) flush(w *bitWriter) {
	if s.f != nil {
		s.f.flush(w, s.state)
	}
}
