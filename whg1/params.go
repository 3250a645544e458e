package whg1

import (
	"errors"
	"fmt"
)

// §10.4: the fixed parts of the parameter layouts, in bytes.
const (
	rqHeadSize    = 8
	convFixed     = 8*4 + 4
	convTFixed    = 9*4 + 4
	chscaleFixed  = 12
	lutEntries    = 1 << 16
	lutSize       = 4 + 2*lutEntries
	cropSize      = 4 * 8
	fillSize      = 16
	normFixed     = 16
	contractFixed = 4
)

// paramLen checks that a parameter block is exactly want bytes (§10.4:
// "Every parameter length is exact").
func paramLen(p []byte, want size) error {
	if !want.ok || uint64(len(p)) != want.n {
		if !want.ok {
			return fmt.Errorf("plen %d; the layout needs more than 2^64 bytes", len(p))
		}
		return fmt.Errorf("plen %d; the layout needs %d", len(p), want.n)
	}
	return nil
}

// atLeast checks that p holds a layout's fixed part before it is read.
func atLeast(p []byte, n int) error {
	if len(p) < n {
		return fmt.Errorf("plen %d is shorter than the %d bytes of the fixed parameters", len(p), n)
	}
	return nil
}

// parseParams reads and checks an operator's parameters (§10.4, ranges of
// §5). cin and C are the channel count of the operator's first input.
func (g *Graph) parseParams(op *Op, p []byte) (any, error) {
	c := uint64(g.Tensors[op.In[0]].Channels)
	r := &reader{b: p}
	switch op.Code {
	case OpAdd, OpConcat, OpChunkAdd, OpRelu, OpAbs, OpCropTo, OpSoftmax, OpSigmoid:
		return nil, paramLen(p, sz(0))
	case OpConv:
		return g.parseConv(p, r, c)
	case OpConvTranspose:
		return g.parseConvT(p, r, c)
	case OpRescale, OpMul:
		if err := atLeast(p, rqHeadSize); err != nil {
			return nil, err
		}
		h := readRQHead(r)
		if err := h.layout(); err != nil {
			return nil, err
		}
		if err := paramLen(p, h.size(c)); err != nil {
			return nil, err
		}
		q := h.read(r, c)
		if err := q.check(h); err != nil {
			return nil, err
		}
		if op.Code == OpMul && q.Bias != NoBias {
			return nil, errors.New("mul's rq has a bias; §10.4 requires bias = 0")
		}
		return &Rescale{RQ: q}, nil
	case OpChscale:
		return g.parseChscale(p, r, c)
	case OpLut16:
		if err := paramLen(p, sz(lutSize)); err != nil {
			return nil, err
		}
		l := &Lut16{EIn: int8(r.u8()), EOut: int8(r.u8())}
		if !r.zero(2) {
			return nil, errors.New("reserved field is not zero")
		}
		l.T = make([]int16, lutEntries)
		for i := range l.T {
			l.T[i] = int16(r.u16())
		}
		// §5.6: T[0] = 0.
		if l.T[0] != 0 {
			return nil, fmt.Errorf("T[0] = %d; §5.6 requires 0", l.T[0])
		}
		return l, nil
	case OpSplit:
		if err := paramLen(p, sz(8)); err != nil {
			return nil, err
		}
		s := &Split{Start: r.u32(), Count: r.u32()}
		if s.Count < 1 {
			return nil, errors.New("count is 0")
		}
		return s, nil
	case OpPixelShuffle, OpPixelUnshuffle, OpPadRep:
		if err := paramLen(p, sz(4)); err != nil {
			return nil, err
		}
		f := &Factor{N: r.u32()}
		if f.N < 1 {
			return nil, errors.New("factor is 0; it must be at least 1")
		}
		return f, nil
	case OpClamp:
		if err := paramLen(p, sz(16)); err != nil {
			return nil, err
		}
		cp := &ClampParams{Lo: r.i64(), Hi: r.i64()}
		if cp.Lo > cp.Hi {
			return nil, fmt.Errorf("lo %d > hi %d", cp.Lo, cp.Hi)
		}
		return cp, nil
	case OpLeaky:
		if err := paramLen(p, sz(12)); err != nil {
			return nil, err
		}
		l := &Leaky{A: r.i64(), F: r.u32()}
		// §5.5: f in 0..=63.
		if l.F > 63 {
			return nil, fmt.Errorf("f %d is above 63", l.F)
		}
		return l, nil
	case OpCrop:
		return g.parseCrop(p, r)
	case OpSubposSplit, OpSubposMerge:
		if err := paramLen(p, sz(4)); err != nil {
			return nil, err
		}
		s := &Subpos{}
		seen := 0
		for k := range s.Order {
			s.Order[k] = r.u8()
			if s.Order[k] > 3 || seen&(1<<s.Order[k]) != 0 {
				return nil, fmt.Errorf("order %v is not a permutation of 0..3 (2a + b)", p)
			}
			seen |= 1 << s.Order[k]
		}
		return s, nil
	case OpFill:
		if err := paramLen(p, sz(fillSize)); err != nil {
			return nil, err
		}
		kind := r.u8()
		res := r.zero(7)
		f := &Fill{Scalar: kind == 1, Value: r.i64()}
		switch {
		case kind > 1:
			return nil, fmt.Errorf("kind %d is neither 0 (constant) nor 1 (scalar)", kind)
		case !res:
			return nil, errors.New("reserved field is not zero")
		case f.Scalar && (f.Value < 0 || f.Value >= int64(len(g.Scalars))):
			return nil, fmt.Errorf("value names scalar %d; n_scalars is %d", f.Value, len(g.Scalars))
		}
		return f, nil
	case OpIGDN:
		return parseIGDN(p, r, c)
	case OpLayerNormC:
		return parseLayerNorm(p, r, c)
	case OpL2Norm:
		if err := paramLen(p, sz(8)); err != nil {
			return nil, err
		}
		l := &L2Norm{Eps: r.u64()}
		if l.Eps < 1 {
			return nil, errors.New("ε is 0; it must be at least 1")
		}
		return l, nil
	case OpElu:
		if err := paramLen(p, sz(8)); err != nil {
			return nil, err
		}
		return &Elu{Alpha: r.i64()}, nil
	case OpGram, OpApply:
		return parseContraction(p, r, c)
	}
	return nil, fmt.Errorf("no parameter layout for %v", op.Code)
}

