package cpuref

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// lut16 is §5.6: out = T[v + 32768]. The load check of §5.6 holds the
// input's certified range within [−32767, 32767]; a value outside it can
// only come from a graph loaded without a certificate, and is refused rather
// than read past the table.
func lut16(p *whg1.Lut16, in, out *tensor.T) error {
	for i, v := range in.Data {
		if v < -32767 || v > 32767 {
			return refusal.New(refusal.ModelMismatch, "lut16: input %d is outside [−32767, 32767] (§5.6); the graph is outside its certificate", v)
		}
		out.Data[i] = int64(p.T[v+32768])
	}
	return nil
}
