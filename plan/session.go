package plan

import (
	"crypto/sha256"
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
	return "GL renderer " + g.GL().Renderer + " is a software rasteriser; auto runs on the CPU reference (use --fabric gpu to run there)"
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
	gpu    Fabric // nil when no usable GL context, and under Hybrid
	// Note says once why a session does not use the GPU ("" when it does).
	Note string
	// MaxGraphs is how many loaded graphs the session keeps
	// (DefaultMaxGraphs when 0); loading one more closes the least
	// recently loaded. Set it before the first Load.
	MaxGraphs int

	mu     sync.Mutex
	closed bool
	loaded graphCache
}

type loadKey struct {
	sum    [32]byte
	fabric string
}

// NewSession opens the fabrics a choice needs. With Auto a missing GPU is not
// an error: the session runs on the CPU and Note says why. With GPU a missing
// context is an error, and so it is with Hybrid, which loads every graph on
// the hybrid fabric.
func NewSession(choice Choice) (*Session, error) {
	if choice == CPU {
		return newSession(choice, nil, nil)
	}
	g, err := OpenGPU()
	return newSession(choice, g, err)
}

// newSession is NewSession over the GL fabric g, or gerr when there is none.
func newSession(choice Choice, g Fabric, gerr error) (*Session, error) {
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
		s.Note = gerr.Error() + "; running on the CPU reference"
	case choice == Auto && softwareNote(g) != "":
		s.Note = softwareNote(g)
	default:
		s.gpu = g
	}
	return s, nil
}

// Graph is a graph loaded for one fabric. It decodes until its session
// closes or evicts it (see MaxGraphs); then Decode returns ErrClosed.
type Graph struct {
	Model  *whg1.Graph
	Fabric Fabric
	dec    *guarded
}

// Load parses and certifies b (once per distinct bytes and fabric while the
// session keeps it) and picks its fabric: under Auto the GPU when the
// verdict meets acc32 and a GPU is present, else the CPU; under GPU a graph
// that does not meet acc32 is refused (model_mismatch, §11 "In the sink":
// an acc64 set runs only on an acc64 implementation). After Close it
// returns ErrClosed.
func (s *Session) Load(b []byte) (*Graph, error) {
	f := s.cpu
	if s.gpu != nil {
		ok, err := meetsAcc32(b)
		if err != nil {
			return nil, err
		}
		switch {
		case ok:
			f = s.gpu
		case s.choice == GPU:
			return nil, refusal.New(refusal.ModelMismatch, "the graph's verdict does not meet acc32, and the gpu fabric implements acc32 only; run it with --fabric cpu or auto")
		}
	}
	key := loadKey{sha256.Sum256(b), f.Name()}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if g := s.loaded.get(key); g != nil {
		s.mu.Unlock()
		return g, nil
	}
	dec, model, err := f.Load(b)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	g := &Graph{Model: model, Fabric: f, dec: &guarded{dec: dec}}
	limit := s.MaxGraphs
	if limit <= 0 {
		limit = DefaultMaxGraphs
	}
	evicted := s.loaded.put(key, g, limit)
	s.mu.Unlock()
	// Closed outside the lock: a close waits for the evicted graph's
	// decodes in flight, which must not hold up other loads. Its error (a
	// GL thread that is gone) is not this load's: b loaded.
	closeAll(evicted)
	return g, nil
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

// meetsAcc32 reports the graph's verdict under acc32 from the certifier's
// cache; a graph that fails to load at all returns its refusal.
func meetsAcc32(b []byte) (bool, error) {
	v, err := certify.CachedVerdict(b)
	if err != nil {
		return false, err
	}
	return v.Meets(certify.Acc32), nil
}

// Decode runs one decode (no state carried).
func (g *Graph) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return whg1.NewSequence(g.Model, g.dec).Decode(inputs, scalars)
}

// Sequence starts a sequence of decodes that carries state (§10.3).
func (g *Graph) Sequence() *whg1.Sequence { return whg1.NewSequence(g.Model, g.dec) }
