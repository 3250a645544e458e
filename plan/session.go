package plan

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// glFabric is a fabric on a GL device, whose identity names the renderer.
type glFabric interface {
	fabric.Fabric
	GL() gpu.Identity
}

// softwareNote is why auto leaves the GL fabric f unused: its renderer
// rasterises on the CPU ("" when it does not, or f is not on GL).
func softwareNote(f fabric.Fabric) string {
	g, ok := f.(glFabric)
	if !ok || !g.GL().Software() {
		return ""
	}
	return "GL renderer " + g.GL().Renderer + " is a software rasteriser; auto runs on the CPU reference (choose the gpu fabric to run there)"
}

// Session loads graphs once and decodes many times. Decodes on the CPU
// fabric may run from several goroutines at once; GPU work is serialised on
// the GL context's thread by the gpu package.
type Session struct {
	choice    fabric.Choice
	cpu       fabric.Fabric // the acc64 fabric: the CPU reference, or the hybrid under Hybrid
	maxGraphs int           // Options.MaxGraphs, DefaultMaxGraphs for 0

	routes *fabric.Routes // under Auto with a hardware GPU: the measured routes (fabric.Measured)
	notes  io.Writer      // Options.Notes

	mu     sync.Mutex
	gpu    fabric.Fabric // nil when no usable GL context, under Hybrid, and after a loss under Auto
	note   string
	closed bool
	loaded graphCache
}

type loadKey struct {
	sum    [32]byte
	fabric string
}

// NewSession opens the fabrics o.Fabric needs. Under Auto ("" too) a
// missing GPU is not an error: the session runs on the CPU and Note says
// why. Under GPU a missing context is an error, and so it is under Hybrid,
// which loads every graph on the hybrid fabric.
func NewSession(o fabric.Options) (*Session, error) {
	if o.Fabric == "" {
		o.Fabric = fabric.Auto
	}
	if _, err := fabric.ParseChoice(string(o.Fabric)); err != nil {
		return nil, err
	}
	if o.Fabric == fabric.CPU {
		return newSession(o, nil, nil)
	}
	g, gerr := fabric.OpenGPU()
	return newSession(o, g, gerr)
}

// newSession is NewSession over the GL fabric g, or gerr when there is none.
func newSession(o fabric.Options, g fabric.Fabric, gerr error) (*Session, error) {
	s := &Session{choice: o.Fabric, cpu: fabric.NewCPU(), maxGraphs: o.MaxGraphs}
	if s.maxGraphs <= 0 {
		s.maxGraphs = fabric.DefaultMaxGraphs
	}
	if s.choice == fabric.CPU {
		return s, nil
	}
	switch {
	case gerr != nil && (s.choice == fabric.GPU || s.choice == fabric.Hybrid):
		return nil, gerr
	case s.choice == fabric.Hybrid:
		s.cpu = fabric.NewHybrid(g)
	case gerr != nil:
		s.note = gerr.Error() + "; running on the CPU reference"
	case s.choice == fabric.Auto && !o.SoftwareGL && softwareNote(g) != "":
		s.note = softwareNote(g)
	default:
		s.gpu = g
		// Auto measures where the GPU is hardware; a software
		// rasteriser it uses only under SoftwareGL, which forces the GL
		// path for testing, unmeasured.
		if s.choice == fabric.Auto && softwareNote(g) == "" {
			s.routes, s.notes = fabric.OpenRoutes(), o.Notes
		}
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
// closes or evicts it (Options.MaxGraphs); then Decode returns
// fabric.ErrClosed. Under
// Auto, a graph on the GPU whose GL context is lost (gpu.ErrLost) is loaded
// again on the CPU reference and the decode runs there: the session routes
// every graph to the CPU from then on, and Note says so.
type Graph struct {
	Model *whg1.Graph
	s     *Session
	key   loadKey
	cert  *certify.Certificate // Model's, to load it on the CPU after a loss

	mu  sync.Mutex // over fab and dec, which a loss changes
	fab fabric.Fabric
	dec *guarded
	// holds counts the Hold calls not yet released (the session's mu):
	// the cache never evicts a held graph.
	holds int
}

// Route is where Auto measured the graph to run for its last decode's
// size class ("gpu (2.3× cpu)", fabric.Measured), or "" where Auto did not
// measure it (one fabric runs it: no GPU, a graph outside acc32, another
// choice, or after a loss).
func (g *Graph) Route() string {
	if m, ok := g.current().dec.(*fabric.Measured); ok {
		return m.Route()
	}
	return ""
}

// Fabric is the fabric that runs the graph now (under Auto with a GPU, a
// measured graph's GPU: Route says which fabric decodes it).
func (g *Graph) Fabric() fabric.Fabric {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fab
}

func (g *Graph) current() *guarded {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dec
}

// Load parses and certifies b (once per distinct bytes while the session
// keeps them) and loads the graph on its fabric: under Auto the GPU when
// the verdict meets acc32 and a GPU is present, else the CPU; under GPU a
// graph that does not meet acc32 is refused (model_mismatch, §11 "In the
// sink": an acc64 set runs only on an acc64 implementation). After Close
// it returns fabric.ErrClosed.
func (s *Session) Load(b []byte) (*Graph, error) {
	// One digest per load names the graph everywhere below: its parsed
	// form and certificate (§8.6: verdicts kept by the SHA-256 of the
	// bytes) and its program on each fabric, all in the session's cache.
	sum := sha256.Sum256(b)
	return s.load(sum, func() (*model, error) {
		g, cert, err := certify.GraphSum(b, sum)
		if err != nil {
			return nil, err
		}
		return &model{g: g, cert: cert}, nil
	}, false)
}

// LoadCertified is Load of a graph parsed and certified already (its
// certificate on its own, certify.Graph or certify.Certificate.Of), named
// by the digest in its certificate: nothing is parsed, certified or
// hashed again. It returns the *Graph, as a fabric.Loader.
func (s *Session) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	lg, err := s.loadCertified(g, cert, false)
	if err != nil {
		return nil, err
	}
	return lg, nil
}

// HoldCertified is LoadCertified for a caller that keeps the graph: the
// session does not evict it, however many other graphs load, until
// Release. A set of graphs held together may pass Options.MaxGraphs; the
// cache then evicts only graphs that nobody holds.
func (s *Session) HoldCertified(g *whg1.Graph, cert *certify.Certificate) (*Graph, error) {
	return s.loadCertified(g, cert, true)
}

func (s *Session) loadCertified(g *whg1.Graph, cert *certify.Certificate, hold bool) (*Graph, error) {
	return s.load(cert.Graphs[0].Sum, func() (*model, error) { return &model{g: g, cert: cert}, nil }, hold)
}

// Release ends one HoldCertified of g; once none is left the graph may be
// evicted like any other.
func (s *Session) Release(g *Graph) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.holds > 0 {
		g.holds--
	}
}

