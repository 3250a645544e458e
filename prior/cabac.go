package prior

import (
	"encoding/binary"
	"math/bits"

	"github.com/waiops/waiops/refusal"
)

// The context-adaptive binary arithmetic coding of an NNR_PT_INT payload
// (prior-carriage Appendix A). Every quantity is an integer; the decoder
// keeps its value exact in an int (no wrap: docs/READINGS.md D-F bounds it below
// range·128 < 2^16 before each bin), and the encoder's low is the 32-bit
// word the appendix names.

// lpsTable is table A.1, T: row x holds entries 32x to 32x + 31.
var lpsTable = [256]uint32{
	128, 112, 97, 84, 74, 65, 57, 50, 45, 39, 34, 30, 27, 23, 20, 18, 15, 14, 12, 11, 10, 9, 7, 7, 5, 5, 4, 4, 3, 3, 2, 2,
	142, 125, 108, 93, 82, 72, 63, 56, 50, 43, 38, 33, 30, 26, 22, 20, 17, 16, 13, 12, 11, 10, 8, 8, 6, 6, 5, 5, 3, 3, 2, 2,
	156, 137, 119, 103, 90, 79, 70, 61, 55, 48, 42, 37, 33, 28, 24, 22, 19, 17, 15, 13, 12, 11, 9, 9, 6, 6, 5, 5, 4, 4, 2, 2,
	171, 150, 130, 112, 99, 87, 76, 67, 60, 52, 46, 40, 36, 31, 27, 24, 21, 19, 16, 15, 13, 12, 10, 10, 7, 7, 6, 6, 4, 4, 3, 3,
	185, 162, 141, 121, 107, 94, 82, 73, 65, 56, 50, 43, 39, 34, 29, 26, 22, 21, 17, 16, 14, 13, 11, 11, 8, 8, 6, 6, 4, 4, 3, 3,
	199, 175, 152, 131, 115, 101, 89, 78, 70, 61, 54, 47, 42, 36, 31, 28, 24, 22, 19, 17, 15, 14, 12, 12, 8, 8, 7, 7, 5, 5, 3, 3,
	213, 187, 163, 140, 123, 108, 95, 84, 75, 65, 58, 50, 45, 39, 33, 30, 26, 24, 20, 18, 16, 15, 13, 13, 9, 9, 7, 7, 5, 5, 3, 3,
	228, 200, 174, 150, 132, 116, 102, 90, 80, 70, 62, 54, 48, 42, 36, 32, 28, 26, 22, 20, 18, 16, 14, 14, 10, 10, 8, 8, 6, 6, 4, 4,
}

// adaptTable is table A.2, C.
var adaptTable = [32]int32{
	2512, 2288, 2064, 1840, 1616, 1392, 1168, 944, 720, 560, 464, 368, 272, 208, 144, 80,
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 0,
}

// initTable is table A.3: the nine initialisations [b0, b1, v01, v0].
var initTable = [9][4]int32{
	{1, 4, 0, 0}, {1, 4, -1310, -41}, {1, 4, 3039, 95},
	{0, 5, 0, 0}, {2, 6, 962, 30}, {2, 6, 3039, 95},
	{2, 6, -673, -21}, {3, 5, 0, 0}, {3, 5, 962, 30},
}

// context is one adaptive context: s0 an 8-bit and s01 a 16-bit two's
// complement state, h0 and h1 its two shifts.
type context struct {
	s0, s01 int32
	h0, h1  int32
}

func (c *context) init(j int) {
	r := initTable[j]
	c.s0, c.s01, c.h0, c.h1 = r[3], r[2], r[0]+4, r[1]
}

func (c *context) mps() int {
	if c.s01 >= 0 {
		return 1
	}
	return 0
}

var errTable = refusal.New(NNCMalformed, "nnc: a context's state indexes outside table A.1 or A.2 (Appendix A)")

// lps returns T[|s01 >> 7| + (R & 0xE0)], the least-probable range for the
// coder range rng (Appendix A).
func (c *context) lps(rng uint32) (uint32, error) {
	x := c.s01 >> 7
	if x < 0 {
		x = -x
	}
	i := int64(x) + int64(rng&0xE0)
	if i >= int64(len(lpsTable)) {
		return 0, errTable
	}
	return lpsTable[i], nil
}

