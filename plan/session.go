package plan

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Choice is how a Session picks a fabric.
type Choice string

const (
	Auto Choice = "auto" // the GPU for acc32 graphs when a real one is present, else the CPU
	CPU  Choice = "cpu"  // always the CPU reference
	GPU  Choice = "gpu"  // the GL fabric, also on a software renderer; acc64 graphs refused
	// Hybrid runs every graph on the hybrid acc64 fabric: acc32 runs of
	// nodes on the GL fabric, the rest on the CPU reference. Opt-in only.
	Hybrid Choice = "hybrid"
)

// ParseChoice reads a --fabric value.
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(s); c {
	case Auto, CPU, GPU, Hybrid:
		return c, nil
	}
	return "", fmt.Errorf("fabric %q: want auto, cpu, gpu or hybrid", s)
}

// softwareRenderers are GL renderers that rasterise on the CPU. The CPU
// reference outruns them: docs/bench measured the int_synth decode at 58
// frames/s on the CPU against 20 on llvmpipe (conv_transpose 3.48 G against
// 0.54 G MAC/s), so auto does not route to them; --fabric gpu still does
// (that is how CI proves the shaders).
var softwareRenderers = []string{"llvmpipe", "softpipe", "swrast", "lavapipe", "software"}

// glFabric is a fabric on a GL device, whose identity names the renderer.
type glFabric interface {
	Fabric
	GL() gpu.Identity
}

// softwareNote is why auto leaves the GL fabric f unused: its renderer
// rasterises on the CPU ("" when it does not, or f is not on GL).
func softwareNote(f Fabric) string {
	g, ok := f.(glFabric)
	if !ok || !IsSoftware(g.GL().Renderer) {
		return ""
	}
	return "GL renderer " + g.GL().Renderer + " is a software rasteriser; auto runs on the CPU reference (choose the gpu fabric to run there)"
}

// IsSoftware reports whether a GL renderer string names a software rasteriser.
func IsSoftware(renderer string) bool {
	r := strings.ToLower(renderer)
	for _, s := range softwareRenderers {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// Session loads graphs once and decodes many times. Decodes on the CPU
// fabric may run from several goroutines at once; GPU work is serialised on
// the GL context's thread by the gpu package.
type Session struct {
	choice Choice
	cpu    Fabric // the acc64 fabric: the CPU reference, or the hybrid under Hybrid
	// MaxGraphs is how many loaded graphs the session keeps
	// (DefaultMaxGraphs when 0); loading one more closes the least
	// recently used graph that nobody holds (Hold). Set it before the
	// first Load.
	MaxGraphs int

	mu     sync.Mutex
	gpu    Fabric // nil when no usable GL context, under Hybrid, and after a loss under Auto
	note   string
	closed bool
	loaded graphCache
}

// Options are a Session's settings beside its Choice.
type Options struct {
	// MaxGraphs is Session.MaxGraphs.
	MaxGraphs int
	// SoftwareGL lets Auto use a GL fabric whose renderer is a software
	// rasteriser (llvmpipe), which it otherwise leaves for the CPU
	// reference; tests of the GL path under Auto use it.
	SoftwareGL bool
}

type loadKey struct {
	sum    [32]byte
	fabric string
}

// NewSession opens the fabrics a choice needs. With Auto a missing GPU is not
// an error: the session runs on the CPU and Note says why. With GPU a missing
// context is an error, and so it is with Hybrid, which loads every graph on
// the hybrid fabric.
func NewSession(choice Choice) (*Session, error) { return NewSessionWith(choice, Options{}) }

// NewSessionWith is NewSession with options.
func NewSessionWith(choice Choice, o Options) (*Session, error) {
	var s *Session
	var err error
	if choice == CPU {
		s, err = newSession(choice, nil, nil, o.SoftwareGL)
	} else {
		g, gerr := OpenGPU()
		s, err = newSession(choice, g, gerr, o.SoftwareGL)
	}
	if s != nil {
		s.MaxGraphs = o.MaxGraphs
	}
	return s, err
}

// newSession is NewSession over the GL fabric g, or gerr when there is none;
// software lets Auto use a software rasteriser.
func newSession(choice Choice, g Fabric, gerr error, software bool) (*Session, error) {
	s := &Session{choice: choice, cpu: NewCPU()}
	if choice == CPU {
		return s, nil
	}
	switch {
	case gerr != nil && (choice == GPU || choice == Hybrid):
		return nil, gerr
	case choice == Hybrid:
		s.cpu = NewHybrid(g)
	case gerr != nil:
		s.note = gerr.Error() + "; running on the CPU reference"
	case choice == Auto && !software && softwareNote(g) != "":
		s.note = softwareNote(g)
	default:
		s.gpu = g
	}
	return s, nil
}

// Note says why the session does not use the GPU (none present, a software
// rasteriser under Auto, the GL context lost mid-run), or "" when it does.
func (s *Session) Note() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.note
}

// Graph is a graph loaded for one fabric. It decodes until its session
// closes or evicts it (see MaxGraphs); then Decode returns ErrClosed. Under
// Auto, a graph on the GPU whose GL context is lost (gpu.ErrLost) is loaded
// again on the CPU reference and the decode runs there: the session routes
// every graph to the CPU from then on, and Note says so.
type Graph struct {
	Model *whg1.Graph
	s     *Session
	key   loadKey
	cert  *certify.Certificate // Model's, to load it on the CPU after a loss

	mu  sync.Mutex // over fab and dec, which a loss changes
	fab Fabric
	dec *guarded
	// holds counts the Hold calls not yet released (the session's mu):
	// the cache never evicts a held graph.
	holds int
}

// Fabric is the fabric that runs the graph now.
func (g *Graph) Fabric() Fabric {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fab
}

func (g *Graph) current() *guarded {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dec
}

// Load parses and certifies b (once per distinct bytes and fabric while the
// session keeps it) and picks its fabric: under Auto the GPU when the
// verdict meets acc32 and a GPU is present, else the CPU; under GPU a graph
// that does not meet acc32 is refused (model_mismatch, §11 "In the sink":
// an acc64 set runs only on an acc64 implementation). After Close it
// returns ErrClosed.
func (s *Session) Load(b []byte) (*Graph, error) { return s.load(b, false) }

// Hold is Load for a caller that keeps the graph: the session does not
// evict it, however many other graphs load, until Release. A set of graphs
// held together may pass MaxGraphs; the cache then evicts only graphs that
// nobody holds.
func (s *Session) Hold(b []byte) (*Graph, error) { return s.load(b, true) }

// Release ends one Hold of g; once none is left the graph may be evicted
// like any other.
func (s *Session) Release(g *Graph) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.holds > 0 {
		g.holds--
	}
}