// load loads the graph of digest sum, whose parsed form and certificate
// certified gives when the session does not keep them.
func (s *Session) load(sum [32]byte, certified func() (*model, error), hold bool) (*Graph, error) {
	s.mu.Lock()
	g, evicted, err := s.loadLocked(sum, certified, hold)
	s.mu.Unlock()
	// Closed outside the lock: a close waits for the evicted graph's
	// decodes in flight, which must not hold up other loads. Its error (a
	// GL thread that is gone) is not this load's: the graph loaded.
	closeAll(evicted)
	return g, err
}

// loadLocked is load under the session's mu; it returns the graphs the
// load evicted, for the caller to close.
func (s *Session) loadLocked(sum [32]byte, certified func() (*model, error), hold bool) (*Graph, []*Graph, error) {
	if s.closed {
		return nil, nil, fabric.ErrClosed
	}
	m := s.loaded.model(sum)
	if m == nil {
		var err error
		if m, err = certified(); err != nil {
			return nil, nil, err
		}
	}
	f := s.cpu
	measure := false // Auto measures an acc32 graph on both fabrics
	if s.gpu != nil {
		switch {
		case m.cert.Verdict.Meets(certify.Acc32):
			f, measure = s.gpu, s.routes != nil
		case s.choice == fabric.GPU:
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
	if measure {
		cpu, err := s.cpu.LoadCertified(m.g, m.cert)
		if err != nil {
			(&guarded{dec: dec}).close()
			return nil, nil, err
		}
		dec = fabric.NewMeasured(dec, cpu, sum, f.Identity(), s.routes, s.notes)
	}
	g := &Graph{Model: m.g, s: s, key: key, cert: m.cert, fab: f, dec: &guarded{dec: dec}}
	if hold {
		g.holds = 1
	}
	return g, s.loaded.put(key, g, m, s.maxGraphs), nil
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
	if s.choice != fabric.Auto {
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
// fabric.ErrClosed. A second Close does nothing.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	gs := s.loaded.drain()
	s.mu.Unlock()
	return closeAll(gs)
}

// Decode runs one decode that carries no state (each state input its
// init): planned once here (whg1.Graph.PlanData), then run on the graph's
// fabric without planning again.
func (g *Graph) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	r, err := g.Model.PlanData(inputs, scalars)
	if err != nil {
		return nil, err
	}
	return routed{g}.DecodePlanned(r)
}

// DecodePlanned runs a decode planned on g.Model (every input, state
// inputs included) on the graph's fabric.
func (g *Graph) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	return routed{g}.DecodePlanned(r)
}

// Sequence starts a sequence of decodes that carries state (§10.3).
func (g *Graph) Sequence() *whg1.Sequence { return whg1.NewSequence(g.Model, routed{g}) }

// routed decodes on the graph's current decoder, marks it used, and on a
// GPU loss under Auto decodes again where the session reroutes it: the
// lost decode returned no outputs and changed no state, so running it
// again is the same decode.
type routed struct{ g *Graph }

func (r routed) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return r.run(func(d *guarded) ([]*tensor.T, error) { return d.Decode(inputs, scalars) })
}

func (r routed) DecodePlanned(p *whg1.Planned) ([]*tensor.T, error) {
	return r.run(func(d *guarded) ([]*tensor.T, error) { return d.DecodePlanned(p) })
}

func (r routed) run(decode func(*guarded) ([]*tensor.T, error)) ([]*tensor.T, error) {
	g := r.g
	g.s.used(g)
	dec := g.current()
	out, err := decode(dec)
	if err != nil && errors.Is(err, gpu.ErrLost) {
		if now := g.s.reroute(g, dec, err); now != nil {
			return decode(now)
		}
	}
	return out, err
}