// rqHead is the fixed part of the RQ block (§10.4).
type rqHead struct {
	round, bias, mKind, sKind, mBytes, bBytes uint8
	res                                       uint16
}

func readRQHead(r *reader) rqHead {
	return rqHead{r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u16()}
}

// layout checks the fields that fix the block's length.
func (h rqHead) layout() error {
	switch {
	case h.bias > 2:
		return fmt.Errorf("rq: bias %d is not 0 (none), 1 (pre) or 2 (post)", h.bias)
	case h.mKind > 2:
		return fmt.Errorf("rq: m_kind %d is not 0, 1 or 2", h.mKind)
	case h.sKind < 1 || h.sKind > 2:
		return fmt.Errorf("rq: s_kind %d is not 1 or 2", h.sKind)
	case h.mKind == 0 && h.mBytes != 0:
		return fmt.Errorf("rq: m_bytes %d with no multiplier; it must be 0", h.mBytes)
	case h.mKind != 0 && h.mBytes != 4 && h.mBytes != 8:
		return fmt.Errorf("rq: m_bytes %d is not 4 or 8", h.mBytes)
	case h.bias == 0 && h.bBytes != 0:
		return fmt.Errorf("rq: b_bytes %d with no bias; it must be 0", h.bBytes)
	case h.bias != 0 && h.bBytes != 4 && h.bBytes != 8:
		return fmt.Errorf("rq: b_bytes %d is not 4 or 8", h.bBytes)
	}
	return nil
}

// count is 0, 1 or c entries for kind 0, 1 or 2.
func count(kind uint8, c uint64) uint64 {
	switch kind {
	case 0:
		return 0
	case 1:
		return 1
	}
	return c
}

// size is the block's length over c channels.
func (h rqHead) size(c uint64) size {
	s := sz(rqHeadSize).
		addSize(sz(count(h.mKind, c)).mul(uint64(h.mBytes))).
		add(count(h.sKind, c))
	if h.bias != 0 {
		s = s.addSize(sz(c).mul(uint64(h.bBytes)))
	}
	return s
}

// read reads the block's arrays; the length has been checked.
func (h rqHead) read(r *reader, c uint64) RQ {
	q := RQ{Round: Round(h.round), Bias: BiasPlace(h.bias), MKind: h.mKind, SKind: h.sKind, MBytes: h.mBytes, BBytes: h.bBytes}
	if h.mKind != 0 {
		q.Mult = r.ints(count(h.mKind, c), h.mBytes)
	}
	q.Shift = make([]uint8, count(h.sKind, c))
	for i := range q.Shift {
		q.Shift[i] = r.u8()
	}
	if h.bias != 0 {
		q.BiasV = r.ints(c, h.bBytes)
	}
	return q
}

// check checks the block's ranges: round, reserved and shifts (§5.1).
func (q *RQ) check(h rqHead) error {
	if q.Round > HalfEven {
		return fmt.Errorf("rq: round %d is not 0 (floor), 1 (half_up) or 2 (half_even)", q.Round)
	}
	if h.res != 0 {
		return errors.New("rq: reserved field is not zero")
	}
	for i, s := range q.Shift {
		if s > 127 {
			return fmt.Errorf("rq: shift[%d] = %d is above 127", i, s)
		}
	}
	return nil
}

