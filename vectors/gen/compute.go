package gen

import (
	"fmt"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/whg1"
)

// Compute recomputes everything a graph vector states from its graph bytes
// and its decodes' inputs and scalars: load, profiles and each expectation
// (§14.1 "Who writes the vectors"). The load is the CPU reference's, against
// acc64, the weaker profile: a graph refused there is refused under both,
// and lists both (§14.1). A graph that loads lists exactly the profiles its verdict
// meets (§8.5). Its decodes then run, as one sequence (§10.3), on the exact
// CPU reference.
func Compute(v *vectors.Vector) error {
	prog, cert, err := cpuref.LoadBytes(v.Graph)
	if err != nil {
		code := conform.CodeOf(err)
		if code == "error" {
			return fmt.Errorf("%s: load: %w", v.ID, err)
		}
		v.Load, v.Profiles, v.Decodes = code, certify.Profiles, nil
		return nil
	}
	v.Load, v.Profiles = vectors.LoadOK, nil
	for _, p := range certify.Profiles {
		if cert.Verdict.Meets(p) {
			v.Profiles = append(v.Profiles, p)
		}
	}
	seq := whg1.NewSequence(prog.Graph(), prog)
	for i := range v.Decodes {
		d := &v.Decodes[i]
		outs, err := seq.Decode(d.Inputs, d.Scalars)
		d.Outputs, d.Refuse = outs, ""
		if err != nil {
			if d.Refuse = conform.CodeOf(err); d.Refuse == "error" {
				return fmt.Errorf("%s: decode %d: %w", v.ID, i, err)
			}
			d.Outputs = nil
		}
	}
	return nil
}