func (s *Session) load(b []byte, hold bool) (*Graph, error) {
	s.mu.Lock()
	g, evicted, err := s.loadLocked(b, hold)
	s.mu.Unlock()
	// Closed outside the lock: a close waits for the evicted graph's
	// decodes in flight, which must not hold up other loads. Its error (a
	// GL thread that is gone) is not this load's: b loaded.
	closeAll(evicted)
	return g, err
}

// loadLocked is load under the session's mu; it returns the graphs the
// load evicted, for the caller to close.
func (s *Session) loadLocked(b []byte, hold bool) (*Graph, []*Graph, error) {
	// One digest per load names the graph everywhere below: its parsed
	// form and certificate (§8.6: verdicts kept by the SHA-256 of the
	// bytes) and its program on each fabric, all in the session's cache.
	sum := sha256.Sum256(b)
	if s.closed {
		return nil, nil, ErrClosed
	}
	m := s.loaded.model(sum)
	if m == nil {
		g, cert, err := certify.Graph(b)
		if err != nil {
			return nil, nil, err
		}
		m = &model{g: g, cert: cert}
	}
	f := s.cpu
	if s.gpu != nil {
		switch {
		case m.cert.Verdict.Meets(certify.Acc32):
			f = s.gpu
		case s.choice == GPU:
			return nil, nil, refusal.New(refusal.ModelMismatch, "the graph's verdict does not meet acc32, and the gpu fabric implements acc32 only; run it on the cpu fabric or auto")
		}
	}
	key := loadKey{sum, f.Name()}
	if g := s.loaded.get(key); g != nil {
		if hold {
			g.holds++
		}
		return g, nil, nil
	}
	dec, err := f.LoadCertified(m.g, m.cert)
	if err != nil {
		return nil, nil, err
	}
	g := &Graph{Model: m.g, s: s, key: key, cert: m.cert, fab: f, dec: &guarded{dec: dec}}
	if hold {
		g.holds = 1
	}
	limit := s.MaxGraphs
	if limit <= 0 {
		limit = DefaultMaxGraphs
	}
	return g, s.loaded.put(key, g, m, limit), nil
}

// used marks g most recently used, so that a graph in use is the last the
// cache evicts, however long ago it loaded.
func (s *Session) used(g *Graph) {
	s.mu.Lock()
	s.loaded.touch(g.key, g)
	s.mu.Unlock()
}

// reroute answers a GPU loss seen by a decode of g on old: under Auto the
// session stops routing to the GPU (Note says why) and g is loaded again
// on the CPU reference, once however many decodes saw the loss. It returns
// the decoder to run on, or nil when the loss stands (another choice, or
// the CPU load failed).
func (s *Session) reroute(g *Graph, old *guarded, loss error) *guarded {
	if s.choice != Auto {
		return nil
	}
	s.mu.Lock()
	if s.gpu != nil {
		s.gpu = nil
		s.note = fmt.Sprintf("%v; every graph runs on the CPU reference from now on", loss)
	}
	s.mu.Unlock()
	g.mu.Lock()
	if g.dec != old { // another decode rerouted it first
		defer g.mu.Unlock()
		return g.dec
	}
	dec, err := s.cpu.LoadCertified(g.Model, g.cert)
	if err != nil {
		g.mu.Unlock()
		return nil
	}
	g.fab, g.dec = s.cpu, &guarded{dec: dec}
	now := g.dec
	g.mu.Unlock()
	old.close() // forgets its GL objects: they went with the context
	return now
}

// Close releases every graph the session holds (on the GL device too) and
// ends the session: a later Load, or a Decode of a graph it loaded, returns
// ErrClosed. A second Close does nothing.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	gs := s.loaded.drain()
	s.mu.Unlock()
	return closeAll(gs)
}

// Decode runs one decode (no state carried).
func (g *Graph) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return whg1.NewSequence(g.Model, routed{g}).Decode(inputs, scalars)
}

// Sequence starts a sequence of decodes that carries state (§10.3).
func (g *Graph) Sequence() *whg1.Sequence { return whg1.NewSequence(g.Model, routed{g}) }

// routed decodes on the graph's current decoder, marks it used, and on a
// GPU loss under Auto decodes again where the session reroutes it: the
// lost decode returned no outputs and changed no state, so running it
// again is the same decode.
type routed struct{ g *Graph }

func (r routed) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	g := r.g
	g.s.used(g)
	dec := g.current()
	out, err := dec.Decode(inputs, scalars)
	if err != nil && errors.Is(err, gpu.ErrLost) {
		if now := g.s.reroute(g, dec, err); now != nil {
			return now.Decode(inputs, scalars)
		}
	}
	return out, err
}
