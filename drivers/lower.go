package drivers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// The lowerings of §13, by identifier.
const (
	IntSynth = "int_synth/1"
	WHM1     = "whm1/1"
	WAM1     = "wam1/1"
	WMB1     = "wmb1/1"
	World    = "world/1"
	JPEGAI   = "jpegai-int/1"
)

// Lowerings lists the identifiers Lower accepts, in §13's order.
var Lowerings = []string{IntSynth, WHM1, WAM1, WMB1, World, JPEGAI}

// The capabilities of whm1/1 in §13.0's roles table: splat's set is g_s
// alone; int_hyper's (and the keyframe of wai.video.int_hyper) is h_s, g_s.
const (
	capSplat      = "wai.splat.int_codec"
	capHyper      = "wai.neural.int_hyper"
	capVideoHyper = "wai.video.int_hyper"
)

// File is one file of a parameter set: its name (only the base name is
// read, to recognise it) and its bytes.
type File struct {
	Name string
	Data []byte
}

// Role is one lowered graph: its role name (§13.0), its WHG1 bytes, and
// the graph parsed from them with its certificate on its own (the set's
// bounds pass of this graph, certify.Certificate.Of), which is what a
// fabric.Loader loads: no graph of a set is parsed or certified twice.
type Role struct {
	Name  string
	Bytes []byte
	Graph *whg1.Graph
	Cert  *certify.Certificate
}

// Set is a lowered parameter set with its certificate (§8.5).
type Set struct {
	Lowering   string
	Capability *string
	// SetSHA256 is the SHA-256 of the file for a one-file set, nil for a
	// set of several files (whose wai.prior.set listing has no text here,
	// docs/READINGS.md D-G).
	SetSHA256   *string
	Roles       []Role // in §13.0's order
	Certificate []byte // canonical JSON (§8.5)
	// Acc32 and Acc64 are the verdict's; Failure32 and Failure64 are the
	// profiles' first failures, "" when they hold.
	Acc32, Acc64         bool
	Failure32, Failure64 string
}

// Graph returns the bytes of the graph with the given role, or nil.
func (s *Set) Graph(role string) []byte {
	if r := s.Role(role); r != nil {
		return r.Bytes
	}
	return nil
}

// Role returns the lowered graph with the given role, or nil.
func (s *Set) Role(role string) *Role {
	for i := range s.Roles {
		if s.Roles[i].Name == role {
			return &s.Roles[i]
		}
	}
	return nil
}

// Load loads the graph of the given role on l, as certified with the set.
func (s *Set) Load(l fabric.Loader, role string) (whg1.Decoder, error) {
	r := s.Role(role)
	return l.LoadCertified(r.Graph, r.Cert)
}

// sourceNames are the base names by which Lower recognises each lowering's
// files, in the order it reads them; a file with another name takes the
// first slot left, in the order given.
func sourceNames(lowering string, capability *string, n int) ([]string, error) {
	switch lowering {
	case IntSynth:
		return []string{"int_synth.json"}, nil
	case WHM1:
		// By the capability where the roles table names it, else by the
		// number of files.
		one := n == 1
		if capability != nil {
			switch *capability {
			case capSplat:
				one = true
			case capHyper, capVideoHyper:
				one = false
			}
		}
		if one {
			return []string{"g_s.whm"}, nil
		}
		return []string{"h_s.whm", "g_s.whm"}, nil
	case WAM1:
		return []string{"model.wam"}, nil
	case WMB1:
		return []string{"model.wmb"}, nil
	case World:
		return []string{"T.whm", "g_s.whm"}, nil
	case JPEGAI:
		return []string{"hs_y.json", "hs_uv.json", "norm.json"}, nil
	}
	return nil, fmt.Errorf("unknown lowering %q (want one of %v)", lowering, Lowerings)
}

// assign puts each file in its slot: by base name first, then by position.
func assign(names []string, files []File) ([][]byte, error) {
	if len(files) != len(names) {
		return nil, fmt.Errorf("%d files given; this lowering reads %d: %v", len(files), len(names), names)
	}
	slot := make([]int, len(names)) // the file in each slot, −1 for none yet
	used := make([]bool, len(files))
	for i, n := range names {
		slot[i] = -1
		for j, f := range files {
			if !used[j] && filepath.Base(f.Name) == n {
				slot[i], used[j] = j, true
				break
			}
		}
	}
	next := 0
	for i := range slot {
		for slot[i] < 0 {
			if !used[next] {
				slot[i], used[next] = next, true
			}
			next++
		}
	}
	out := make([][]byte, len(names))
	for i, j := range slot {
		out[i] = files[j].Data
	}
	return out, nil
}

