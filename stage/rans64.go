package stage

import (
	"encoding/binary"

	"github.com/waiops/waiops/refusal"
)

// E1 rans64_decode: the base decode is CompressAI's 64-bit rANS (ryg_rans
// rans64.h, 16-bit probabilities, 4-bit bypass groups), docs/READINGS.md D-B, with
// the modes of §5E.

// ransL is D-B's L_RANS = 2^31: the state is renormalised below it.
const ransL = 1 << 31

// TableRule is E1's table rule.
type TableRule int

const (
	// T4097 is integer-payloads §2: 3 ≤ n ≤ 4097.
	T4097 TableRule = iota
	// T2 allows 2 ≤ n ≤ 65537; with n = 2 every symbol is the escape.
	T2
)

// RansModes are the three E1 modes a capability fixes (§5E, §11).
type RansModes struct {
	Table TableRule
	// Strict selects strict(Lo, Hi); otherwise the escape rule is lenient.
	Strict bool
	Lo, Hi int64
	// FinalOnly selects the final_only end rule; otherwise canonical.
	FinalOnly bool
}

// RansTable is one table: cdf of length n and offset o (integer-payloads §2).
type RansTable struct {
	CDF    []int64
	Offset int64
}

// CheckRansTables applies E1's conditions (§5E): every table meets the
// table rule, every offset fits i32, under strict lo ≤ hi both fitting i32,
// and every read names a table given. Each failure is model_mismatch at −1.
// Decode applies them itself; an encoder's caller uses this.
func CheckRansTables(tables []RansTable, reads []int, m RansModes) error {
	minN, maxN := 3, 4097
	if m.Table == T2 {
		minN, maxN = 2, 65537
	}
	for t, tab := range tables {
		n := len(tab.CDF)
		if n < minN || n > maxN {
			return cond(refusal.ModelMismatch, "rans64_decode: table %d has %d entries, outside %d..%d", t, n, minN, maxN)
		}
		if tab.CDF[0] != 0 || tab.CDF[n-1] != 65536 {
			return cond(refusal.ModelMismatch, "rans64_decode: table %d must run from 0 to 65536", t)
		}
		for k := 1; k < n; k++ {
			if tab.CDF[k] <= tab.CDF[k-1] {
				return cond(refusal.ModelMismatch, "rans64_decode: table %d is not strictly increasing at %d", t, k)
			}
		}
		if !fitsI32(tab.Offset) {
			return cond(refusal.ModelMismatch, "rans64_decode: table %d offset %d does not fit i32", t, tab.Offset)
		}
	}
	if m.Strict && !(fitsI32(m.Lo) && fitsI32(m.Hi) && m.Lo <= m.Hi) {
		return cond(refusal.ModelMismatch, "rans64_decode: strict(%d, %d) needs lo ≤ hi, both fitting i32", m.Lo, m.Hi)
	}
	for i, r := range reads {
		if r < 0 || r >= len(tables) {
			return cond(refusal.ModelMismatch, "rans64_decode: read %d names table %d of %d", i, r, len(tables))
		}
	}
	return nil
}

// RansDecoder decodes rans64 streams. Its buffers are reused, so one decoder
// decodes any number of streams with no allocation per symbol. It is not
// safe for concurrent use.
type RansDecoder struct {
	cdf    [][]uint32 // each table's cdf, narrowed, as slices of flat
	flat   []uint32
	out    []int64
	stream []byte
	x      uint64
	p, nw  int
	// ranOut is set at a renormalisation that finds x < L_RANS with no word
	// left; it stays set (x never grows again once the words are spent).
	// symOut is the same, for the symbol being decoded only.
	ranOut, symOut bool
}

// renorm is D-B's renormalisation: one word at most. x < L_RANS is
// written x>>31 == 0 (the same test, as no bit of x at or above 2^31 is
// set). Written x < 2^31 after bits4's x >>= 4, Go 1.26's s390x compiler
// folds it to true: its rule for CMPUconst of an SRDconst sign-extends the
// immediate 2^31, so on that machine every escape read words it should not
// and decodes ran out early. CI runs the corpus on s390x (scripts/test.sh).
func (d *RansDecoder) renorm() {
	if d.x>>31 == 0 {
		if d.p < d.nw {
			d.x = d.x<<32 | uint64(binary.LittleEndian.Uint32(d.stream[4*d.p:]))
			d.p++
		} else {
			d.ranOut, d.symOut = true, true
		}
	}
}

// bits4 is D-B's bits(4).
func (d *RansDecoder) bits4() int64 {
	v := int64(d.x & 15)
	d.x >>= 4
	d.renorm()
	return v
}

// EscapeValue is the value of an escape's raw (D-B, §5E strict step 3):
// −⌊raw/2⌋ − 1 for odd raw, ⌊raw/2⌋ + (n − 2) for even raw. raw < 2^32, so
// it fits i64.
func EscapeValue(raw int64, n int) int64 {
	if raw&1 == 1 {
		return -(raw >> 1) - 1
	}
	return raw>>1 + int64(n-2)
}

