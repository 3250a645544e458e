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
	i64 freeList[int64]
	i8  freeList[int8] // the buffers of narrow tensors (narrow.go)
}

// freeList is the free buffers of one element type, by length.
type freeList[E int64 | int8] map[int][][]E

// take removes and returns a free buffer of n elements, or nil.
func (f freeList[E]) take(n int) []E {
	free := f[n]
	k := len(free)
	if k == 0 {
		return nil
	}
	d := free[k-1]
	f[n] = free[:k-1]
	return d
}

// keep adds d unless bufKeep buffers of its length are free already.
func (f *freeList[E]) keep(d []E) {
	if *f == nil {
		*f = freeList[E]{}
	}
	if len((*f)[len(d)]) < bufKeep {
		(*f)[len(d)] = append((*f)[len(d)], d)
	}
}

// bufKeep bounds the free buffers of one length.
const bufKeep = 4

// get returns a tensor of shape s, its buffer reused when one of its length
// is free; its elements are zero unless full (the step writes them all).
// A nil pool reuses nothing.
func (b *bufPool) get(s tensor.Shape, full bool) *tensor.T {
	return &tensor.T{Shape: s, Data: getBuf(b, func() freeList[int64] { return b.i64 }, s.Elems(), full)}
}

// get8 is get for a narrow tensor: its elements in i8, T.Data nil.
func (b *bufPool) get8(s tensor.Shape, full bool) val {
	return val{T: &tensor.T{Shape: s}, i8: getBuf(b, func() freeList[int8] { return b.i8 }, s.Elems(), full)}
}

// getBuf is get's buffer of n elements from b's free list of its type
// (list, read under b's lock).
func getBuf[E int64 | int8](b *bufPool, list func() freeList[E], n int, full bool) []E {
	var d []E
	if b != nil {
		b.mu.Lock()
		d = list().take(n)
		b.mu.Unlock()
	}
	if d == nil {
		return make([]E, n)
	}
	if !full {
		clear(d)
	}
	return d
}

// put frees v's buffer for reuse; v must not be read afterwards.
func (b *bufPool) put(v val) {
	if v.T == nil {
		return
	}
	d, d8 := v.Data, v.i8
	v.Data = nil
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(d) > 0 {
		b.i64.keep(d)
	}
	if len(d8) > 0 {
		b.i8.keep(d8)
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
