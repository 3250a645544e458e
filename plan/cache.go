package plan

import (
	"container/list"
	"errors"
	"io"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// graphCache is a Session's one cache of graphs: each graph's parsed form
// and certificate by the SHA-256 of its bytes (model), and its loaded
// program per fabric (Graph), least recently used (loaded or decoded) at
// the back. A model stays while a program of it does. Its methods hold the
// Session's mu.
type graphCache struct {
	byKey  map[loadKey]*list.Element // of *cached
	order  list.List
	models map[[32]byte]*model
}

// model is a graph parsed and certified on its own (certify.Graph), shared
// by its programs on every fabric.
type model struct {
	g     *whg1.Graph
	cert  *certify.Certificate
	progs int // the cached Graphs of this model
}

// model returns the kept parse and certificate of the bytes with digest
// sum, or nil.
func (c *graphCache) model(sum [32]byte) *model { return c.models[sum] }

type cached struct {
	key loadKey
	g   *Graph
}

// get returns the graph loaded under key and marks it most recently used.
func (c *graphCache) get(key loadKey) *Graph {
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).g
}

// touch marks g, loaded under key, most recently used (if the cache still
// holds it).
func (c *graphCache) touch(key loadKey, g *Graph) {
	if e, ok := c.byKey[key]; ok && e.Value.(*cached).g == g {
		c.order.MoveToFront(e)
	}
}

// put adds g under key and returns the graphs that no longer fit in limit,
// least recently used first, for the caller to close once it has let go of
// the lock. A held graph (Session.Hold) is never among them: while every
// graph over the limit is held, the cache holds more than limit.
func (c *graphCache) put(key loadKey, g *Graph, m *model, limit int) []*Graph {
	if c.byKey == nil {
		c.byKey = map[loadKey]*list.Element{}
		c.models = map[[32]byte]*model{}
	}
	c.byKey[key] = c.order.PushFront(&cached{key, g})
	c.models[key.sum] = m
	m.progs++
	var out []*Graph
	for e := c.order.Back(); e != nil && c.order.Len() > limit; {
		prev := e.Prev()
		if v := e.Value.(*cached); v.g != g && v.g.holds == 0 {
			c.order.Remove(e)
			delete(c.byKey, v.key)
			if m := c.models[v.key.sum]; m != nil {
				if m.progs--; m.progs == 0 {
					delete(c.models, v.key.sum)
				}
			}
			out = append(out, v.g)
		}
		e = prev
	}
	return out
}

// drain empties the cache and returns every graph it held.
func (c *graphCache) drain() []*Graph {
	var out []*Graph
	for e := c.order.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*cached).g)
	}
	c.byKey, c.order, c.models = nil, list.List{}, nil
	return out
}

// closeAll closes each graph's decoder, and returns the errors joined.
func closeAll(gs []*Graph) error {
	var errs []error
	for _, g := range gs {
		errs = append(errs, g.dec.close())
	}
	return errors.Join(errs...)
}

// guarded is a loaded decoder that its session may close: a decode holds
// the read lock, so Close waits for the decodes in flight, and a decode
// after Close is ErrClosed.
type guarded struct {
	mu     sync.RWMutex
	closed bool
	dec    whg1.Decoder
}

func (d *guarded) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, fabric.ErrClosed
	}
	return d.dec.Decode(inputs, scalars)
}

func (d *guarded) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, fabric.ErrClosed
	}
	return whg1.DecodePlanned(d.dec, r)
}

// close closes the decoder once, releasing what it holds on a device (a
// gpu.Program, or a hybrid program's GL sub-programs).
func (d *guarded) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if c, ok := d.dec.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