// update adapts c to bin b (Appendix A).
func (c *context) update(b int) error {
	sigma := int32(-1)
	if b == 1 {
		sigma = 1
	}
	s1 := c.s01 - 16*c.s0
	i0 := 16 + ((sigma * c.s0) >> 3)
	i1 := 16 + ((sigma * s1) >> 7)
	if i0 < 0 || i0 >= 32 {
		return errTable
	}
	c.s0 = int32(int8(c.s0 + sigma*(adaptTable[i0]>>c.h0))) // wrap8
	if i1 < 0 || i1 >= 32 {
		return errTable
	}
	s1 += sigma * (adaptTable[i1] >> c.h1)
	c.s01 = int32(int16(s1 + 16*c.s0)) // wrap16
	return nil
}

// contexts returns the L = 24 + 3 + 2G + 32 + 4 contexts of a payload with
// G greater-than flags, each at initialisation 0.
func contexts(g int) []context {
	cs := make([]context, 63+2*g)
	for i := range cs {
		cs[i].init(0)
	}
	return cs
}

// lz is the number of leading zero bits of x as a 32-bit word.
func lz(x uint32) int { return bits.LeadingZeros32(x) }

// sigCtx is c(p): 0, 1 or 2 as the previous value is zero, negative or
// positive.
func sigCtx(p int64) int {
	switch {
	case p < 0:
		return 1
	case p > 0:
		return 2
	}
	return 0
}

// decoder is Appendix A's decoding engine over one payload.
type decoder struct {
	p     []byte
	pos   int
	rng   uint32
	value int64
	need  int
}

var errPayloadEnd = refusal.New(NNCTruncated, "nnc: the integer payload reads past its unit's end (Appendix A)")

func (d *decoder) readByte() (int64, error) {
	if d.pos >= len(d.p) {
		return 0, errPayloadEnd
	}
	d.pos++
	return int64(d.p[d.pos-1]), nil
}

func newDecoder(p []byte) (*decoder, error) {
	if len(p) < 2 {
		return nil, errPayloadEnd
	}
	return &decoder{p: p, pos: 2, rng: 510, value: 256*int64(p[0]) + int64(p[1]), need: -8}, nil
}

// check is D-F: every encoder leaves value < range·128 before each
// bin; a payload that breaks it comes from no encoder.
func (d *decoder) check() error {
	if d.value >= int64(d.rng)*128 {
		return refusal.New(NNCMalformed, "nnc: the coder's value %d is not below range·128 = %d before a bin at byte %d (D-F)", d.value, int64(d.rng)*128, d.pos)
	}
	return nil
}

func (d *decoder) bin(c *context) (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	r, err := c.lps(d.rng)
	if err != nil {
		return 0, err
	}
	m := d.rng - r
	var b int
	if d.value < int64(m)*128 {
		b = c.mps()
		d.rng = m
	} else {
		d.value -= int64(m) * 128
		d.rng = r
		b = 1 - c.mps()
	}
	n := lz(d.rng) - 23
	d.rng <<= n
	d.value <<= n
	d.need += n
	if d.need >= 0 {
		x, err := d.readByte()
		if err != nil {
			return 0, err
		}
		d.value += x << d.need
		d.need -= 8
	}
	return b, c.update(b)
}

func (d *decoder) bypass() (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	d.value *= 2
	d.need++
	if d.need >= 0 {
		x, err := d.readByte()
		if err != nil {
			return 0, err
		}
		d.value += x
		d.need = -8
	}
	if d.value >= int64(d.rng)*128 {
		d.value -= int64(d.rng) * 128
		return 1, nil
	}
	return 0, nil
}

// bypassBits reads k bypass bins, the first the most significant.
func (d *decoder) bypassBits(k int) (int64, error) {
	v := int64(0)
	for range k {
		b, err := d.bypass()
		if err != nil {
			return 0, err
		}
		v = 2*v + int64(b)
	}
	return v, nil
}

