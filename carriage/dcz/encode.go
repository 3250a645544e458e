package dcz

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/huff0"
)

// The coder's shape. Matches are found two ways: the most recent offset
// is tried at every position, and just past a byte where it fails (in a
// successor that differs from its predecessor by changed bytes, every
// match after the first has the offset of the one before), and a hash
// table of anchors finds the rest, from anywhere in the window
// (long-distance matching). An anchor is a position whose 8 bytes' hash has
// anchorBits chosen bits all 0, 1 position in 2^anchorBits: chosen by
// content, the predecessor and the successor choose the same bytes
// wherever they lie, so a match of a few tens of bytes holds one at any
// alignment, and only anchors are looked up (each look a cache miss, in a
// table of up to 32 MiB). A match found there is extended backward over
// the pending literals.
const (
	blockMax     = 128 << 10 // Block_Maximum_Size, the window being larger (RFC 8878 §3.1.1.2.4)
	anchorBits   = 5
	minRepMatch  = 3  // the shortest match the format has
	minHashMatch = 8  // the hashed string's length
	maxTableLog  = 22 // 32 MiB of table at most, for a 128 MiB window
	minTableLog  = 12
	skipLog      = 10 // past each 2^skipLog literals in a run, one more byte skipped per step
	maxStep      = 8
	hashMul      = 0x9E3779B97F4A7C15
)

// coder holds one frame's state. Positions are virtual: 0 is the
// predecessor's first byte, len(dict) the successor's.
type coder struct {
	dict   []byte
	succ   []byte // the successor's bytes read and still in reach, from position len(dict) + drop
	drop   int    // the successor's bytes let go: no match can reach them
	keep   int    // how many bytes of the successor behind the block are kept: the window and a slack
	window int
	table  []uint64 // by hash: an anchor's position - base + 1 (low 32 bits; 0 is empty) and its hash's low 32 bits
	shift  uint
	base   int // the first position that can be in the window: len(dict) - window, or 0
	rep    [3]int
	sum    *xxhash.Digest
	lits   []byte
	seqs   []sequence
	codes  []seqCodes
	out    []byte
	huff   huff0.Scratch
}

func newCoder(dict []byte) *coder {
	window, _ := frameWindow(uint64(len(dict)))
	c := &coder{dict: dict, window: int(window), keep: int(window + window/4), base: max(len(dict)-int(window), 0),
		rep: [3]int{1, 4, 8}, sum: xxhash.New()} // §3.1.2.5: the repeat offsets a raw dictionary starts with
	indexed := len(dict) - c.base
	log := uint(minTableLog)
	for log < maxTableLog && 1<<log < indexed>>anchorBits {
		log++
	}
	c.table, c.shift = make([]uint64, 1<<log), 64-log
	for p := c.base; p+8 <= len(dict); p++ {
		if h := c.hashAt(p); anchor(h) {
			c.insert(p, h)
		}
	}
	return c
}

// bytesAt is the run of bytes from position p to the end of its part; p is
// the predecessor's or a kept byte of the successor's.
func (c *coder) bytesAt(p int) []byte {
	if p < len(c.dict) {
		return c.dict[p:]
	}
	return c.succ[p-len(c.dict)-c.drop:]
}

// hashAt is the hash of the 8 bytes at p, which lie in one part.
func (c *coder) hashAt(p int) uint64 {
	return binary.LittleEndian.Uint64(c.bytesAt(p)) * hashMul
}

// anchor says whether a position of hash h is an anchor: anchorBits bits
// of the product from bit 32 on are 0. The table's index is its top bits
// (at most 22) and an entry's check its low 32.
func anchor(h uint64) bool { return h>>32&(1<<anchorBits-1) == 0 }

// insert records the anchor at p, of hash h. Past 2^32 - 1 positions from
// base nothing more is recorded (an entry's position is 32 bits), which
// costs matches, never correctness.
func (c *coder) insert(p int, h uint64) {
	if v := p - c.base + 1; v <= math.MaxUint32 {
		c.table[h>>c.shift] = uint64(v) | h<<32
	}
}

