// Package fabric is the home of the idea of a fabric: one exact
// implementation of wai-ops/1 at one profile (§7.2). It holds the
// interface every fabric implements, the three fabrics (the CPU reference
// at acc64, the GL compute fabric at acc32, and the hybrid acc64 fabric
// that puts acc32 runs of nodes on the GL one), their names, and how a
// caller chooses among them (Choice, Options).
//
// Tools that need one fabric directly (conformance, benchmarks) use a
// Fabric; package plan routes each graph of a session to one, and package
// decoder is the way in for applications.
package fabric

import (
	"errors"
	"fmt"
	"io"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/whg1"
)

// Loader loads a graph that has been parsed and certified once
// (certify.Graph, or a set's certificate split by certify.Certificate.Of):
// the verdict is checked against the profile where the graph lands (§8.6)
// and nothing is parsed or certified again. A Fabric is a Loader that
// loads on itself; plan.Session is one that routes each graph.
type Loader interface {
	LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error)
}

// Fabric is one operator implementation on one device.
type Fabric interface {
	Loader
	// Name is "cpu", "gpu" or "hybrid": the Choice (CPU, GPU, Hybrid)
	// that runs everything here.
	Name() string
	// Profile is the profile the fabric implements.
	Profile() certify.Profile
	// Identity names the fabric as a conformance report does: for the CPU
	// the Go version, GOOS/GOARCH and CPU model; for GL the vendor,
	// renderer, version and GLSL version.
	Identity() map[string]string
	// Load runs every load check of §10.5 against Profile, step 8 included,
	// and returns a decoder for the graph (one decode per call; wrap it in
	// whg1.Sequence for state). It parses and certifies b: a caller that
	// has the certificate already calls LoadCertified.
	Load(b []byte) (whg1.Decoder, *whg1.Graph, error)
}

// Choice is how graphs are placed on fabrics: one fabric's name, or Auto.
type Choice string

// The choices, and the fabrics' names.
const (
	// Auto runs each graph whose certificate meets acc32 on a hardware GL
	// device when there is one, and everything else on the CPU reference.
	// It does not use a software rasteriser (llvmpipe), which the CPU
	// reference outruns, unless Options.SoftwareGL says to.
	Auto Choice = "auto"
	// CPU is the exact CPU reference (acc64).
	CPU Choice = "cpu"
	// GPU is the GL compute fabric (acc32), a software rasteriser
	// included; a graph whose certificate does not meet acc32 is refused
	// at load (model_mismatch).
	GPU Choice = "gpu"
	// Hybrid is the hybrid acc64 fabric: acc32 runs of each graph's nodes
	// on the GL fabric, the rest on the CPU reference. Opt-in only.
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

// DefaultMaxGraphs is how many loaded graphs a session keeps when
// Options.MaxGraphs is 0. It is a count, not bytes: a loaded graph's cost
// is its parameters, on the host or the device, which the WHG1 bytes
// already bound (§3), and a decoder switches among a few models at a time
// (a WMB1 bundle is three networks, §15.2), so 64 keeps every model a
// decoder uses loaded while a server that sees graph after graph stays
// bounded.
const DefaultMaxGraphs = 64

// Options are how a session (plan.NewSession, decoder.Open) uses the
// fabrics.
type Options struct {
	// Fabric is where graphs run; "" is Auto.
	Fabric Choice
	// MaxGraphs is how many loaded graphs the session keeps that nobody
	// holds (DefaultMaxGraphs when 0); loading one more closes the least
	// recently used of them. A held graph (a loaded set's) is never
	// evicted.
	MaxGraphs int
	// SoftwareGL lets Auto run acc32 graphs on a GL device whose renderer
	// is a software rasteriser (llvmpipe), which Auto otherwise leaves for
	// the faster CPU reference. It is for testing the GL path.
	SoftwareGL bool
	// Notes is where Auto says which fabric a measured graph runs on
	// ("fabric: gpu (2.3× cpu)", Measured); nil says nothing.
	Notes io.Writer
}

// The conditions a loaded graph reports beside the specification's
// refusals (each a *refusal.Error). Match them with errors.Is.
var (
	// ErrClosed is gpu.ErrClosed, the one closed condition: the session
	// is closed or evicted the graph, or the program or the set was closed
	// (load it again).
	ErrClosed = gpu.ErrClosed
	// ErrNotOnDevice: a decode to a device frame of a graph that does not
	// run on the GL fabric; decode it to the host.
	ErrNotOnDevice = errors.New("fabric: the graph does not run on the GL fabric")
	// ErrLost is gpu.ErrLost: the GL context is gone (a GPU reset, a lost
	// display). Under Auto a session answers a loss itself by moving its
	// graphs to the CPU reference; under GPU or Hybrid the loss is the
	// answer.
	ErrLost = gpu.ErrLost
)