// Lower lowers a parameter set (§13) and certifies it (§8.5). A load check
// that fails returns its refusal and no set. A set whose certificate does
// not meet acc64 is returned together with that refusal, so that the graphs
// and the certificate can still be kept (§14.3 keeps such sets); every
// §13 lowering requires acc64. A file count that does not fit the lowering
// is a usage error, not a refusal.
func Lower(lowering string, capability *string, files []File) (*Set, error) {
	names, err := sourceNames(lowering, capability, len(files))
	if err != nil {
		return nil, err
	}
	src, err := assign(names, files)
	if err != nil {
		return nil, err
	}
	graphs, roles, err := lowerGraphs(lowering, src)
	if err != nil {
		return nil, err
	}
	s := &Set{Lowering: lowering, Capability: capability}
	if len(src) == 1 {
		d := sha256.Sum256(src[0])
		h := hex.EncodeToString(d[:])
		s.SetSHA256 = &h
	}
	for i, g := range graphs {
		s.Roles = append(s.Roles, Role{Name: roles[i], Bytes: whg1.Encode(g)})
	}
	if err := certifySet(s); err != nil {
		return nil, err
	}
	if !s.Acc64 {
		// §13.1–§13.6: the certificate meets acc64. int_synth reports
		// every refusal as payload_malformed (§4).
		code := refusal.ModelMismatch
		if lowering == IntSynth {
			code = refusal.PayloadMalformed
		}
		return s, refusal.New(code, "%s: the certificate does not meet acc64: %s", lowering, s.Failure64)
	}
	return s, nil
}

// lowerGraphs runs one lowering's load checks and writes its graphs with
// their roles, in §13.0's order.
func lowerGraphs(lowering string, src [][]byte) ([]*whg1.Graph, []string, error) {
	switch lowering {
	case IntSynth:
		g, err := lowerSynth(src[0])
		return []*whg1.Graph{g}, []string{"synth"}, err
	case WHM1:
		roles := []string{"h_s", "g_s"}[2-len(src):]
		var gs []*whg1.Graph
		for i, b := range src {
			net, p, err := parsePlanned(b, false, roles[i])
			if err != nil {
				return nil, nil, err
			}
			gs = append(gs, lowerWHM(net, p, roles[i] == "g_s"))
		}
		return gs, roles, nil
	case WAM1:
		net, p, err := parsePlanned(src[0], true, "g_s")
		if err != nil {
			return nil, nil, err
		}
		return []*whg1.Graph{lowerWAM(net, p)}, []string{"g_s"}, nil
	case WMB1:
		bundle, err := ParseWMB(src[0])
		if err != nil {
			return nil, nil, err
		}
		roles := []string{"h_s", "entropy", "g_s"}
		nets := make([]*Network, len(roles))
		plans := make([]*netPlan, len(roles))
		for i, b := range [][]byte{bundle.HS, bundle.Entropy, bundle.GS} {
			if nets[i], plans[i], err = parsePlanned(b, false, roles[i]); err != nil {
				return nil, nil, err
			}
		}
		// §15.2 (integer-payloads §14): the three networks share one afrac,
		// compared once each has passed §13.2's checks and before any graph
		// is written.
		for i := 1; i < len(nets); i++ {
			if nets[i].Afrac != nets[0].Afrac {
				return nil, nil, refusal.New(refusal.ModelMismatch, "wmb1/1: %s's afrac %d is not h_s's %d", roles[i], nets[i].Afrac, nets[0].Afrac)
			}
		}
		gs := make([]*whg1.Graph, len(roles))
		for i := range nets {
			gs[i] = lowerWHM(nets[i], plans[i], i == 2)
		}
		return gs, roles, nil
	case World:
		w, err := planWorld(src[0], src[1])
		if err != nil {
			return nil, nil, err
		}
		return []*whg1.Graph{w.lowerT(), lowerWHM(w.gs, w.gsPlan, true)}, []string{"T", "g_s"}, nil
	}
	// JPEGAI: norm.json's checks first, then each plane's weights.
	norm, err := ParseNorm(src[2])
	if err != nil {
		return nil, nil, err
	}
	y, err := lowerScale(src[0], ScaleChannelsY, norm.GainY, "hs_y.json")
	if err != nil {
		return nil, nil, err
	}
	uv, err := lowerScale(src[1], ScaleChannelsUV, norm.GainUV, "hs_uv.json")
	if err != nil {
		return nil, nil, err
	}
	return []*whg1.Graph{y, uv}, []string{"hs_y", "hs_uv"}, nil
}

// parsePlanned reads a WHM1 (or WAM1) network and runs §13.2's load checks.
func parsePlanned(b []byte, oneD bool, role string) (*Network, *netPlan, error) {
	net, err := ParseWHM(b, oneD)
	if err != nil {
		return nil, nil, err
	}
	p, err := planNetwork(net, role)
	if err != nil {
		return nil, nil, err
	}
	return net, p, nil
}
