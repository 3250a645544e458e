package dcz

import (
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// sequence is one of RFC 8878 §3.1.1.3.2's: ll literals, then ml bytes
// copied from ofv's distance. ofv is the Offset_Value: 1 to 3 name repeat
// offsets (§3.1.2.5, see emit), v > 3 the distance v - 3.
type sequence struct{ ll, ml, ofv uint32 }

// minHuffman is the fewest literals worth a Huffman table; below it they go
// raw. huff0's four streams need a few bytes each.
const minHuffman = 256

// blockContent appends a Compressed_Block's content (RFC 8878 §3.1.1.3):
// the literals section, then the sequences section coded with the tables
// sequencesSection picks; codes is scratch space, returned for
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

// minCompressed is the fewest sequences for which a block also tries
// tables of its own (FSE_Compressed_Mode): below it a table's description
// costs more than it can save. From onlyFitted sequences on, the fitted
// tables are the only ones tried: their descriptions, a few tens of bytes,
// are then far below what the predefined tables' misfit costs.
const (
	minCompressed = 32
	onlyFitted    = 1024
)

// sequencesSection appends §3.1.1.3.2: Number_of_Sequences, the
// Symbol_Compression_Modes byte, each stream's table description, then the
// bitstream. A stream whose sequences all have one code is RLE (mode 1:
// the code is its description, and it costs no bits); the others are
// Predefined (mode 0) or, where that makes the section smaller (and
// always from onlyFitted sequences on), tables fitted to the block's codes
// (mode 2, FSE_Compressed). codes is scratch
// space, returned for reuse.
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
	var hist [3][53]int // ll, of, ml
	for _, s := range seqs {
		var c seqCodes
		c.ll, c.lx, c.lb = llCode(s.ll)
		c.ml, c.mx, c.mb = mlCode(s.ml)
		c.of, c.ox, c.ob = ofCode(s.ofv)
		codes = append(codes, c)
		hist[0][c.ll]++
		hist[1][c.of]++
		hist[2][c.ml]++
	}
	first := [3]uint8{codes[0].ll, codes[0].of, codes[0].ml}
	predef := [3]*fseCoder{llCoder, ofCoder, mlCoder}
	maxLog := [3]uint{llMaxLog, ofMaxLog, mlMaxLog}
	var fixed, fitted [3]stream
	for k := range 3 {
		if hist[k][first[k]] == n {
			fixed[k] = stream{mode: 1, desc: []byte{first[k]}}
			fitted[k] = fixed[k]
			continue
		}
		fixed[k] = stream{f: predef[k]}
		if n >= minCompressed {
			seen := 0
			for _, c := range hist[k] {
				seen += min(c, 1)
			}
			log := min(maxLog[k], max(5, uint(bits.Len(uint(seen)))+1, uint(bits.Len(uint(n)))-2))
			norm := normalize(hist[k][:], n, log)
			fitted[k] = stream{mode: 2, f: newFSECoder(norm), desc: norm.description(nil)}
		}
	}
	if n >= onlyFitted {
		return appendSequences(dst, codes, fitted), codes
	}
	start := len(dst)
	dst = appendSequences(dst, codes, fixed)
	if n >= minCompressed {
		mid := len(dst)
		dst = appendSequences(dst, codes, fitted)
		if len(dst)-mid < mid-start {
			return dst[:start+copy(dst[start:], dst[mid:])], codes
		}
		dst = dst[:mid]
	}
	return dst, codes
}

// appendSequences appends the modes byte, the streams' descriptions
// (literals lengths, offsets, match lengths) and the bitstream, written
// from the last sequence back to the first so that the decoder, reading it
// backward, meets the first first. Each sequence's extra bits go literals
// length, match length, offset, and the states are flushed match length,
// offset, literals length (§3.1.1.3.2.2's reading order, reversed).
func appendSequences(dst []byte, codes []seqCodes, st [3]stream) []byte {
	ll, of, ml := st[0], st[1], st[2]
	dst = append(dst, ll.mode<<6|of.mode<<4|ml.mode<<2)
	dst = append(append(append(dst, ll.desc...), of.desc...), ml.desc...)
	w := bitWriter{out: dst}
	n := len(codes)
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
	return w.out
}

// seqCodes is a sequence's three codes, each with its extra bits' value
// and number.
type seqCodes struct {
	ll, ml, of uint8
	lx, mx, ox uint32
	lb, mb, ob uint8
}

// stream is one of the three symbol streams as a block codes it: mode 0
// (Predefined) or 2 (FSE_Compressed, desc its table's description) with
// a coder, or mode 1 (RLE: desc the one code, no coder, no bits).
type stream struct {
	mode  uint8
	f     *fseCoder
	desc  []byte
	state uint32
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
