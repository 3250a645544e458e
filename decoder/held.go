package decoder

import (
	"runtime"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/whg1"
)

// held is the graphs one loaded set holds in the Decoder's session (so
// that no number of other loads evicts them), in the order the set loaded
// them. It is released once: by the set's Close, or when the set is no
// longer reachable (a cleanup the set registers). It is the fabric.Loader
// the set's lowering loads through; the session's cache is the one index
// of graphs by digest.
type held struct {
	sess *plan.Session
	mu   sync.Mutex
	gs   []*plan.Graph
	done bool
}

func (d *Decoder) newHeld() *held { return &held{sess: d.sess} }

// LoadCertified holds the graph in the session, as its set certified it.
func (h *held) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	lg, err := h.sess.HoldCertified(g, cert)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.gs = append(h.gs, lg)
	h.mu.Unlock()
	return lg, nil
}

// graph is the i-th graph the set loaded.
func (h *held) graph(i int) *plan.Graph {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gs[i]
}

// live is fabric.ErrClosed once the set was closed.
func (h *held) live() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return fabric.ErrClosed
	}
	return nil
}

// release lets go of every graph, once.
func (h *held) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	for _, g := range h.gs {
		h.sess.Release(g)
	}
}

// track releases h when set, the value that owns it, is no longer
// reachable, and returns set.
func track[S any](set *S, h *held) *S {
	runtime.AddCleanup(set, func(h *held) { h.release() }, h)
	return set
}

// fabricOf names the fabric a held graph runs on now (a loss under Auto
// moves it to the CPU).
func fabricOf(g *plan.Graph) fabric.Choice { return fabric.Choice(g.Fabric().Name()) }
