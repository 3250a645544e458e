package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// LoadRole is the role name a graph loaded on its own carries in its
// certificate.
const LoadRole = "graph"

// Load reads one WHG1 graph and loads it against profile (Acc32 or
// Acc64): §10.5 steps 1–7 (whg1.Parse), then step 8, the bounds pass with
// lut16's range check, and the profile against the verdict (§8.6). A graph
// whose verdict does not meet the profile is refused (model_mismatch).
//
// It keeps nothing: a caller that loads the same bytes again keeps the
// result (plan.Session does, by the SHA-256 of the bytes, §8.6).
func Load(b []byte, profile Profile) (*whg1.Graph, *Certificate, error) {
	if !profile.Valid() {
		return nil, nil, fmt.Errorf("certify: unknown profile %q (want acc32 or acc64)", profile)
	}
	g, cert, err := Graph(b)
	if err != nil {
		return nil, nil, err
	}
	if err := cert.Verdict.Admit(profile); err != nil {
		return nil, nil, err
	}
	return g, cert, nil
}

// Graph parses and certifies one WHG1 graph on its own (role LoadRole,
// lowering "whg1", set_sha256 the digest of b): §10.5 steps 1–8, whatever
// the profile. Its verdict says which profiles it meets.
func Graph(b []byte) (*whg1.Graph, *Certificate, error) {
	return GraphSum(b, sha256.Sum256(b))
}

// GraphSum is Graph of bytes whose SHA-256 the caller has computed: b is
// not hashed again.
func GraphSum(b []byte, sum [32]byte) (*whg1.Graph, *Certificate, error) {
	g, err := whg1.Parse(b)
	if err != nil {
		return nil, nil, err
	}
	setSum := hex.EncodeToString(sum[:])
	cert, err := Certify(nil, "whg1", &setSum, []Role{{Name: LoadRole, Bytes: b, Graph: g, Sum: &sum}})
	if err != nil {
		return nil, nil, err
	}
	return g, cert, nil
}

// Admit is §8.6's check of a verdict against the profile a fabric
// implements: a verdict that does not meet it is model_mismatch, naming the
// first failure.
func (v *Verdict) Admit(profile Profile) error {
	if v.Meets(profile) {
		return nil
	}
	f := v.Acc64Failure
	if profile == Acc32 {
		f = v.Acc32Failure
	}
	return refusal.New(refusal.ModelMismatch, "the certificate does not meet %s: first failure %v", profile, f)
}
