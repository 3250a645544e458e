//go:build cgo

package gpu

// pool holds a Program's tensor buffers between decodes, so that a decode
// after the first makes no buffer: each tensor takes a buffer of its
// element count from the free list, and gives it back once its last reader
// has run (whg1.Graph.Drops) or the decode has ended. After each decode the
// buffers that decode did not take are freed, so the pool holds one
// decode's working set, not the sum of every size seen. It lives on the GL
// thread and is freed with its Program.
type pool struct {
	free  map[int][]*buffer
	taken map[*buffer]bool // taken during the decode in progress
	held  []*buffer        // every buffer the pool owns
}

// take returns a buffer of n elements, made only when none is free. Its
// policy and width are cleared (the caller sets its tensor's).
func (p *pool) take(d *Device, n int) *buffer {
	if p.free == nil {
		p.free, p.taken = map[int][]*buffer{}, map[*buffer]bool{}
	}
	var b *buffer
	if l := p.free[n]; len(l) > 0 {
		b, p.free[n] = l[len(l)-1], l[:len(l)-1]
	} else {
		b = d.newBuffer(n)
		p.held = append(p.held, b)
	}
	b.clamp, b.wire = false, wire{}
	p.taken[b] = true
	return b
}

// put gives b back to the free list; nil, or a buffer the pool did not
// give (a graph input's staging buffer), does nothing.
func (p *pool) put(b *buffer) {
	if b != nil && p.taken[b] {
		p.free[b.n] = append(p.free[b.n], b)
	}
}

// trim ends a decode: every buffer is free again, and those the decode
// did not take are freed on the device.
func (p *pool) trim() {
	keep := p.held[:0]
	for _, b := range p.held {
		if p.taken[b] {
			keep = append(keep, b)
		} else {
			b.free()
		}
	}
	clear(p.held[len(keep):])
	p.held = keep
	clear(p.free)
	for _, b := range p.held {
		p.free[b.n] = append(p.free[b.n], b)
	}
	clear(p.taken)
}

// bytes is the device memory the pool holds.
func (p *pool) bytes() int64 {
	var n int64
	for _, b := range p.held {
		n += b.bytes()
	}
	return n
}

// release passes every buffer to drop (free, or forget once the context
// is lost) and empties the pool.
func (p *pool) release(drop func(*buffer)) {
	for _, b := range p.held {
		drop(b)
	}
	*p = pool{}
}
