package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// Options are an import's choices.
type Options struct {
	Acts    int             // activation width in bits: 8 or 16
	Weights int             // weight width in bits: 8 or 16
	Profile certify.Profile // the profile the certificate must meet
	Role    string          // the graph's name in the certificate; "g_s" when empty
}

// Defaults are an import's choices where none is made (`waiops import`
// with no --acts, --weights or --profile): i16 activations and weights,
// acc32.
var Defaults = Options{Acts: 16, Weights: 16, Profile: certify.Acc32}

// Result is an imported, certified graph.
type Result struct {
	Graph       []byte // WHG1
	Certificate []byte // the set certificate (§8.5) of the one-graph set
	Cert        *certify.Certificate
	Layers      []LayerInfo
	Outputs     []OutputInfo
	Options     Options
	// Ranges is each value's calibrated range, value 0 the latents.
	Ranges []float64
	net    *network
	g      *whg1.Graph
}

// Import reads an ONNX model, calibrates it on the latents, integerises it
// and certifies the graph against opts.Profile. A model it cannot map, or
// a graph whose certificate misses the profile, is refused (model_mismatch).
func Import(model []byte, latents []Latent, opts Options) (*Result, error) {
	if opts.Acts != 8 && opts.Acts != 16 || opts.Weights != 8 && opts.Weights != 16 {
		return nil, fmt.Errorf("activations and weights are 8 or 16 bits, not %d and %d", opts.Acts, opts.Weights)
	}
	if !opts.Profile.Valid() {
		return nil, fmt.Errorf("profile %q: want acc32 or acc64", opts.Profile)
	}
	if opts.Role == "" {
		opts.Role = "g_s"
	}
	m, err := onnx.Parse(model, onnx.DefaultCaps)
	if err != nil {
		return nil, refusal.New(refusal.ModelMismatch, "%v", err)
	}
	net, err := match(m)
	if err != nil {
		return nil, asRefusal(err)
	}
	if len(latents) == 0 {
		return nil, fmt.Errorf("no calibration latents")
	}
	ranges, err := calibrate(net, latents)
	if err != nil {
		return nil, refusal.New(refusal.ModelMismatch, "%v", err)
	}
	g, layers, outs, err := emit(net, ranges, opts.Acts, opts.Weights, opts.Profile == certify.Acc32)
	if err != nil {
		return nil, err
	}
	b := whg1.Encode(g)
	parsed, err := whg1.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("the emitted graph does not load: %w", err)
	}
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	cert, err := certify.Certify(nil, "whg1", &digest, []certify.Role{{Name: opts.Role, Bytes: b, Graph: parsed}})
	if err != nil {
		return nil, err
	}
	if !cert.Verdict.Meets(opts.Profile) {
		f := cert.Verdict.Acc32Failure
		if opts.Profile == certify.Acc64 {
			f = cert.Verdict.Acc64Failure
		}
		return nil, refusal.New(refusal.ModelMismatch, "the imported graph does not meet %s: %s", opts.Profile, f)
	}
	return &Result{Graph: b, Certificate: cert.Bytes(), Cert: cert, Layers: layers, Outputs: outs,
		Options: opts, Ranges: ranges, net: net, g: parsed}, nil
}

// asRefusal gives a matching error that is not yet a refusal the code
// model_mismatch: the model does not fit what the importer maps.
func asRefusal(err error) error {
	if _, ok := err.(*refusal.Error); ok {
		return err
	}
	return refusal.New(refusal.ModelMismatch, "%v", err)
}

// CertificatePath is where Write puts the certificate beside a graph:
// G.whg1 → G.cert.json.
func CertificatePath(graph string) string {
	return strings.TrimSuffix(graph, filepath.Ext(graph)) + ".cert.json"
}