// Decode decodes one symbol per entry of reads, against tables[reads[i]],
// under modes m (§5E E1). The conditions are checked first (model_mismatch,
// At −1); a stream refusal carries the index in reads of the symbol whose
// checks refuse, or len(reads) for a refusal at the end. The returned slice
// is the decoder's own and is overwritten by its next Decode.
func (d *RansDecoder) Decode(stream []byte, tables []RansTable, reads []int, m RansModes) ([]int64, error) {
	// D-E: a length that is not a multiple of 4, or under 8.
	if len(stream)%4 != 0 || len(stream) < 8 {
		return nil, cond(refusal.ModelMismatch, "rans64_decode: stream of %d bytes is not a multiple of 4 of at least 8", len(stream))
	}
	if err := CheckRansTables(tables, reads, m); err != nil {
		return nil, err
	}
	// The table rule holds, so every entry fits u32.
	d.flat, d.cdf = d.flat[:0], d.cdf[:0]
	for _, tab := range tables {
		for _, v := range tab.CDF {
			d.flat = append(d.flat, uint32(v))
		}
	}
	start := 0
	for _, tab := range tables {
		d.cdf = append(d.cdf, d.flat[start:start+len(tab.CDF)])
		start += len(tab.CDF)
	}
	d.out = d.out[:0]
	d.stream, d.nw = stream, len(stream)/4
	// D-B init: x = w[0] | w[1] << 32, the word pointer at 2.
	d.x = binary.LittleEndian.Uint64(stream)
	d.p, d.ranOut = 2, false
	for i, r := range reads {
		sym, err := d.symbol(d.cdf[r], tables[r].Offset, m, int64(i))
		if err != nil {
			return nil, err
		}
		d.out = append(d.out, sym)
	}
	at := int64(len(reads))
	if m.FinalOnly {
		// §5E final_only: the stream must not have run out, tested once.
		if d.ranOut {
			return nil, refusal.NewAt(StreamExhausted, at, "rans64_decode: the stream ran out before the last symbol ended")
		}
	} else if d.x != ransL || d.p != d.nw {
		// D-B canonical end: x = 2^31 and every word read.
		return nil, refusal.NewAt(StreamNoncanonical, at, "rans64_decode: the stream does not end canonically (state %#x, %d of %d words read)", d.x, d.p, d.nw)
	}
	return d.out, nil
}

// symbol decodes symbol i against cdf (offset o) and applies §5E's checks on
// one symbol.
func (d *RansDecoder) symbol(cdf []uint32, o int64, m RansModes, i int64) (int64, error) {
	d.symOut = false
	// D-B: f = x mod 2^16; s the largest index with cdf[s] ≤ f.
	f := uint32(d.x & 0xffff)
	lo, hi := 0, len(cdf)-1 // cdf[lo] ≤ f < cdf[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if cdf[mid] <= f {
			lo = mid
		} else {
			hi = mid
		}
	}
	s := lo
	d.x = uint64(cdf[s+1]-cdf[s])*(d.x>>16) + uint64(f-cdf[s])
	d.renorm()
	n := len(cdf)
	if !m.Strict {
		return d.lenient(s, n, o, m, i)
	}
	var sym int64
	var count, last int64
	escape := s == n-2
	if escape {
		// §5E strict: one count group; value groups only when count ≤ 8.
		count = d.bits4()
		var raw int64
		if count <= 8 {
			for j := range count {
				last = d.bits4()
				raw |= last << (4 * j)
			}
		}
		sym = EscapeValue(raw, n) + o // nothing is saturated
	} else {
		sym = int64(s) + o
	}
	// §5E checks on one symbol under strict, in order.
	switch {
	case !m.FinalOnly && d.symOut:
		return 0, refusal.NewAt(StreamExhausted, i, "rans64_decode: the stream ran out in symbol %d", i)
	case escape && count > 8:
		return 0, refusal.NewAt(StreamNoncanonical, i, "rans64_decode: symbol %d escape count %d passes 8", i, count)
	case escape && count >= 1 && last == 0:
		return 0, refusal.NewAt(StreamNoncanonical, i, "rans64_decode: symbol %d escape is not minimal (last group 0)", i)
	case sym < m.Lo || sym > m.Hi:
		return 0, refusal.NewAt(refusal.FieldRange, i, "rans64_decode: symbol %d = %d is outside [%d, %d]", i, sym, m.Lo, m.Hi)
	}
	return sym, nil
}

// lenient finishes symbol i under the lenient escape rule (D-B).
func (d *RansDecoder) lenient(s, n int, o int64, m RansModes, i int64) (int64, error) {
	var sym int64
	if s != n-2 {
		sym = int64(s) + o
	} else {
		count := d.bits4()
		last := count
		// Continuation groups while the group just read is 15 and the
		// stream has not run out, at most 8 of them.
		for k := 0; k < 8 && last == 15 && !d.ranOut; k++ {
			last = d.bits4()
			count += last
		}
		count = min(count, 8)
		var raw int64
		for j := range count {
			raw |= d.bits4() << (4 * j)
		}
		sym = clamp(EscapeValue(raw, n), minI32, maxI32) + o
	}
	sym = clamp(sym, minI32, maxI32)
	// §5E canonical end rule: stop at the first symbol during whose decode
	// the stream runs out.
	if !m.FinalOnly && d.symOut {
		return 0, refusal.NewAt(StreamExhausted, i, "rans64_decode: the stream ran out in symbol %d", i)
	}
	return sym, nil
}