// lookup is the position of the anchor recorded under h, or -1: an entry
// whose check is not h's is another string's, and its bytes are not read
// (a second cache miss, most times, saved).
func (c *coder) lookup(h uint64) int {
	e := c.table[h>>c.shift]
	if e == 0 || uint32(e>>32) != uint32(h) {
		return -1
	}
	return int(uint32(e)) - 1 + c.base
}

// matchLen is how many bytes from position src equal those from the
// successor's i on, up to its index end (src < the current position, so a
// match may run from the predecessor into the successor, and overlap).
func (c *coder) matchLen(src, i, end int) int {
	n := 0
	for i+n < end {
		a, b := c.bytesAt(src+n), c.succ[i+n:end]
		k := min(len(a), len(b))
		m := 0
		for m+8 <= k {
			if x := binary.LittleEndian.Uint64(a[m:]) ^ binary.LittleEndian.Uint64(b[m:]); x != 0 {
				return n + m + trailingZeroBytes(x)
			}
			m += 8
		}
		for m < k && a[m] == b[m] {
			m++
		}
		n += m
		if m < k {
			return n
		}
	}
	return n
}

// block finds the sequences of the bytes succ[start:end], a block, with
// the repeat offsets it starts from, and returns the ones it ends with.
func (c *coder) block(start, end int, rep [3]int) [3]int {
	c.lits, c.seqs = c.lits[:0], c.seqs[:0]
	d := len(c.dict) + c.drop // the position of succ[0]
	lit := start              // the first pending literal
	for i := start; i < end; {
		cur := d + i
		// The first byte's test spares a call where the offset fails.
		if src := cur - rep[0]; src >= 0 {
			if c.byteAt(src) == c.succ[i] {
				if n := c.matchLen(src, i, end); n >= minRepMatch {
					lit, i = c.emit(lit, i, n, rep[0], &rep), i+n
					continue
				}
			}
			// A changed byte: the offset most often goes on past it, which
			// saves a look in the table (a cache miss, most times).
			if i+1 < end && c.byteAt(src+1) == c.succ[i+1] {
				if n := c.matchLen(src+1, i+1, end); n > minRepMatch {
					lit, i = c.emit(lit, i+1, n, rep[0], &rep), i+1+n
					continue
				}
			}
		}
		if i+minHashMatch <= end {
			if h := c.hashAt(cur); anchor(h) {
				if src := c.lookup(h); src >= 0 {
					if dist := cur - src; dist > 0 && dist <= c.window {
						if n := c.matchLen(src, i, end); n >= minHashMatch {
							// Backward, the distance stays dist.
							for i > lit && src > 0 && c.byteAt(src-1) == c.succ[i-1] {
								i, src, n = i-1, src-1, n+1
							}
							lit, i = c.emit(lit, i, n, dist, &rep), i+n
							continue
						}
					}
				}
				c.insert(cur, h)
			}
		}
		// In a long run of new bytes, positions are passed over: anchors
		// are chosen by content, so a long match still meets some.
		i += min(1+(i-lit)>>skipLog, maxStep)
	}
	c.lits = append(c.lits, c.succ[lit:end]...)
	return rep
}

func (c *coder) byteAt(p int) byte { return c.bytesAt(p)[0] }

// emit records the sequence of the literals [lit, i) and a match of n bytes
// at distance dist, and returns where the next literals begin. The offset
// is coded as RFC 8878 §3.1.2.5 has it: a repeat offset where dist is one
// (after literals, Offset_Value 1, 2, 3 name the first, second, third; with
// none, 1 and 2 name the second and third), which moves it to the front,
// else dist + 3, pushed in front. So a successor's runs at one offset all
// have Offset_Value 1, across blocks too, once the offset is in two places.
func (c *coder) emit(lit, i, n, dist int, rep *[3]int) int {
	ll := i - lit
	c.lits = append(c.lits, c.succ[lit:i]...)
	s := sequence{ll: uint32(ll), ml: uint32(n), ofv: uint32(dist + 3)}
	k := 0
	if ll == 0 {
		k = 1 // Offset_Value 1 is then the second
	}
	for ; k < 3 && rep[k] != dist; k++ {
	}
	switch {
	case k == 3:
		rep[0], rep[1], rep[2] = dist, rep[0], rep[1]
	case ll > 0:
		s.ofv = uint32(k + 1)
	default:
		s.ofv = uint32(k)
	}
	switch k {
	case 1:
		rep[0], rep[1] = rep[1], rep[0]
	case 2:
		rep[0], rep[1], rep[2] = rep[2], rep[0], rep[1]
	}
	c.seqs = append(c.seqs, s)
	return i + n
}

