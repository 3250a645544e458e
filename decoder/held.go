package decoder

import (
	"crypto/sha256"
	"runtime"
	"sync"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/whg1"
)

// held is the graphs one loaded set holds in the Decoder's session (so
// that no number of other loads evicts them), by the SHA-256 of their
// bytes. It is released once: by the set's Close, or when the set is no
// longer reachable (a cleanup the set registers).
type held struct {
	sess *plan.Session
	mu   sync.Mutex
	gs   map[[32]byte]*plan.Graph
	done bool
}

func (d *Decoder) newHeld() *held { return &held{sess: d.sess, gs: map[[32]byte]*plan.Graph{}} }

// loader is the drivers.Loader the set's lowering loads through: each
// graph held once, whatever the number of roles that share its bytes.
func (h *held) loader() drivers.Loader {
	return func(b []byte) (whg1.Decoder, *whg1.Graph, string, error) {
		g, err := h.sess.Hold(b)
		if err != nil {
			return nil, nil, "", err
		}
		sum := sha256.Sum256(b)
		h.mu.Lock()
		if h.gs[sum] == nil {
			h.gs[sum] = g
		} else {
			h.sess.Release(g)
		}
		h.mu.Unlock()
		return g, g.Model, g.Fabric().Name(), nil
	}
}

// graph is the held graph of bytes b.
func (h *held) graph(b []byte) *plan.Graph {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gs[sha256.Sum256(b)]
}

// live is ErrClosed once the set was closed.
func (h *held) live() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return ErrClosed
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
func fabricOf(g *plan.Graph) Fabric {
	if g == nil {
		return ""
	}
	return Fabric(g.Fabric().Name())
}
