//go:build cgo

package gpu

import (
	"math"

	"github.com/waiops/waiops/whg1"
)

// folds finds the relu and clamp operators whose work the producer of
// their input can do in its store: op i reads tensor t, which an earlier
// operator produces, which no other operator reads and which is no graph
// output. relu (§5.5, max(v, 0)) and clamp (§5.5) of a value are clamps of
// it, and a clamp after a clamp is a clamp (interval.then), so the
// producer's store (out_st, which applies its buffer's policy) can apply
// t's policy, the operator and its output's policy at once, and store
// straight into the output's buffer. No shader reads its out slot, so a
// store's policy changes nothing the producer computes. skip[i] is true
// for each such operator, and into maps its input to i.
func folds(g *whg1.Graph) (skip []bool, into map[uint32]int) {
	readers := make([]int, len(g.Tensors))
	made := make([]bool, len(g.Tensors))
	for _, op := range g.Ops {
		for _, t := range op.In {
			readers[t]++
		}
	}
	for _, t := range g.Outputs {
		readers[t]++ // a graph output needs its own values
	}
	skip = make([]bool, len(g.Ops))
	into = map[uint32]int{}
	for i, op := range g.Ops {
		if (op.Code == whg1.OpRelu || op.Code == whg1.OpClamp) && made[op.In[0]] && readers[op.In[0]] == 1 {
			skip[i] = true
			into[op.In[0]] = i
		}
		for _, t := range op.Out {
			made[t] = true
		}
	}
	return skip, into
}

// interval is a clamp to [lo, hi] of an i32 value, lo ≤ hi; all of i32 is
// no clamp.
type interval struct{ lo, hi int }

var anyI32 = interval{math.MinInt32, math.MaxInt32}

// then is the clamp to b after the clamp to a, itself a clamp:
// clamp(clamp(v, a), b) = clamp(v, lo, hi) with lo = min(max(a.lo, b.lo),
// b.hi) and hi = max(min(a.hi, b.hi), b.lo). Where a and b meet this is
// their intersection; where a lies below b every value lands on b.lo (lo =
// hi = b.lo), above b on b.hi.
func (a interval) then(b interval) interval {
	return interval{min(max(a.lo, b.lo), b.hi), max(min(a.hi, b.hi), b.lo)}
}

// policy is an operator output's policy as an interval (§3): its clamp,
// or all of i32 for derived. Under acc32 only graph inputs are check
// (§7.2 condition 2), so an output is derived or clamp (certify.Load has
// refused any other), and every derived value fits i32 (condition 1).
func policy(rec whg1.Tensor) interval {
	if rec.Policy != whg1.Clamp {
		return anyI32
	}
	lo, hi := clampBounds(rec.Lo, rec.Hi)
	return interval{lo, hi}
}

// folded follows tensor t through the operators folded into its producer
// (Program.into): the tensor whose buffer the producer stores into, and
// the clamp that store applies, t's policy then each folded operator's
// and its output's.
func (p *Program) folded(t uint32) (uint32, interval) {
	g := p.g
	c := policy(g.Tensors[t])
	for {
		i, ok := p.into[t]
		if !ok {
			return t, c
		}
		op := &g.Ops[i]
		if op.Code == whg1.OpClamp {
			k := op.Params.(*whg1.ClampParams)
			lo, hi := clampBounds(k.Lo, k.Hi)
			c = c.then(interval{lo, hi})
		} else {
			c = c.then(interval{0, math.MaxInt32}) // relu
		}
		t = op.Out[0]
		c = c.then(policy(g.Tensors[t]))
	}
}
