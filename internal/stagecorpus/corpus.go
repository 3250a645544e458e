// Package stagecorpus generates the §14.1 stage vectors of vectors/stage
// (integer-operators §5E, E1–E13): fixed-seed streams and operands, each
// case with the outcome it was written to reach, evaluated by package stage.
// Only the corpus tooling (package vectors, `waiops vectors gen|check`)
// imports it; it lives outside stage so that a decoder does not link it.
package stagecorpus

import (
	"math/rand/v2"

	"github.com/waiops/waiops/stage"
)

// The i32 and i16 ends (§5E widths) the generated operands aim at.
const (
	minI32 = -1 << 31
	maxI32 = 1<<31 - 1
	minI16 = -1 << 15
	maxI16 = 1<<15 - 1
)

// corpusCase is one stage vector before evaluation, with the outcome its
// generator meant it to have: want is "" for outputs or the refusal code,
// and wantAt its index. The corpus test checks every intent, so a vector
// cannot silently stop covering what its id claims.
type corpusCase struct {
	op, id    string
	modes, in map[string]any
	want      string
	wantAt    int64
}

// vector is the complete §14.1 vector object, in cjson-decoded form.
func (c corpusCase) vector() map[string]any {
	modes := decoded(c.modes).(map[string]any)
	in := decoded(c.in).(map[string]any)
	return map[string]any{
		"expect": decoded(stage.ExpectOf(c.op, modes, in)),
		"id":     c.id,
		"in":     in,
		"modes":  modes,
		"op":     c.op,
	}
}

// outcome evaluates a case as the corpus will: "" or the refusal code, and
// its index.
func (c corpusCase) outcome() (string, int64) {
	e := stage.ExpectOf(c.op, decoded(c.modes).(map[string]any), decoded(c.in).(map[string]any))
	if code, ok := e["refuse"].(string); ok {
		return code, e["at"].(int64)
	}
	return "", 0
}

// corpusCases lists every stage vector, file by file, in file order.
func corpusCases() []corpusCase {
	var cs []corpusCase
	cs = append(cs, ransCases()...)
	cs = append(cs, dequantizeCases()...)
	cs = append(cs, bucketCases()...)
	cs = append(cs, codedCases()...)
	cs = append(cs, scaleIndexCases()...)
	cs = append(cs, blockStatCases()...)
	cs = append(cs, bandLookupCases()...)
	cs = append(cs, mansCases()...)
	cs = append(cs, residualCases()...)
	cs = append(cs, mcCases()...)
	cs = append(cs, up2Cases()...)
	cs = append(cs, rateCases()...)
	cs = append(cs, orderCases()...)
	return cs
}

// newRand is the corpus's seeded generator: one stream per name, so adding
// a vector to one operator does not move another's.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5741494f5053)) }

// tensorIn is a §14.1 tensor operand.
func tensorIn(c, h, w int, data []int64) map[string]any {
	return map[string]any{"data": data, "shape": []int{c, h, w}}
}