func trailingZeroBytes(x uint64) int { return bits.TrailingZeros64(x) / 8 }

// fill reads the successor until succ holds want bytes or r ends. succ
// grows by doubling, to no more than keep and two blocks: trim holds it
// there.
func (c *coder) fill(r io.Reader, want int) (eof bool, err error) {
	for len(c.succ) < want {
		if len(c.succ) == cap(c.succ) {
			more := min(max(len(c.succ), blockMax+1), c.keep+2*blockMax+1-len(c.succ))
			grown := make([]byte, len(c.succ), len(c.succ)+max(more, blockMax+1))
			c.succ = grown[:copy(grown, c.succ)]
		}
		n, err := r.Read(c.succ[len(c.succ):cap(c.succ)])
		c.succ = c.succ[:len(c.succ)+n]
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// frame writes one Zstandard frame of the bytes r yields, dict its raw
// dictionary, to w. Its header (RFC 8878 §3.1.1.1) is the magic, a
// Frame_Header_Descriptor of 0x04 (a checksum; no content size, not a
// single segment, no dictionary ID) and frameWindow's descriptor; then the
// blocks, each of at most 128 KiB of the successor, Compressed where that
// is smaller and Raw otherwise (a Raw block leaves the repeat offsets as
// they were, §3.1.2.5); then the low 4 bytes of the content's XXH64.
func frame(w io.Writer, dict []byte, r io.Reader) error {
	return newCoder(dict).frame(w, r)
}

func (c *coder) frame(w io.Writer, r io.Reader) error {
	_, wd := frameWindow(uint64(len(c.dict)))
	if _, err := w.Write([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x04, wd}); err != nil {
		return err
	}
	for pos := 0; ; {
		eof, err := c.fill(r, pos+blockMax+1)
		if err != nil {
			return err
		}
		n := min(blockMax, len(c.succ)-pos)
		last := eof && pos+n == len(c.succ)
		rep := c.block(pos, pos+n, c.rep)
		c.out, c.codes = blockContent(append(c.out[:0], 0, 0, 0), c.lits, c.seqs, c.codes, &c.huff)
		// §3.1.1.2: Last_Block (bit 0), Block_Type (bits 1-2), Block_Size.
		bh := uint32(n)<<3 | 0<<1
		if size := len(c.out) - 3; size < n {
			bh, c.rep = uint32(size)<<3|2<<1, rep
		} else {
			c.out = append(c.out[:3], c.succ[pos:pos+n]...)
		}
		if last {
			bh |= 1
		}
		c.out[0], c.out[1], c.out[2] = byte(bh), byte(bh>>8), byte(bh>>16)
		if _, err := w.Write(c.out); err != nil {
			return err
		}
		c.sum.Write(c.succ[pos : pos+n])
		pos += n
		if last {
			break
		}
		pos = c.trim(pos)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], uint32(c.sum.Sum64()))
	_, err := w.Write(sum[:])
	return err
}

// trim lets go of the successor's bytes that no match can reach any more,
// those more than a window behind pos (the next block's start), once keep
// of them are held, and returns pos in the trimmed succ. Each trim moves
// a window of bytes for a quarter window coded (four bytes moved for each
// coded, at memmove's speed); what it saves is the rest of a long
// successor's memory.
func (c *coder) trim(pos int) int {
	if pos <= c.keep {
		return pos
	}
	k := pos - c.window
	c.succ = c.succ[:copy(c.succ, c.succ[k:])]
	c.drop += k
	return pos - k
}
