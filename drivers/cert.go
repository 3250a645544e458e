package drivers

import (
	"errors"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// certifySet parses each lowered graph (§10.5 steps 1–7) and certifies the
// set (§8.5): capability, lowering, the roles in §13.0's order, and the
// set's digest. Each role keeps its parse and its own certificate, for
// loading.
func certifySet(s *Set) error {
	roles := make([]certify.Role, len(s.Roles))
	for i, r := range s.Roles {
		g, err := whg1.Parse(r.Bytes)
		if err != nil {
			return s.recode(err)
		}
		roles[i] = certify.Role{Name: r.Name, Bytes: r.Bytes, Graph: g}
	}
	c, err := certify.Certify(s.Capability, s.Lowering, s.SetSHA256, roles)
	if err != nil {
		return s.recode(err)
	}
	for i := range s.Roles {
		s.Roles[i].Graph, s.Roles[i].Cert = roles[i].Graph, c.Of(i)
	}
	s.Certificate = c.Bytes()
	s.Acc32, s.Acc64 = c.Verdict.Acc32, c.Verdict.Acc64
	if f := c.Verdict.Acc32Failure; f != nil {
		s.Failure32 = f.String()
	}
	if f := c.Verdict.Acc64Failure; f != nil {
		s.Failure64 = f.String()
	}
	return nil
}

// recode gives a refusal int_synth's one code, payload_malformed (§4,
// §13.1); every other lowering keeps the code it was refused with.
func (s *Set) recode(err error) error {
	var r *refusal.Error
	if s.Lowering == IntSynth && errors.As(err, &r) {
		return refusal.New(refusal.PayloadMalformed, "int_synth: %s", r.Msg)
	}
	return err
}
