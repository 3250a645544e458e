package stage

import (
	"encoding/binary"
	"math/bits"

	"github.com/waiops/waiops/refusal"
)

// E8 mans_decode: a two-state masked table-ANS decode over a backward 64-bit
// bit window (§5E). Tables and operands are checked before the window starts
// (model_mismatch at −1); every later refusal is stream_exhausted, at the
// position §14.1 names.

// SgmTables are the latent tables of E8 sgm: T_y[σ] (256 entries of 32 bits
// each, built from row P[σ]) and the bounds B_y.
type SgmTables struct {
	ty     []uint32 // T_y[σ][state] at σ·256 + state
	bounds []int64
}

// NewSgmTables builds T_y from the rows P[σ] (§5E "Building the latent
// tables"): the rows have one width w ≥ 1 and hold non-negative integers
// summing to exactly 256; every bound lies in [0, 255]. Either failing is
// model_mismatch at −1.
func NewSgmTables(pmf [][]int64, bounds []int64) (*SgmTables, error) {
	for i, b := range bounds {
		if b < 0 || b > 255 {
			return nil, cond(refusal.ModelMismatch, "mans_decode: bound %d = %d is outside [0, 255]", i, b)
		}
	}
	if len(pmf) > 0 && len(pmf[0]) < 1 {
		return nil, cond(refusal.ModelMismatch, "mans_decode: rows of width 0")
	}
	for s, row := range pmf {
		if len(row) != len(pmf[0]) {
			return nil, cond(refusal.ModelMismatch, "mans_decode: row %d has width %d, not %d", s, len(row), len(pmf[0]))
		}
		var sum int64
		for k, p := range row {
			if p < 0 || p > 256 {
				return nil, cond(refusal.ModelMismatch, "mans_decode: P[%d][%d] = %d is outside [0, 256]", s, k, p)
			}
			sum += p
		}
		if sum != 256 {
			return nil, cond(refusal.ModelMismatch, "mans_decode: row %d sums to %d, not 256", s, sum)
		}
	}
	t := &SgmTables{ty: make([]uint32, 256*len(pmf)), bounds: bounds}
	for s, row := range pmf {
		buildLatentRow(t.ty[256*s:256*(s+1)], row)
	}
	return t, nil
}

// buildLatentRow writes T_y[σ] from row P (sum 256), by §5E: C[0] = 0,
// C[k+1] = C[k] + P[k]; F[k] = C[k] − ⌊C[k]/2⌋; G[k] = ⌊C[k]/2⌋ + 128; for
// each column k while C[k] < 256, the slots [F[k], F[k+1]) and
// [G[k], G[k+1]) get sym(k) and their next state.
func buildLatentRow(t []uint32, p []int64) {
	var c int64
	for k := 0; k < len(p) && c < 256; k++ {
		c1 := c + p[k]
		f0, f1 := c-c/2, c1-c1/2
		g0, g1 := c/2+128, c1/2+128
		// sym(k) = k/2 for even k, −(k + 1)/2 for odd k.
		sym := int64(k / 2)
		if k%2 == 1 {
			sym = -int64(k+1) / 2
		}
		for u := f0; u < f1; u++ {
			t[u] = latentEntry(p[k]+(u-f0), sym)
		}
		for u := g0; u < g1; u++ {
			t[u] = latentEntry(p[k]+(f1-f0)+(u-g0), sym)
		}
		c = c1
	}
}

// latentEntry is nb·2^24 + base·2^16 + (sym mod 2^16), with nb the number of
// doublings that bring next ∈ [1, 511] to at least 256 and
// base = (next·2^nb) XOR 256 (§5E).
func latentEntry(next, sym int64) uint32 {
	nb := 0
	for next<<nb < 256 {
		nb++
	}
	base := (next << nb) ^ 256
	return uint32(nb)<<24 | uint32(base)<<16 | uint32(uint16(sym))
}

// zp is §5E's preprocessing table Zp[1..511] of fac mode.
var zp = func() (z [512]uint32) {
	nb := 0
	for i := 511; i >= 1; i-- {
		if i<<nb < 256 {
			nb++
		}
		z[i] = uint32((i<<nb)^256) + 256*uint32(nb)
	}
	return z
}()

// Span is one sgm span: a mask and a distribution σ per position.
type Span struct {
	Mask  []bool
	Sigma []int64
}

// MansDecoder runs mans_decode. Its buffers are reused, so one decoder
// decodes any number of streams with no allocation per symbol. It is not
// safe for concurrent use.
type MansDecoder struct {
	mem []byte // M: 8 zero bytes, then the stream
	p   int    // window index into mem
	h   uint64 // head
	b   uint   // bit position
	s   [2]uint8
	bad bool // a window operation refused: the stream lacks bits or bytes
	tz  [256]uint32
	out []int64
	// Escapes counts the escapes taken by the last decode (sgm: out's
	// escape; fac: sym 63), for tests and tooling.
	Escapes int
}

