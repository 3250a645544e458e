//go:build cgo

package gpu

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/whg1"
)

// §5.5's elementwise operators and lut16 (§5.6): one thread per element.
func init() {
	for code, shader := range map[whg1.Opcode]string{whg1.OpRelu: "relu", whg1.OpAbs: "abs"} {
		preps[code] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
			return prepared{run: unary(shader, nil, nil)}, nil
		}
	}
	preps[whg1.OpClamp] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.ClampParams)
		lo, hi := clampBounds(p.Lo, p.Hi)
		return prepared{run: unary("clamp", nil, map[string]int{"LO": lo, "HI": hi})}, nil
	}
	preps[whg1.OpLeaky] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Leaky)
		// acc32: a fits i32 (§7.2) and f ≤ 63 (§5.5).
		if p.A < math.MinInt32 || p.A > math.MaxInt32 || p.F > 63 {
			return prepared{}, fmt.Errorf("leaky a = %d, f = %d outside acc32 (§7.2)", p.A, p.F)
		}
		return prepared{run: unary("leaky", nil, map[string]int{"A": int(p.A), "F": int(p.F)})}, nil
	}
	preps[whg1.OpAdd] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
		return prepared{run: func(d *Device, c *opCall) error {
			return d.elementwise(kernel{shader: "add", in: c.in, out: c.out[0]}, c.outS[0].Elems())
		}}, nil
	}
	preps[whg1.OpChunkAdd] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
		return prepared{run: unary("chunk_add", nil, nil)}, nil
	}
	preps[whg1.OpLut16] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Lut16)
		t := make([]int32, len(p.T))
		for i, v := range p.T {
			t[i] = int32(v)
		}
		return prepared{prm: t, run: unary("lut16", nil, nil)}, nil
	}
}