// rqAt reads an RQ block that starts at r's offset and ends the parameters
// after tail more bytes; c is its channel count.
func rqAt(p []byte, r *reader, c uint64, tail size) (RQ, error) {
	if err := atLeast(p, r.off+rqHeadSize); err != nil {
		return RQ{}, err
	}
	h := readRQHead(r)
	if err := h.layout(); err != nil {
		return RQ{}, err
	}
	if err := paramLen(p, sz(uint64(r.off-rqHeadSize)).addSize(h.size(c)).addSize(tail)); err != nil {
		return RQ{}, err
	}
	q := h.read(r, c)
	return q, q.check(h)
}

func validWidth(w uint8) bool { return w == 1 || w == 2 || w == 4 || w == 8 }

func (g *Graph) parseConv(p []byte, r *reader, cin uint64) (any, error) {
	if err := atLeast(p, convFixed); err != nil {
		return nil, err
	}
	cv := &Conv{Cout: r.u32(), KH: r.u32(), KW: r.u32(), SH: r.u32(), SW: r.u32(), PH: r.u32(), PW: r.u32(), Groups: r.u32(), WBytes: r.u8()}
	res := r.zero(3)
	if cv.Groups < 1 {
		return nil, errors.New("groups is 0")
	}
	if !validWidth(cv.WBytes) {
		return nil, fmt.Errorf("w_bytes %d is not 1, 2, 4 or 8", cv.WBytes)
	}
	// Wt[cout][cin/groups][kh][kw]; that groups divides cin is a channel
	// rule, checked in step 7.
	n := sz(uint64(cv.Cout)).mul(cin / uint64(cv.Groups)).mul(uint64(cv.KH)).mul(uint64(cv.KW))
	q, err := rqAt(p, r, uint64(cv.Cout), n.mul(uint64(cv.WBytes)))
	if err != nil {
		return nil, err
	}
	cv.RQ = q
	if err := positive(res, cv.Cout, cv.KH, cv.KW, cv.SH, cv.SW); err != nil {
		return nil, err
	}
	cv.W = r.ints(n.n, cv.WBytes)
	return cv, nil
}

func (g *Graph) parseConvT(p []byte, r *reader, cin uint64) (any, error) {
	if err := atLeast(p, convTFixed); err != nil {
		return nil, err
	}
	cv := &ConvT{Cout: r.u32(), KH: r.u32(), KW: r.u32(), SH: r.u32(), SW: r.u32(), PH: r.u32(), PW: r.u32(), OPH: r.u32(), OPW: r.u32(), WBytes: r.u8()}
	res := r.zero(3)
	if !validWidth(cv.WBytes) {
		return nil, fmt.Errorf("w_bytes %d is not 1, 2, 4 or 8", cv.WBytes)
	}
	// Wt[cin][cout][kh][kw].
	n := sz(cin).mul(uint64(cv.Cout)).mul(uint64(cv.KH)).mul(uint64(cv.KW))
	q, err := rqAt(p, r, uint64(cv.Cout), n.mul(uint64(cv.WBytes)))
	if err != nil {
		return nil, err
	}
	cv.RQ = q
	if err := positive(res, cv.Cout, cv.KH, cv.KW, cv.SH, cv.SW); err != nil {
		return nil, err
	}
	cv.W = r.ints(n.n, cv.WBytes)
	return cv, nil
}

// positive checks a convolution's reserved bytes and that cout, kh, kw, sh
// and sw are at least 1 (§5.2, §5.3).
func positive(res bool, v ...uint32) error {
	if !res {
		return errors.New("reserved field is not zero")
	}
	names := []string{"cout", "kh", "kw", "sh", "sw"}
	for i, x := range v {
		if x < 1 {
			return fmt.Errorf("%s is 0; it must be at least 1", names[i])
		}
	}
	return nil
}

