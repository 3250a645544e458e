package whg1

// Encode writes g as WHG1 bytes (§10): the exact inverse of Parse, so a
// file Parse accepts encodes back to the same bytes.
//
// For graphs written as Go literals, a zero field that a file cannot hold
// is filled in: Version and OpSet 0 are written as 1, MaxElems 0 as 2^26,
// and a zero byte width (w_bytes, m_bytes, b_bytes, g_bytes) as the
// smallest width the layout allows that holds every value; a recorded width
// too narrow for a value is widened likewise, never wrapped. Encode checks
// nothing else: Parse is the judge of what it wrote.
func Encode(g *Graph) []byte {
	w := &writer{}
	w.b = append(w.b, magic[:]...)
	w.u8(orOne(g.Version))
	w.u8(orOne(g.OpSet))
	w.zero(2)
	w.u32(uint32(len(g.Tensors)))
	w.u32(uint32(len(g.Ops)))
	w.u16(uint16(len(g.Inputs)))
	w.u16(uint16(len(g.Outputs)))
	w.u16(uint16(len(g.Scalars)))
	w.zero(2)
	if g.MaxElems == 0 {
		w.u32(cap26)
	} else {
		w.u32(g.MaxElems)
	}
	w.zero(4)
	for _, s := range g.Scalars {
		w.i64(s.Lo)
		w.i64(s.Hi)
	}
	for _, in := range g.Inputs {
		w.u32(in.Tensor)
		w.u32(in.MaxH)
		w.u32(in.MaxW)
		w.u8(uint8(in.Kind))
		w.zero(3)
		w.u32(in.Src)
		w.zero(4)
		w.i64(in.Init)
	}
	for _, t := range g.Outputs {
		w.u32(t)
	}
	for _, t := range g.Tensors {
		w.u32(t.Channels)
		w.u8(uint8(t.Exponent))
		w.u8(uint8(t.Policy))
		w.zero(2)
		w.i64(t.Lo)
		w.i64(t.Hi)
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		w.u8(uint8(op.Code))
		w.u8(uint8(len(op.In)))
		w.u8(uint8(len(op.Out)))
		w.zero(1)
		for _, t := range op.In {
			w.u32(t)
		}
		for _, t := range op.Out {
			w.u32(t)
		}
		p := &writer{}
		p.params(op.Params)
		w.u32(uint32(len(p.b)))
		w.b = append(w.b, p.b...)
	}
	return w.b
}

func orOne(v uint8) uint8 {
	if v == 0 {
		return 1
	}
	return v
}

// width is the byte width to write: the recorded one when it holds every
// value; otherwise (0 in a literal, or too narrow a width) the smallest of
// choices, from the recorded one up, that holds every value, so that no
// value is written as its low bytes: a wrap that Parse could not see.
func width(recorded uint8, v []int64, choices ...uint8) uint8 {
	if recorded != 0 && WidthFor(v, recorded) == recorded {
		return recorded
	}
	for len(choices) > 1 && choices[0] < recorded {
		choices = choices[1:]
	}
	return WidthFor(v, choices...)
}

// kernel writes what conv and conv_transpose share after their sizes
// (§10.4): u8 w_bytes, 3 reserved, RQ, then the weights at that width.
func (w *writer) kernel(wBytes uint8, rq *RQ, wt []int64) {
	wb := width(wBytes, wt, 1, 2, 4, 8)
	w.u8(wb)
	w.zero(3)
	w.rq(rq)
	w.ints(wt, wb)
}

// params writes a parameter block (§10.4).
func (w *writer) params(params any) {
	switch p := params.(type) {
	case *Conv:
		for _, v := range []uint32{p.Cout, p.KH, p.KW, p.SH, p.SW, p.PH, p.PW, p.Groups} {
			w.u32(v)
		}
		w.kernel(p.WBytes, &p.RQ, p.W)
	case *ConvT:
		for _, v := range []uint32{p.Cout, p.KH, p.KW, p.SH, p.SW, p.PH, p.PW, p.OPH, p.OPW} {
			w.u32(v)
		}
		w.kernel(p.WBytes, &p.RQ, p.W)
	case *Rescale:
		w.rq(&p.RQ)
	case *Chscale:
		w.u32(p.Scalar)
		w.u32(p.NRows)
		w.u8(uint8(p.Round))
		mb := width(p.MBytes, p.M, 4, 8)
		w.u8(mb)
		w.u8(p.Shift)
		w.zero(1)
		w.ints(p.M, mb)
	case *Lut16:
		w.u8(uint8(p.EIn))
		w.u8(uint8(p.EOut))
		w.zero(2)
		for _, v := range p.T {
			w.u16(uint16(v))
		}
	case *Split:
		w.u32(p.Start)
		w.u32(p.Count)
	case *Factor:
		w.u32(p.N)
	case *ClampParams:
		w.i64(p.Lo)
		w.i64(p.Hi)
	case *Leaky:
		w.i64(p.A)
		w.u32(p.F)
	case *Crop:
		for _, o := range []Operand{p.Y0, p.X0, p.H, p.W} {
			w.u8(kindOf(o.Scalar))
			w.zero(3)
			w.u32(o.Value)
		}
	case *Subpos:
		w.b = append(w.b, p.Order[:]...)
	case *Fill:
		w.u8(kindOf(p.Scalar))
		w.zero(7)
		w.i64(p.Value)
	case *IGDN:
		w.u32(p.GF)
		w.u32(p.Frac)
		gb := width(p.GBytes, p.Gamma, 4, 8)
		w.u8(gb)
		w.zero(7)
		w.ints(p.Gamma, gb)
		w.ints(p.Beta, 8)
	case *LayerNorm:
		w.u64(p.Eps)
		gb := width(p.GBytes, p.Gamma, 4, 8)
		w.u8(gb)
		w.zero(7)
		w.ints(p.Gamma, gb)
		w.ints(p.Beta, 8)
	case *L2Norm:
		w.u64(p.Eps)
	case *Elu:
		w.i64(p.Alpha)
	case *Contraction:
		w.u32(p.Groups)
		w.rq(&p.RQ)
	}
}

func kindOf(scalar bool) uint8 {
	if scalar {
		return 1
	}
	return 0
}

// rq writes the RQ block (§10.4).
func (w *writer) rq(q *RQ) {
	mb, bb := q.MBytes, q.BBytes
	if q.MKind != 0 {
		mb = width(mb, q.Mult, 4, 8)
	}
	if q.Bias != NoBias {
		bb = width(bb, q.BiasV, 4, 8)
	}
	w.u8(uint8(q.Round))
	w.u8(uint8(q.Bias))
	w.u8(q.MKind)
	w.u8(q.SKind)
	w.u8(mb)
	w.u8(bb)
	w.u16(0)
	w.ints(q.Mult, mb)
	w.b = append(w.b, q.Shift...)
	w.ints(q.BiasV, bb)
}
