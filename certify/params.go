package certify

import (
	"math"
	"math/big"
	"sort"

	"github.com/waiops/waiops/whg1"
)

// describe fills a node's parameter-derived members: acc32_params (§7.2),
// k_c (§6), mac and npu_flags (§9.2), then fits (§8.5).
func describe(g *whg1.Graph, n *Node, in []Interval) {
	op := n.op
	n.Acc32Params = acc32Params(op)
	if key, ok := termKey[op.Code]; ok {
		n.KC, n.KCUnbounded = kc(n.Intermediates[key])
	}
	switch p := op.Params.(type) {
	case *whg1.Conv:
		n.Mac = mac(in, p.W)
	case *whg1.ConvT:
		n.Mac = mac(in, p.W)
	case *whg1.Chscale:
		n.Mac = mac(in, p.M)
	}
	if op.Code == whg1.OpMul || op.Code == whg1.OpGram || op.Code == whg1.OpApply {
		n.Mac = mac(in, nil)
	}
	n.NPUFlags = npuFlags(g, op)
	n.Fits = fits(g, n)
}

// kc is K_c of §6 over a term interval: P is its largest magnitude, and
// K_c = ⌊(2^31 − 1) / P⌋, or unbounded when P = 0.
func kc(term Interval) (*big.Int, bool) {
	p := maxBig(new(big.Int).Abs(term.Lo), new(big.Int).Abs(term.Hi))
	if p.Sign() == 0 {
		return nil, true
	}
	return new(big.Int).Div(bi(math.MaxInt32), p), false
}

// mac is the §8.5 mac member: bits of each input interval, and of
// [min, max] over w when w is given.
func mac(in []Interval, w []int64) *Mac {
	m := &Mac{}
	for _, x := range in {
		m.ABits = append(m.ABits, x.Bits())
	}
	if len(w) > 0 {
		lo, hi := w[0], w[0]
		for _, v := range w[1:] {
			lo, hi = min(lo, v), max(hi, v)
		}
		m.WBits = iv64(lo, hi).Bits()
	}
	return m
}

func fitsI32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

func allFitI32(v []int64) bool {
	for _, x := range v {
		if !fitsI32(x) {
			return false
		}
	}
	return true
}

// rqOf is the rq of an operator that has one (§5.1).
func rqOf(op *whg1.Op) *whg1.RQ {
	switch p := op.Params.(type) {
	case *whg1.Conv:
		return &p.RQ
	case *whg1.ConvT:
		return &p.RQ
	case *whg1.Rescale:
		return &p.RQ
	case *whg1.Contraction:
		return &p.RQ
	}
	return nil
}

// acc32Params lists the §7.2 parameter conditions op fails, in the table's
// order: rq.mult, rq.shift, rq.post_bias, weights, chscale.m, chscale.s,
// igdn.gamma, igdn.shift, leaky.a.
func acc32Params(op *whg1.Op) []string {
	keys := []string{}
	if rq := rqOf(op); rq != nil {
		if !allFitI32(rq.Mult) {
			keys = append(keys, "rq.mult")
		}
		for _, s := range rq.Shift {
			if s > 63 {
				keys = append(keys, "rq.shift")
				break
			}
		}
		if rq.Bias == whg1.PostBias && !allFitI32(rq.BiasV) {
			keys = append(keys, "rq.post_bias")
		}
	}
	switch p := op.Params.(type) {
	case *whg1.Conv:
		if !allFitI32(p.W) {
			keys = append(keys, "weights")
		}
	case *whg1.ConvT:
		if !allFitI32(p.W) {
			keys = append(keys, "weights")
		}
	case *whg1.Chscale:
		if !allFitI32(p.M) {
			keys = append(keys, "chscale.m")
		}
		if p.Shift > 63 {
			keys = append(keys, "chscale.s")
		}
	case *whg1.IGDN:
		if !allFitI32(p.Gamma) {
			keys = append(keys, "igdn.gamma")
		}
		if p.GF > 63 || p.Frac > 63 {
			keys = append(keys, "igdn.shift")
		}
	case *whg1.Leaky:
		if !fitsI32(p.A) {
			keys = append(keys, "leaky.a")
		}
	}
	return keys
}

// npuFlags is a node's §9.2 flags, in ascending order.
func npuFlags(g *whg1.Graph, op *whg1.Op) []string {
	set := map[string]bool{}
	switch op.Code {
	case whg1.OpLut16:
		set["lut16"] = true
	case whg1.OpAdd, whg1.OpChunkAdd:
		for _, t := range op.In {
			for _, in := range g.Inputs {
				if in.Kind == whg1.StateInput && in.Tensor == t {
					set["state_add"] = true
				}
			}
		}
	}
	// The rounding, multipliers and shifts of an rq or a chscale.
	var (
		round    whg1.Round
		mults    []int64
		shifts   []uint8
		hasMult  bool
		postBias bool
	)
	if rq := rqOf(op); rq != nil {
		round, mults, shifts, hasMult, postBias = rq.Round, rq.Mult, rq.Shift, rq.MKind != 0, rq.Bias == whg1.PostBias
	} else if cs, ok := op.Params.(*whg1.Chscale); ok {
		set["chscale"] = true
		round, mults, shifts, hasMult = cs.Round, cs.M, []uint8{cs.Shift}, true
	} else {
		return sortedKeys(set)
	}
	set["rq_half_even"] = round == whg1.HalfEven
	set["rq_floor_mult"] = round == whg1.Floor && hasMult
	set["rq_post_bias"] = postBias
	for _, m := range mults {
		set["rq_neg_mult"] = set["rq_neg_mult"] || m < 0
	}
	for _, s := range shifts {
		set["rq_shift_range"] = set["rq_shift_range"] || s > 31
	}
	return sortedKeys(set)
}

// sortedKeys is the keys of set whose value is true, in ascending byte order.
func sortedKeys(set map[string]bool) []string {
	out := []string{}
	for k, v := range set {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
