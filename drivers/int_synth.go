package drivers

import (
	"math/big"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// synthLayer is one layer of int_synth.json (§13.1).
type synthLayer struct {
	inCh, outCh, k, stride, pad, outPad *big.Int
	weight, bias                        any // the raw arrays, read once lengths are known
	shift                               *big.Int
	relu                                bool
	w, b                                []int64
}

// malformed is int_synth's one refusal code (§4, integer-payloads §8).
func malformed(format string, args ...any) error {
	return refusal.New(refusal.PayloadMalformed, "int_synth: "+format, args...)
}

// parseSynth reads int_synth.json's layers list (§13.1). A member that is
// not of its type is malformed; the §13.1 load checks follow in checkSynth.
func parseSynth(b []byte) ([]synthLayer, error) {
	m, err := jsonObject(b)
	if err != nil {
		return nil, malformed("%v", err)
	}
	raw, ok := m["layers"].([]any)
	if !ok {
		return nil, malformed("layers is not a list")
	}
	layers := make([]synthLayer, len(raw))
	for i, r := range raw {
		lm, ok := r.(map[string]any)
		if !ok {
			return nil, malformed("layer %d is not an object", i)
		}
		l := &layers[i]
		for _, f := range []struct {
			name     string
			dst      **big.Int
			optional bool
		}{
			{"in_ch", &l.inCh, false}, {"out_ch", &l.outCh, false}, {"k", &l.k, false},
			{"stride", &l.stride, false}, {"pad", &l.pad, false},
			{"out_pad", &l.outPad, true}, {"shift", &l.shift, true},
		} {
			v, present := lm[f.name]
			if !present && f.optional {
				*f.dst = new(big.Int) // 0 when absent
				continue
			}
			n, err := jsonInt(v)
			if err != nil || n.Sign() < 0 {
				return nil, malformed("layer %d: %s is not a non-negative integer", i, f.name)
			}
			*f.dst = n
		}
		if v, present := lm["relu"]; present {
			if l.relu, ok = v.(bool); !ok {
				return nil, malformed("layer %d: relu is not a boolean", i)
			}
		}
		l.weight, l.bias = lm["weight"], lm["bias"]
	}
	return layers, nil
}

// checkSynth runs §13.1's load checks in its order, up to the caps.
func checkSynth(layers []synthLayer) error {
	// There is at least one layer.
	if len(layers) == 0 {
		return malformed("no layers")
	}
	// The layers chain: the first in_ch is C (the latents' channels, which
	// the payload must then match), each later in_ch the previous out_ch.
	for i := 1; i < len(layers); i++ {
		if layers[i].inCh.Cmp(layers[i-1].outCh) != 0 {
			return malformed("layer %d: in_ch %v is not layer %d's out_ch %v", i, layers[i].inCh, i-1, layers[i-1].outCh)
		}
	}
	// The parameter lengths are exact; weight and bias are 32-bit integers.
	for i := range layers {
		l := &layers[i]
		var err error
		if !l.inCh.IsUint64() || !l.outCh.IsUint64() || !l.k.IsUint64() {
			return malformed("layer %d: weight lengths cannot match", i)
		}
		k := l.k.Uint64()
		if l.w, err = jsonInts(l.weight, []uint64{l.inCh.Uint64(), l.outCh.Uint64(), k, k}, -1<<31, 1<<31-1); err != nil {
			return malformed("layer %d: weight: %v", i, err)
		}
		if l.b, err = jsonInts(l.bias, []uint64{l.outCh.Uint64()}, -1<<31, 1<<31-1); err != nil {
			return malformed("layer %d: bias: %v", i, err)
		}
	}
	// in_ch, out_ch, k, stride, pad and out_pad are below 2^32 (§10.4).
	for i := range layers {
		l := &layers[i]
		for _, f := range []*big.Int{l.inCh, l.outCh, l.k, l.stride, l.pad, l.outPad} {
			if f.BitLen() > 32 {
				return malformed("layer %d: a field %v is not below 2^32", i, f)
			}
		}
	}
	// out_ch ≥ 1, k ≥ 1, stride ≥ 1 and shift ≤ 127.
	for i := range layers {
		l := &layers[i]
		if l.outCh.Sign() == 0 || l.k.Sign() == 0 || l.stride.Sign() == 0 || l.shift.Cmp(big.NewInt(127)) > 0 {
			return malformed("layer %d: out_ch %v, k %v, stride %v must be at least 1 and shift %v at most 127",
				i, l.outCh, l.k, l.stride, l.shift)
		}
	}
	// The caps (§3): every channel count is a tensor of at least that many
	// elements. The sizes that depend on the latents are planned at decode.
	for i := range layers {
		if l := &layers[i]; l.inCh.Sign() == 0 || l.inCh.Uint64() > maxElems || l.outCh.Uint64() > maxElems {
			return malformed("layer %d: in_ch %v or out_ch %v is outside 1..=2^26", i, l.inCh, l.outCh)
		}
	}
	return nil
}

// lowerSynth is int_synth/1 (§13.1): the latents under check [−128, 127],
// each layer's conv_transpose (w_bytes 4, an RQ with floor, a pre bias of
// b_bytes 4, no multiplier and one shift), its relu if set, then clamp(0, 255).
func lowerSynth(b []byte) (*whg1.Graph, error) {
	layers, err := parseSynth(b)
	if err != nil {
		return nil, err
	}
	if err := checkSynth(layers); err != nil {
		return nil, err
	}
	g := newBuilder()
	x := g.input(uint32(layers[0].inCh.Uint64()), whg1.Check, -128, 127, 0, 0)
	for i := range layers {
		l := &layers[i]
		u := func(n *big.Int) uint32 { return uint32(n.Uint64()) }
		x = g.op(whg1.OpConvTranspose, &whg1.ConvT{
			Cout: u(l.outCh), KH: u(l.k), KW: u(l.k), SH: u(l.stride), SW: u(l.stride),
			PH: u(l.pad), PW: u(l.pad), OPH: u(l.outPad), OPW: u(l.outPad), WBytes: 4,
			RQ: whg1.RQ{Round: whg1.Floor, Bias: whg1.PreBias, BBytes: 4, BiasV: l.b,
				SKind: 1, Shift: []uint8{uint8(l.shift.Uint64())}},
			W: l.w,
		}, u(l.outCh), x)
		if l.relu {
			x = g.op(whg1.OpRelu, nil, g.channels(x), x)
		}
	}
	return g.finish(g.clamp(x, 0, 255)), nil
}
