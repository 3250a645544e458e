// Package plan routes each graph to a fabric its certificate allows (§7.2,
// §8.6, §11 "In the sink") and says where every decode ran (§12).
//
// A fabric is one exact implementation of wai-ops/1 at one profile: the CPU
// reference (acc64) or the GL compute fabric (acc32). Users hold a Session,
// which loads graphs once and decodes many times; tools that need one fabric
// directly (conformance, benchmarks) use Fabric.
package plan

import (
	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// Fabric is one operator implementation on one device.
type Fabric interface {
	// Name is "cpu", "gpu" or "hybrid".
	Name() string
	// Profile is the profile the fabric implements.
	Profile() certify.Profile
	// Identity names the fabric as a conformance report does: for the CPU
	// the Go version, GOOS/GOARCH and CPU model; for GL the vendor,
	// renderer, version and GLSL version.
	Identity() map[string]string
	// Load runs every load check of §10.5 against Profile, step 8 included,
	// and returns a decoder for the graph (one decode per call; wrap it in
	// whg1.Sequence for state).
	Load(b []byte) (whg1.Decoder, *whg1.Graph, error)
	// LoadCertified is Load of a graph already parsed and certified on its
	// own (certify.Graph): the verdict is checked against Profile, and
	// nothing is parsed or certified again.
	LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error)
}