// finish reads the terminating bin and checks the stop bit; the payload is
// the bytes read, and a byte left over is nnc_malformed (D-F).
func (d *decoder) finish() error {
	if err := d.check(); err != nil {
		return err
	}
	d.rng -= 2
	if d.value < int64(d.rng)*128 {
		return refusal.New(NNCMalformed, "nnc: the terminating bin is not 1 (Appendix A)")
	}
	if (int(d.p[d.pos-1])<<(8+d.need))&0xFF != 0x80 {
		return refusal.New(NNCMalformed, "nnc: the payload's last byte does not end in its stop bit (Appendix A)")
	}
	if d.pos != len(d.p) {
		return refusal.New(NNCMalformed, "nnc: %d bytes follow the integer payload's end in its unit (D-F)", len(d.p)-d.pos)
	}
	return nil
}

// decodeInts decodes an NNR_PT_INT payload of n elements with G =
// unaryLen greater-than flags and returns them as little-endian I32 bytes.
// Nothing is reserved from n: the slice grows as elements are decoded, each
// at least one bin of the payload.
func decodeInts(payload []byte, unaryLen int, n uint64) ([]byte, error) {
	g := unaryLen
	d, err := newDecoder(payload)
	if err != nil {
		return nil, err
	}
	cs := contexts(g)
	initCtx := &cs[len(cs)-2]
	// The initialisations: contexts 0 to L − 5 but 3 to 23.
	for i := 0; i <= len(cs)-5; i++ {
		if i >= 3 && i <= 23 {
			continue
		}
		b, err := d.bin(initCtx)
		if err != nil {
			return nil, err
		}
		j := int64(0)
		if b == 1 {
			if j, err = d.bypassBits(3); err != nil {
				return nil, err
			}
			j++
		}
		cs[i].init(int(j))
	}
	var out []byte
	p := int64(0)
	for range n {
		v, err := decodeValue(d, cs, g, p)
		if err != nil {
			return nil, err
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(int32(v)))
		p = v
	}
	return out, d.finish()
}

func decodeValue(d *decoder, cs []context, g int, p int64) (int64, error) {
	c := sigCtx(p)
	if b, err := d.bin(&cs[c]); err != nil || b == 0 {
		return 0, err
	}
	v := int64(1)
	s, err := d.bin(&cs[24+c])
	if err != nil {
		return 0, err
	}
	gt, err := d.bin(&cs[27+s])
	if err != nil {
		return 0, err
	}
	for k := 1; gt == 1 && k < g; k++ {
		v++
		if gt, err = d.bin(&cs[27+s+2*k]); err != nil {
			return 0, err
		}
	}
	if gt == 1 {
		v++
		q := 27 + 2*g
		rem := int64(0)
		b, err := d.bin(&cs[q])
		if err != nil {
			return 0, err
		}
		if b == 1 {
			rem = 1
			q++
			e := 1
			for {
				if q >= 59+2*g {
					return 0, refusal.New(NNCMalformed, "nnc: a remainder's prefix runs past its 32 contexts (Appendix A)")
				}
				if b, err = d.bin(&cs[q]); err != nil {
					return 0, err
				}
				if b == 0 {
					break
				}
				rem += 1 << e
				q++
				e++
			}
			x, err := d.bypassBits(e)
			if err != nil {
				return 0, err
			}
			rem += x
		}
		v += rem
	}
	if v > 1<<31-1 {
		return 0, refusal.New(NNCMalformed, "nnc: a decoded magnitude %d passes 2^31 - 1 (Appendix A)", v)
	}
	if s == 1 {
		return -v, nil
	}
	return v, nil
}

// encoder is Appendix A's encoding engine: low is a 32-bit word.
type encoder struct {
	low  uint32
	rng  uint32
	left int
	buf  uint32
	n    int
	out  []byte
}