// le64 is LE64(i) of §5E.
func (d *MansDecoder) le64(i int) uint64 { return binary.LittleEndian.Uint64(d.mem[i:]) }

// read is §5E read(k): refused when k > b.
func (d *MansDecoder) read(k uint) uint64 {
	if k > d.b {
		d.bad = true
		return 0
	}
	d.b -= k
	r := d.h >> d.b
	d.h -= r << d.b
	return r
}

// flush is §5E flush: d = 7 XOR ⌊b/8⌋ bytes back, refused when d > p.
func (d *MansDecoder) flush() {
	n := int(7 ^ d.b/8)
	if n > d.p {
		d.bad = true
		return
	}
	d.p -= n
	d.b = 56 + d.b%8
	d.h = d.le64(d.p) & (1<<d.b - 1)
}

// start builds M and runs §5E init; a refusal in init is at 0 (§14.1).
func (d *MansDecoder) start(stream []byte) error {
	d.mem = append(append(d.mem[:0], 0, 0, 0, 0, 0, 0, 0, 0), stream...)
	d.out, d.bad, d.Escapes = d.out[:0], false, 0
	d.p = len(stream)
	d.h = d.le64(d.p)
	if d.h == 0 {
		return refusal.NewAt(StreamExhausted, 0, "mans_decode: no sentinel bit in the last 8 bytes")
	}
	d.b = uint(bits.Len64(d.h) - 1)
	d.h -= 1 << d.b
	d.s[0] = uint8(d.read(8))
	d.s[1] = uint8(d.read(8))
	d.flush()
	return d.refused(0)
}

// refused returns the stream_exhausted refusal at position at if a window
// operation has failed.
func (d *MansDecoder) refused(at int) error {
	if !d.bad {
		return nil
	}
	return refusal.NewAt(StreamExhausted, int64(at), "mans_decode: the window needs bits or bytes the stream does not hold, at position %d", at)
}

// Sgm decodes spans in sgm mode against tab (§5E "Latent decode"). It
// returns every position's symbol in decode order, 0 at each unmasked one;
// the slice is the decoder's own and is overwritten by its next decode.
func (d *MansDecoder) Sgm(stream []byte, tab *SgmTables, spans []Span) ([]int64, error) {
	total := 0
	rows := int64(len(tab.ty) / 256)
	for k, sp := range spans {
		if len(sp.Mask) != len(sp.Sigma) {
			return nil, cond(refusal.ModelMismatch, "mans_decode: span %d has %d mask entries and %d distributions", k, len(sp.Mask), len(sp.Sigma))
		}
		// docs/READINGS.md D-E: every σ is checked, masked or not.
		for i, s := range sp.Sigma {
			if s < 0 || s >= rows || s >= int64(len(tab.bounds)) {
				return nil, cond(refusal.ModelMismatch, "mans_decode: span %d position %d names distribution %d of %d rows and %d bounds", k, i, s, rows, len(tab.bounds))
			}
		}
		total += len(sp.Mask)
	}
	if err := d.start(stream); err != nil {
		return nil, err
	}
	d.out = append(d.out, make([]int64, total)...)
	pos := 0
	for _, sp := range spans {
		if err := d.sgmSpan(tab, sp, d.out[pos:pos+len(sp.Mask)], pos); err != nil {
			return nil, err
		}
		pos += len(sp.Mask)
	}
	return d.out, nil
}

// sgmIn is §5E in(which, i) of sgm.
func (d *MansDecoder) sgmIn(tab *SgmTables, which int, sigma int64) int64 {
	t := tab.ty[sigma<<8|int64(d.s[which])]
	d.s[which] = uint8(uint64(t>>16) | d.read(uint(t>>24)))
	return int64(int16(t)) // wrap16(t mod 2^16)
}

// sgmOut is §5E out(i) of sgm: the escape when sym + β = 0.
func (d *MansDecoder) sgmOut(tab *SgmTables, sym, sigma int64) int64 {
	beta := tab.bounds[sigma]
	if sym+beta != 0 {
		return sym
	}
	d.Escapes++
	n := uint(16)
	if d.read(1) == 1 {
		n = 3
	}
	v := int64(d.read(n))
	if v%2 == 0 {
		sym = int64(int16(v/2 + beta))
	} else {
		sym = int64(int16(-(v / 2) - beta))
	}
	d.flush()
	return sym
}

