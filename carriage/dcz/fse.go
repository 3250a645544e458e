package dcz

import "math/bits"

// The predefined distributions of RFC 8878 §3.1.1.3.2.2, which a block
// whose Symbol_Compression_Modes byte is 0 codes its sequences with. A
// count of -1 is a "less than 1" probability: one state, at the table's top.
var (
	llNorm = fseNorm{log: 6, counts: []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}}
	mlNorm = fseNorm{log: 6, counts: []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		-1, -1, -1, -1, -1, -1, -1}}
	ofNorm = fseNorm{log: 5, counts: []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}}
)

// The three coders, built once from the distributions above.
var llCoder, mlCoder, ofCoder = newFSECoder(llNorm), newFSECoder(mlNorm), newFSECoder(ofNorm)

// fseNorm is a normalized distribution: the counts of each symbol sum to
// 2^log, a -1 counting as 1 (RFC 8878 §4.1.1).
type fseNorm struct {
	log    uint
	counts []int16
}

// fseSymbol is how one symbol moves the coder's state: a state s is left by
// writing its low (s + deltaBits) >> 16 bits, and the next state is
// next[(s >> nbBits) + deltaState].
type fseSymbol struct {
	deltaBits  uint32
	deltaState int32
}

// fseCoder codes symbols as RFC 8878 §4.1's decoder reads them. Its states
// are 2^log + the index of a decoding-table cell, so a state's low log bits
// are the cell the decoder starts from.
type fseCoder struct {
	log  uint
	next []uint16
	sym  []fseSymbol
}

// spread places the symbols in the decoding table as §4.1.1 fixes it: each
// "less than 1" symbol in one cell from the top down, then every other
// symbol's count cells, stepping by (size/2 + size/8 + 3) mod size and
// passing over the cells the first kind took.
func (n fseNorm) spread() []uint8 {
	size := 1 << n.log
	cells := make([]uint8, size)
	high := size - 1
	for s, c := range n.counts {
		if c == -1 {
			cells[high] = uint8(s)
			high--
		}
	}
	step, mask, pos := size>>1+size>>3+3, size-1, 0
	for s, c := range n.counts {
		for range max(c, 0) {
			cells[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	return cells
}

// newFSECoder derives the coder that the decoding table of n inverts: the
// cells of each symbol, in table order, become that symbol's run of next
// states; a symbol of count c leaves a state by log - ⌊log2(c - 1)⌋ or one
// fewer bits, so that the decoder's Number_of_Bits and Baseline land on it.
func newFSECoder(n fseNorm) *fseCoder {
	size := 1 << n.log
	cells := n.spread()
	start := make([]int, len(n.counts)+1) // each symbol's first next state
	for s, c := range n.counts {
		start[s+1] = start[s] + int(c)
		if c == -1 {
			start[s+1] = start[s] + 1
		}
	}
	f := &fseCoder{log: n.log, next: make([]uint16, size), sym: make([]fseSymbol, len(n.counts))}
	fill := append([]int(nil), start...)
	for u, s := range cells {
		f.next[fill[s]] = uint16(size + u)
		fill[s]++
	}
	for s, c := range n.counts {
		switch {
		case c == -1 || c == 1:
			f.sym[s] = fseSymbol{deltaBits: uint32(n.log<<16) - uint32(size), deltaState: int32(start[s] - 1)}
		case c > 1:
			out := n.log - uint(bits.Len(uint(c-1))-1)
			f.sym[s] = fseSymbol{deltaBits: uint32(out<<16) - uint32(int(c)<<out), deltaState: int32(start[s] - int(c))}
		}
	}
	return f
}

// first is the state a stream starts in whose last symbol (the first the
// decoder reads) is s: the lowest state that symbol leaves with the fewest
// bits, moved as if s had been coded from it.
func (f *fseCoder) first(s uint8) uint32 {
	t := f.sym[s]
	out := (t.deltaBits + 1<<15) >> 16
	v := out<<16 - t.deltaBits
	return uint32(f.next[int32(v>>out)+t.deltaState])
}

// code writes the bits that leave state for symbol s and returns the next.
func (f *fseCoder) code(w *bitWriter, state uint32, s uint8) uint32 {
	t := f.sym[s]
	out := (state + t.deltaBits) >> 16
	w.add(uint64(state), uint(out))
	return uint32(f.next[int32(state>>out)+t.deltaState])
}

// flush writes the state's low log bits, the decoder's initial state.
func (f *fseCoder) flush(w *bitWriter, state uint32) { w.add(uint64(state), f.log) }

// The largest Accuracy_Log each stream's table may have (RFC 8878
// §3.1.1.3.2.2).
const (
	llMaxLog = 9
	ofMaxLog = 8
	mlMaxLog = 9
)

// normalize is a distribution for counts (codes seen, total of them) in
// 2^log cells: each seen code gets its share rounded down, at least 1, and
// the cells left over (or taken too many) go to (come from) the largest
// shares. In integers throughout. log is at least bits.Len(the number of
// codes seen) + 1, so the largest share can always give.
func normalize(counts []int, total int, log uint) fseNorm {
	last := len(counts) - 1
	for last > 0 && counts[last] == 0 {
		last--
	}
	n := fseNorm{log: log, counts: make([]int16, last+1)}
	size, sum := 1<<log, 0
	for s, c := range counts[:last+1] {
		if c > 0 {
			n.counts[s] = int16(max(c*size/total, 1))
			sum += int(n.counts[s])
		}
	}
	for sum != size {
		big := 0
		for s, c := range n.counts {
			if c > n.counts[big] {
				big = s
			}
		}
		if sum < size {
			n.counts[big] += int16(size - sum)
			sum = size
		} else {
			take := min(sum-size, int(n.counts[big])-1)
			n.counts[big] -= int16(take)
			sum -= take
		}
	}
	return n
}

// description appends n's FSE_Compressed table description (RFC 8878
// §4.1.1), whose bit layout the format fixes: Accuracy_Log - 5 in 4 bits,
// then each symbol's count + 1 in as many bits as the cells still to give
// out need (one fewer where the value is small enough to tell apart), a
// count of 0 followed by 2-bit repeat flags for the zeros after it, up to
// the symbol that gives out the last cell; then padding to a byte.
func (n fseNorm) description(dst []byte) []byte {
	w := bitWriter{out: dst}
	w.add(uint64(n.log-5), 4)
	size := 1 << n.log
	remaining, threshold, nbits := size+1, size, n.log+1
	zero := false
	for s := 0; s < len(n.counts) && remaining > 1; {
		if zero {
			start := s
			for s < len(n.counts) && n.counts[s] == 0 {
				s++
			}
			for s >= start+24 {
				start += 24
				w.add(0xFFFF, 16)
			}
			for s >= start+3 {
				start += 3
				w.add(3, 2)
			}
			w.add(uint64(s-start), 2)
		}
		c := int(n.counts[s])
		s++
		most := 2*threshold - 1 - remaining
		remaining -= max(c, -c)
		c++
		if c >= threshold {
			c += most
		}
		if c < most {
			w.add(uint64(c), nbits-1)
		} else {
			w.add(uint64(c), nbits)
		}
		zero = c == 1
		for remaining < threshold {
			nbits--
			threshold >>= 1
		}
	}
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	return w.out
}
