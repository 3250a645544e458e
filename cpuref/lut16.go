package cpuref

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// lut16 is §5.6: out = T[v + 32768], T the table as an array of its
// 65536 entries (whg1.Parse holds it to that length), so no index is
// bounds-checked. The load check of §5.6 holds the input's certified range
// within [−32767, 32767]; checked (a graph loaded without its certificate)
// refuses a value outside it rather than read past the table. Within it,
// v + 32768 lies in [1, 65535] and equals its uint16.
func lut16(t *[65536]int16, checked bool, in, out *tensor.T) error {
	dst := out.Data[:len(in.Data)]
	if checked {
		for _, v := range in.Data {
			if v < -32767 || v > 32767 {
				return refusal.New(refusal.ModelMismatch, "lut16: input %d is outside [−32767, 32767] (§5.6); the graph is outside its certificate", v)
			}
		}
	}
	for i, v := range in.Data {
		dst[i] = int64(t[uint16(v+32768)])
	}
	return nil
}

// lut16Table is p's table as an array, or a refusal when it is not the
// 65536 entries §5.6 lays out.
func lut16Table(p *whg1.Lut16) (*[65536]int16, error) {
	if len(p.T) != 65536 {
		return nil, refusal.New(refusal.ModelMismatch, "lut16: a table of %d entries, not 65536 (§5.6)", len(p.T))
	}
	return (*[65536]int16)(p.T), nil
}