func (g *Graph) parseChscale(p []byte, r *reader, c uint64) (any, error) {
	if err := atLeast(p, chscaleFixed); err != nil {
		return nil, err
	}
	cs := &Chscale{Scalar: r.u32(), NRows: r.u32(), Round: Round(r.u8()), MBytes: r.u8(), Shift: r.u8()}
	res := r.zero(1)
	if cs.MBytes != 4 && cs.MBytes != 8 {
		return nil, fmt.Errorf("m_bytes %d is not 4 or 8", cs.MBytes)
	}
	n := sz(uint64(cs.NRows)).mul(c)
	if err := paramLen(p, sz(chscaleFixed).addSize(n.mul(uint64(cs.MBytes)))); err != nil {
		return nil, err
	}
	switch {
	case cs.Round > HalfEven:
		return nil, fmt.Errorf("round %d is not 0, 1 or 2", cs.Round)
	case cs.Shift > 127:
		return nil, fmt.Errorf("shift %d is above 127", cs.Shift)
	case !res:
		return nil, errors.New("reserved field is not zero")
	case cs.Scalar >= uint32(len(g.Scalars)):
		return nil, fmt.Errorf("scalar %d is not below n_scalars %d", cs.Scalar, len(g.Scalars))
	}
	// §5.4: the scalar's declared range lies within [0, n_rows − 1].
	if s := g.Scalars[cs.Scalar]; s.Lo < 0 || s.Hi > int64(cs.NRows)-1 {
		return nil, fmt.Errorf("scalar %d's range [%d, %d] is not within the rows [0, %d]", cs.Scalar, s.Lo, s.Hi, int64(cs.NRows)-1)
	}
	cs.M = r.ints(n.n, cs.MBytes)
	return cs, nil
}

func (g *Graph) parseCrop(p []byte, r *reader) (any, error) {
	if err := paramLen(p, sz(cropSize)); err != nil {
		return nil, err
	}
	var ops [4]Operand
	for k, name := range []string{"y0", "x0", "h", "w"} {
		kind := r.u8()
		res := r.zero(3)
		ops[k] = Operand{Scalar: kind == 1, Value: r.u32()}
		switch {
		case kind > 1:
			return nil, fmt.Errorf("%s: kind %d is neither 0 (constant) nor 1 (scalar)", name, kind)
		case !res:
			return nil, fmt.Errorf("%s: reserved field is not zero", name)
		case ops[k].Scalar && ops[k].Value >= uint32(len(g.Scalars)):
			return nil, fmt.Errorf("%s names scalar %d; n_scalars is %d", name, ops[k].Value, len(g.Scalars))
		}
	}
	return &Crop{Y0: ops[0], X0: ops[1], H: ops[2], W: ops[3]}, nil
}

// normTail reads the g_bytes and reserved bytes shared by igdn and
// layernorm_c, then checks the length: gamma has nGamma entries, beta c.
func normTail(p []byte, r *reader, nGamma size, c uint64) (uint8, error) {
	gb := r.u8()
	res := r.zero(7)
	if gb != 4 && gb != 8 {
		return 0, fmt.Errorf("g_bytes %d is not 4 or 8", gb)
	}
	if err := paramLen(p, sz(normFixed).addSize(nGamma.mul(uint64(gb))).addSize(sz(c).mul(8))); err != nil {
		return 0, err
	}
	if !res {
		return 0, errors.New("reserved field is not zero")
	}
	return gb, nil
}

func parseIGDN(p []byte, r *reader, c uint64) (any, error) {
	if err := atLeast(p, normFixed); err != nil {
		return nil, err
	}
	d := &IGDN{GF: r.u32(), Frac: r.u32()}
	n := sz(c).mul(c)
	gb, err := normTail(p, r, n, c)
	if err != nil {
		return nil, err
	}
	// §5.7: gf and frac in 0..=127.
	if d.GF > 127 || d.Frac > 127 {
		return nil, fmt.Errorf("gf %d or frac %d is above 127", d.GF, d.Frac)
	}
	d.GBytes = gb
	d.Gamma = r.ints(n.n, gb)
	d.Beta = r.ints(c, 8)
	return d, nil
}

func parseLayerNorm(p []byte, r *reader, c uint64) (any, error) {
	if err := atLeast(p, normFixed); err != nil {
		return nil, err
	}
	l := &LayerNorm{Eps: r.u64()}
	gb, err := normTail(p, r, sz(c), c)
	if err != nil {
		return nil, err
	}
	// §5.7: ε in 1..=2^64 − 1.
	if l.Eps < 1 {
		return nil, errors.New("ε is 0; it must be at least 1")
	}
	l.GBytes = gb
	l.Gamma = r.ints(c, gb)
	l.Beta = r.ints(c, 8)
	return l, nil
}

func parseContraction(p []byte, r *reader, c uint64) (any, error) {
	if err := atLeast(p, contractFixed); err != nil {
		return nil, err
	}
	k := &Contraction{Groups: r.u32()}
	q, err := rqAt(p, r, c, sz(0))
	if err != nil {
		return nil, err
	}
	// §5.9, §10.4: groups ≥ 1; an rq with no multiplier, no bias, one shift.
	switch {
	case k.Groups < 1:
		return nil, errors.New("groups is 0")
	case q.MKind != 0 || q.Bias != NoBias || q.SKind != 1:
		return nil, fmt.Errorf("rq has m_kind %d, bias %d, s_kind %d; §10.4 requires 0, 0, 1", q.MKind, q.Bias, q.SKind)
	}
	k.RQ = q
	return k, nil
}