func (e *encoder) flush() {
	lead := e.low >> (24 - e.left)
	e.left += 8
	e.low &= 0xFFFFFFFF >> e.left
	switch {
	case lead == 0xFF:
		e.n++
	case e.n > 0:
		c := lead >> 8
		e.out = append(e.out, byte(e.buf+c))
		e.buf = lead & 0xFF
		for range e.n - 1 {
			e.out = append(e.out, byte(0xFF+c))
		}
		e.n = 1
	default:
		e.n = 1
		e.buf = lead
	}
}

func (e *encoder) bin(b int, c *context) error {
	r, err := c.lps(e.rng)
	if err != nil {
		return err
	}
	e.rng -= r
	if b == c.mps() {
		if e.rng < 256 {
			e.rng *= 2
			e.low *= 2
			e.left--
		}
	} else {
		k := lz(r) - 23
		e.low += e.rng
		e.rng = r << k
		e.low <<= k
		e.left -= k
	}
	if e.left < 12 {
		e.flush()
	}
	return c.update(b)
}

func (e *encoder) bypass(b int) {
	e.low *= 2
	if b == 1 {
		e.low += e.rng
	}
	e.left--
	if e.left < 12 {
		e.flush()
	}
}

func (e *encoder) finish() {
	e.rng -= 2
	e.low += e.rng
	e.low <<= 7
	e.rng = 256
	e.left -= 7
	if e.left < 12 {
		e.flush()
	}
	if e.low>>(32-e.left) != 0 {
		e.out = append(e.out, byte(e.buf+1))
		for range e.n - 1 {
			e.out = append(e.out, 0x00)
		}
		e.low -= 1 << (32 - e.left)
	} else {
		if e.n > 0 {
			e.out = append(e.out, byte(e.buf))
		}
		for range e.n - 1 {
			e.out = append(e.out, 0xFF)
		}
	}
	e.low = 2*(e.low>>8) + 1
	e.left--
	e.low <<= 32 - (24 - e.left)
	for i := 0; i < 24-e.left; i += 8 {
		e.out = append(e.out, byte(e.low>>(24-i)))
	}
}

// encodeInts codes vals, each within ±(2^31 − 1), as an NNR_PT_INT payload
// with G = unaryLen greater-than flags (Appendix A, Encoding).
func encodeInts(vals []int64, unaryLen int) ([]byte, error) {
	g := unaryLen
	e := &encoder{rng: 510, left: 23}
	cs := contexts(g)
	initCtx := &cs[len(cs)-2]
	for i := 0; i <= len(cs)-5; i++ {
		if i >= 3 && i <= 23 {
			continue
		}
		if err := e.bin(0, initCtx); err != nil {
			return nil, err
		}
	}
	p := int64(0)
	for _, v := range vals {
		if err := encodeValue(e, cs, g, v, p); err != nil {
			return nil, err
		}
		p = v
	}
	e.finish()
	return e.out, nil
}

func encodeValue(e *encoder, cs []context, g int, v, p int64) error {
	c := sigCtx(p)
	if v == 0 {
		return e.bin(0, &cs[c])
	}
	if err := e.bin(1, &cs[c]); err != nil {
		return err
	}
	s, r := 0, v
	if v < 0 {
		s, r = 1, -v
	}
	if err := e.bin(s, &cs[24+c]); err != nil {
		return err
	}
	r--
	gt := b2i(r > 0)
	if err := e.bin(gt, &cs[27+s]); err != nil {
		return err
	}
	for k := 1; gt == 1 && k < g; k++ {
		r--
		gt = b2i(r > 0)
		if err := e.bin(gt, &cs[27+s+2*k]); err != nil {
			return err
		}
	}
	if gt == 0 {
		return nil
	}
	r--
	q := 27 + 2*g
	if r == 0 {
		return e.bin(0, &cs[q])
	}
	if err := e.bin(1, &cs[q]); err != nil {
		return err
	}
	base, x := int64(1), 1
	q++
	for r > base+(1<<x)-1 {
		if err := e.bin(1, &cs[q]); err != nil {
			return err
		}
		base += 1 << x
		q++
		x++
	}
	if err := e.bin(0, &cs[q]); err != nil {
		return err
	}
	for i := x - 1; i >= 0; i-- {
		e.bypass(int((r - base) >> i & 1))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
