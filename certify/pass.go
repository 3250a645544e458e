package certify

import (
	"math/big"

	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// Node is the pass's record of one operator (§8.5 node).
type Node struct {
	Index int
	Op    whg1.Opcode
	// Intermediates holds exactly the keys of Table 8.5-A for the operator.
	Intermediates map[string]Interval
	// Results are the producer results, Out the output tensors' intervals
	// after their policies (§8.1), both in output order.
	Results, Out []Interval
	// Saturated is set when sat changed any result of the node (§8.1).
	Saturated bool
	// Acc32Params are the §7.2 parameter conditions the node fails, in
	// that table's order.
	Acc32Params []string
	// KC is K_c of §6 over the node's term interval (conv, conv_transpose,
	// igdn, gram, apply); nil for other operators. KCUnbounded is set when
	// the term interval is [0, 0].
	KC          *big.Int
	KCUnbounded bool
	// Mac holds the operand widths (§9.2) for conv, conv_transpose,
	// chscale, mul, gram and apply; nil otherwise.
	Mac *Mac
	// NPUFlags are the node's §9.2 flags, in ascending order.
	NPUFlags []string
	// Fits lists the profiles the node meets, in ascending order.
	Fits []Profile

	op *whg1.Op
}

// Mac is a node's mac member (§8.5): the bits of each input tensor's
// interval, and of [min, max] over the weights or M (WBits 0 when absent).
type Mac struct {
	ABits []int
	WBits int
}

// bound runs the bounds pass of §8.1–§8.3 over g: every tensor's interval
// and every node's record. An empty check interval, or a lut16 input outside
// [−32767, 32767], refuses the graph (model_mismatch).
func bound(g *whg1.Graph, fold bool) ([]Interval, []Node, error) {
	tally.Bounds.Add(1)
	shapes, err := planSizes(g)
	if err != nil {
		return nil, nil, err
	}
	r := &rules{g: g, shapes: shapes, fold: fold}
	tensors := make([]Interval, len(g.Tensors))
	// §8.1: a graph input's interval is its declared range.
	for _, in := range g.Inputs {
		t := g.Tensors[in.Tensor]
		tensors[in.Tensor] = iv64(t.Lo, t.Hi)
	}
	nodes := make([]Node, len(g.Ops))
	for i := range g.Ops {
		op := &g.Ops[i]
		in := make([]Interval, len(op.In))
		for k, t := range op.In {
			in[k] = tensors[t]
		}
		var a arith
		nb, err := r.node(&a, op, in)
		if err != nil {
			return nil, nil, refusal.New(refusal.ModelMismatch, "op %d (%v): %s", i, op.Code, errMsg(err))
		}
		n := &nodes[i]
		*n = Node{Index: i, Op: op.Code, Intermediates: nb.inter, Results: nb.results, op: op}
		for k, t := range op.Out {
			iv, err := applyPolicy(g.Tensors[t], nb.results[k])
			if err != nil {
				return nil, nil, refusal.New(refusal.ModelMismatch, "op %d (%v) output %d: %s", i, op.Code, k, errMsg(err))
			}
			n.Out = append(n.Out, iv)
			tensors[t] = iv
		}
		n.Saturated = a.saturated
		describe(g, n, in)
	}
	return tensors, nodes, nil
}

// errMsg is a refusal's reason without its code, or the error's text.
func errMsg(err error) string {
	if r, ok := err.(*refusal.Error); ok {
		return r.Msg
	}
	return err.Error()
}

// applyPolicy gives a tensor's interval from its producer result [a, b]
// (§8.1): derived keeps it; clamp [lo, hi] gives [clamp(a, lo, hi),
// clamp(b, lo, hi)]; check [lo, hi] gives [max(a, lo), min(b, hi)], and an
// empty one refuses the graph.
func applyPolicy(t whg1.Tensor, res Interval) (Interval, error) {
	lo, hi := bi(t.Lo), bi(t.Hi)
	switch t.Policy {
	case whg1.Clamp:
		return clampIv(res, lo, hi), nil
	case whg1.Check:
		iv := Interval{maxBig(res.Lo, lo), minBig(res.Hi, hi)}
		if iv.Lo.Cmp(iv.Hi) > 0 {
			return Interval{}, refusal.New(refusal.ModelMismatch,
				"check range [%d, %d] misses the producer result %v: every input would be refused", t.Lo, t.Hi, res)
		}
		return iv, nil
	}
	return res, nil
}
