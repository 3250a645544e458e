package cpuref

import (
	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// rowPost is what a producer applies, in its row epilogue, to the values
// it writes, in place of the relu, clamp and leaky operators that fuse
// folded into it: its stages in graph order. A nil *rowPost is no operator
// at all.
type rowPost struct{ stages []postStage }

// postStage is one folded operator: clamp(v, lo, hi) of §2 (§5.5: relu is
// clamp(v, 0, 2^63 − 1) on i64, clamp is clamp(v, lo, hi)), or, when leaky
// is set, §5.5 leaky with its products in int64 (leakyNarrow held at load).
type postStage struct {
	lo, hi int64
	leaky  *whg1.Leaky
}

// row applies the stages to r in place; on a nil post it does nothing.
func (p *rowPost) row(r []int64) {
	if p == nil {
		return
	}
	for _, s := range p.stages {
		if s.leaky != nil {
			leakyRow(s.leaky, r, r)
			continue
		}
		lo, hi := s.lo, s.hi
		for i, v := range r {
			r[i] = min(max(v, lo), hi)
		}
	}
}

// strided applies the stages in place to r[0], r[s], …, r[(n−1)·s]: the
// outputs a conv_transpose phase row writes (every s-th column).
func (p *rowPost) strided(r []int64, n, s int) {
	if p == nil {
		return
	}
	for _, st := range p.stages {
		for i := 0; i < n*s; i += s {
			if st.leaky != nil {
				r[i] = leaky64(st.leaky, r[i])
			} else {
				r[i] = min(max(r[i], st.lo), st.hi)
			}
		}
	}
}

// clamp returns the one clamp this post is, when it is a single clamp stage
// (a relu, a clamp, or clamps that then merged): a kernel may apply it in
// its own epilogue (dot.RQ64's Clamp).
func (p *rowPost) clamp() (lo, hi int64, ok bool) {
	if p == nil || len(p.stages) != 1 || p.stages[0].leaky != nil {
		return 0, 0, false
	}
	return p.stages[0].lo, p.stages[0].hi, true
}

// then is this post followed by clamp(·, lo, hi), as a new post. A clamp
// after a clamp is one clamp: with f(v) = clamp(clamp(v, a, b), lo, hi), f
// is nondecreasing, equal to clamp(a, lo, hi) for v ≤ a, to clamp(b, lo,
// hi) for v ≥ b and to clamp(v, lo, hi) between, so f(v) = clamp(v,
// clamp(a, lo, hi), clamp(b, lo, hi)), whose ends stay ordered.
func (p *rowPost) then(lo, hi int64) *rowPost {
	var st []postStage
	if p != nil {
		st = append(st, p.stages...)
	}
	if n := len(st); n > 0 && st[n-1].leaky == nil {
		a, b := st[n-1].lo, st[n-1].hi
		st[n-1] = postStage{lo: min(max(a, lo), hi), hi: min(max(b, lo), hi)}
	} else {
		st = append(st, postStage{lo: lo, hi: hi})
	}
	return &rowPost{st}
}

// thenLeaky is this post followed by leaky l, as a new post.
func (p *rowPost) thenLeaky(l *whg1.Leaky) *rowPost {
	var st []postStage
	if p != nil {
		st = append(st, p.stages...)
	}
	return &rowPost{append(st, postStage{leaky: l})}
}

// asClamp is the clamp an elementwise operator is, when it is one: relu
// (max(v, 0), §5.5) or clamp(lo, hi).
func asClamp(op *whg1.Op) (lo, hi int64, ok bool) {
	switch op.Code {
	case whg1.OpRelu:
		return 0, 1<<63 - 1, true
	case whg1.OpClamp:
		if p, isClamp := op.Params.(*whg1.ClampParams); isClamp {
			return p.Lo, p.Hi, true
		}
	}
	return 0, 0, false
}

// fusion says what one operator's step does once relu, clamp and leaky
// operators are folded into their producers.
type fusion struct {
	// post is what the step applies to its output (nil for nothing).
	post *rowPost
	// last is the operator whose output the step writes: the op itself,
	// or the last op folded into it.
	last int
	// gone marks an op that an earlier step already applied.
	gone bool
	// clamped says that post ends with the clamp policy of op last's
	// output (§3: the policy's result is part of the producer's output), so
	// Decode has no policy left to apply to it.
	clamped bool
}

// fuse plans the folding: a relu, clamp or leaky op j whose input t is the
// only output of its producer i, read by j alone, named by no graph output
// and of policy derived or clamp, is applied by i's step to the values i
// writes (chains of them too), and t is never formed. A leaky folds only
// when the certificate makes all its products int64 (leakyNarrow on t's
// interval, gb non-nil), so that it cannot refuse. This changes no value: t
// exists only to be j's input, and a clamp policy on t is one more clamp
// (§3: the policy's result is part of the producer's output). It changes
// no refusal either: relu and clamp never refuse, a folded leaky cannot,
// nor can a clamp policy; a check policy on t stops the chain, and one on
// j's output joins it only when no other operator runs between i and j, so
// its field_range comes where it came before. A clamp policy on the output
// the step writes, fused or not, joins post as well.
func fuse(g *whg1.Graph, gb *certify.GraphBounds) []fusion {
	uses := make([]int, len(g.Tensors))
	reader := make([]int, len(g.Tensors)) // the last op reading tensor t
	for i := range g.Ops {
		for _, t := range g.Ops[i].In {
			uses[t]++
			reader[t] = i
		}
	}
	for _, t := range g.Outputs {
		uses[t]++
		reader[t] = -1
	}
	fz := make([]fusion, len(g.Ops))
	for i := range fz {
		fz[i].last = i
	}
	for i := range g.Ops {
		if fz[i].gone || len(g.Ops[i].Out) != 1 {
			continue
		}
		f := &fz[i]
		contig := true // no other op runs between i and f.last
		for {
			t := g.Ops[f.last].Out[0]
			j := reader[t]
			if uses[t] != 1 || j < 0 || g.Tensors[t].Policy == whg1.Check {
				break
			}
			op := &g.Ops[j]
			lo, hi, isClamp := asClamp(op)
			lk, isLeaky := op.Params.(*whg1.Leaky)
			if isLeaky {
				isLeaky = gb != nil && leakyNarrow(lk, bounds{gb.Tensors[t]})
			}
			if !isClamp && !isLeaky || len(op.In) != 1 || len(op.Out) != 1 {
				break
			}
			contig = contig && j == f.last+1
			if g.Tensors[op.Out[0]].Policy == whg1.Check && !contig {
				break
			}
			if rec := g.Tensors[t]; rec.Policy == whg1.Clamp {
				f.post = f.post.then(rec.Lo, rec.Hi)
			}
			if isLeaky {
				f.post = f.post.thenLeaky(lk)
			} else {
				f.post = f.post.then(lo, hi)
			}
			fz[j].gone = true
			f.last = j
		}
		if rec := g.Tensors[g.Ops[f.last].Out[0]]; rec.Policy == whg1.Clamp {
			f.post = f.post.then(rec.Lo, rec.Hi)
			f.clamped = true
		}
	}
	return fz
}

// epilogueHost says whether op's kernel applies a post to each row it
// writes (conv, conv_transpose, rescale, mul, chscale: the rq epilogue;
// igdn: each block's rows);
// the step of any other producer applies it to its output once it has run.
func epilogueHost(op *whg1.Op) bool {
	switch op.Params.(type) {
	case *whg1.Conv, *whg1.ConvT, *whg1.Rescale, *whg1.Chscale, *whg1.IGDN:
		return true
	}
	return false
}
