package stage

import (
	"math/rand/v2"
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
		"expect": decoded(ExpectOf(c.op, modes, in)),
		"id":     c.id,
		"in":     in,
		"modes":  modes,
		"op":     c.op,
	}
}

// outcome evaluates a case as the corpus will: "" or the refusal code, and
// its index.
func (c corpusCase) outcome() (string, int64) {
	e := ExpectOf(c.op, decoded(c.modes).(map[string]any), decoded(c.in).(map[string]any))
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
