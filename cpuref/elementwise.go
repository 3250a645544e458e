package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// addChecked is a + b; ok is false when the sum passes i64 (its tensor class
// under acc64, §7.1).
func addChecked(a, b int64) (int64, bool) {
	s := a + b
	return s, (a^s)&(b^s) >= 0
}

// add is §5.5 add: a + b, elementwise over one shape.
func add(a, b, out *tensor.T) error {
	for i := range out.Data {
		s, ok := addChecked(a.Data[i], b.Data[i])
		if !ok {
			return outside("add")
		}
		out.Data[i] = s
	}
	return nil
}

// chunkAdd is §5.5 chunk_add: out[c] = in[c] + in[c + C/2].
func chunkAdd(in, out *tensor.T) error {
	half := out.Shape.Elems() // (C/2)·H·W: the second half starts here
	for i := range out.Data {
		s, ok := addChecked(in.Data[i], in.Data[i+half])
		if !ok {
			return outside("chunk_add")
		}
		out.Data[i] = s
	}
	return nil
}

// clampOp is §5.5 clamp: clamp(v, lo, hi).
func clampOp(p *whg1.ClampParams, in, out *tensor.T) {
	for i, v := range in.Data {
		out.Data[i] = min(max(v, p.Lo), p.Hi)
	}
}

// relu is §5.5 relu: max(v, 0).
func relu(in, out *tensor.T) {
	for i, v := range in.Data {
		out.Data[i] = max(v, 0)
	}
}

// leaky is §5.5 leaky: v if v ≥ 0, else ⌊v·a / 2^f⌋. leaky.p = v·a is formed
// exactly in 128 bits and the arithmetic shift floors toward −∞, so −3·1/2
// gives −2, not −1.
func leaky(p *whg1.Leaky, in, out *tensor.T) error {
	for i, v := range in.Data {
		if v >= 0 {
			out.Data[i] = v
			continue
		}
		y := mul64(v, p.A).shr(uint(p.F))
		if !y.fitsI64() {
			return outside("leaky")
		}
		out.Data[i] = int64(y.lo)
	}
	return nil
}

// abs is §5.5 abs (DECISIONS A.1: |v|). |−2^63| passes i64.
func abs(in, out *tensor.T) error {
	for i, v := range in.Data {
		if v == -1<<63 {
			return outside("abs")
		}
		if v < 0 {
			v = -v
		}
		out.Data[i] = v
	}
	return nil
}
