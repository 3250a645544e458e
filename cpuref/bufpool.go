package cpuref

import (
	"sync"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// bufPool keeps the element buffers of tensors that a decode has let go of
// (whg1.Graph.Drops), by length, for the next tensor of that length, in
// this decode or a later one: a decode of a large network then neither asks
// the runtime for tens of MiB per operator nor has them cleared and faulted
// in again. It holds at most bufKeep buffers of a length, so at most what
// bufKeep decodes at once let go of.
//
// Invariants: only buffers that a step of this Program allocated through
// get go back (never a caller's input, never a tensor a graph output names,
// since Drops lists neither), each at most once, after the last operator
// that reads it; so no two live tensors of a decode share a buffer. get
// hands a buffer back zeroed, as tensor.New would, unless its caller says
// that the step writes every element. Safe for concurrent decodes.
type bufPool struct {
	mu  sync.Mutex
	byN map[int][][]int64
}

// bufKeep bounds the free buffers of one length.
const bufKeep = 4

// get returns a tensor of shape s, its buffer reused when one of its length
// is free; its elements are zero unless full (the step writes them all).
// A nil pool reuses nothing.
func (b *bufPool) get(s tensor.Shape, full bool) *tensor.T {
	if b == nil {
		return tensor.New(s)
	}
	n := s.Elems()
	b.mu.Lock()
	free := b.byN[n]
	var d []int64
	if k := len(free); k > 0 {
		d, b.byN[n] = free[k-1], free[:k-1]
	}
	b.mu.Unlock()
	if d == nil {
		return tensor.New(s)
	}
	if !full {
		clear(d)
	}
	return &tensor.T{Shape: s, Data: d}
}

// put frees t's buffer for reuse; t must not be read afterwards.
func (b *bufPool) put(t *tensor.T) {
	d := t.Data
	t.Data = nil
	if b == nil || len(d) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byN == nil {
		b.byN = map[int][][]int64{}
	}
	if len(b.byN[len(d)]) < bufKeep {
		b.byN[len(d)] = append(b.byN[len(d)], d)
	}
}

// writesAll says whether op's step writes every element of its output, on
// every path that does not refuse: conv_transpose (each residue's phase rows
// are computed or filled with rq_o(0), column by column, convT.go run; the
// exact form writes each position) and igdn (each block writes each channel
// at each of its positions, on all three paths). A post folded in rewrites
// what was written.
func writesAll(op *whg1.Op) bool {
	switch op.Params.(type) {
	case *whg1.ConvT, *whg1.IGDN:
		return true
	}
	return false
}