// sgmSpan decodes one span into out; base is the position of its first
// element across all spans (§14.1's at).
func (d *MansDecoder) sgmSpan(tab *SgmTables, sp Span, out []int64, base int) error {
	n := len(sp.Mask)
	i := 0
	for ; i+4 <= n; i += 4 {
		for k := range 4 {
			if sp.Mask[i+k] {
				out[i+k] = d.sgmIn(tab, k&1, sp.Sigma[i+k])
				if d.bad {
					return d.refused(base + i + k)
				}
			}
		}
		d.flush()
		if d.bad {
			return d.refused(base + i + 3)
		}
		for k := range 4 {
			if sp.Mask[i+k] {
				out[i+k] = d.sgmOut(tab, out[i+k], sp.Sigma[i+k])
				if d.bad {
					return d.refused(base + i + k)
				}
			}
		}
	}
	// The remainder: a pair (s1, s2) when L′ mod 4 ≥ 2, then a single (s1)
	// when L′ is odd, each position in then out, each part ending in a flush.
	for _, part := range [2]int{2 * ((n - i) / 2), (n - i) % 2} {
		if part == 0 {
			continue
		}
		for k := range part {
			if sp.Mask[i+k] {
				out[i+k] = d.sgmIn(tab, k, sp.Sigma[i+k])
				if !d.bad {
					out[i+k] = d.sgmOut(tab, out[i+k], sp.Sigma[i+k])
				}
				if d.bad {
					return d.refused(base + i + k)
				}
			}
		}
		d.flush()
		if d.bad {
			return d.refused(base + i + part - 1)
		}
		i += part
	}
	return nil
}

// FacRow is one fac row: 63 cumulative counts 0 ≤ c_0 ≤ … ≤ c_62 ≤ 255.
type FacRow [63]int64

// Fac decodes rows in fac mode (§5E "Hyper-latent decode"), row r with
// lengths[r] symbols and row table rows[r]. It returns every symbol in
// decode order; the slice is the decoder's own.
func (d *MansDecoder) Fac(stream []byte, rows []FacRow, lengths []int64) ([]int64, error) {
	if len(rows) != len(lengths) {
		return nil, cond(refusal.ModelMismatch, "mans_decode: %d rows and %d lengths", len(rows), len(lengths))
	}
	for r, row := range rows {
		prev := int64(0)
		for a, c := range row {
			if c < prev || c > 255 {
				return nil, cond(refusal.ModelMismatch, "mans_decode: row %d count %d = %d breaks 0 ≤ c_0 ≤ … ≤ c_62 ≤ 255", r, a, c)
			}
			prev = c
		}
	}
	var total int64
	for r, n := range lengths {
		if n < 0 {
			return nil, cond(refusal.ModelMismatch, "mans_decode: row %d length %d is negative", r, n)
		}
		total += min(n, maxElems+1)
		if total > maxElems {
			return nil, cond(refusal.TooLarge, "mans_decode: rows of more than 2^26 symbols in all")
		}
	}
	if err := d.start(stream); err != nil {
		return nil, err
	}
	d.tz = [256]uint32{} // T_z starts at all zeros
	d.out = append(d.out, make([]int64, total)...)
	pos := 0
	for r, row := range rows {
		n := int(lengths[r])
		d.facTable(&row)
		if err := d.facRow(d.out[pos:pos+n], pos); err != nil {
			return nil, err
		}
		pos += n
	}
	return d.out, nil
}

// facTable writes one row's slots of T_z (§5E "The row table"); slots the
// row does not write keep the previous row's entries.
func (d *MansDecoder) facTable(row *FacRow) {
	prev := int64(0)
	for a, c := range row {
		k := c - prev
		for j := prev; j < c; j++ {
			d.tz[j] = zp[k+j-prev]<<16 | uint32(a)
		}
		prev = c
	}
	d.tz[255] = zp[1]<<16 | 63
}

// facIn is §5E in(which, i) of fac.
func (d *MansDecoder) facIn(which int) int64 {
	t := d.tz[d.s[which]]
	d.s[which] = uint8(uint64(t>>16) | d.read(uint(t>>24)))
	return int64(t & 0xff)
}

// facOut is §5E out(i) of fac: sym 63 is the escape, read(6).
func (d *MansDecoder) facOut(sym int64) int64 {
	if sym != 63 {
		return sym
	}
	d.Escapes++
	return int64(d.read(6))
}

// facRow decodes one row into out; base is its first position.
func (d *MansDecoder) facRow(out []int64, base int) error {
	n := len(out)
	i := 0
	for ; i+4 <= n; i += 4 {
		for k := range 4 {
			out[i+k] = d.facIn(k & 1)
			if d.bad {
				return d.refused(base + i + k)
			}
		}
		for k := range 4 {
			out[i+k] = d.facOut(out[i+k])
			if d.bad {
				return d.refused(base + i + k)
			}
		}
		d.flush()
		if d.bad {
			return d.refused(base + i + 3)
		}
	}
	// The remainder: a pair when L′ mod 4 ≥ 2, then a single when L′ is
	// odd, each position in then out; no flush of its own.
	for k := range n - i {
		out[i+k] = d.facIn(k & 1)
		if !d.bad {
			out[i+k] = d.facOut(out[i+k])
		}
		if d.bad {
			return d.refused(base + i + k)
		}
	}
	// Each row ends with one flush; its at is the last position whose in
	// step ran (0 when none has).
	d.flush()
	return d.refused(max(base+n-1, 0))
}
