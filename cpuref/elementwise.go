package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// addRow is out = a + b elementwise; ok is false when some sum passes i64
// (its tensor class under acc64, §7.1). s = a + b wrapped iff its sign
// differs from both a's and b's, so one OR of (a^s)&(b^s) over the row,
// negative once any sum wrapped, checks all of them without a branch a
// value.
func addRow(a, b, out []int64) bool {
	a, b = a[:len(out)], b[:len(out)]
	var bad int64
	for i := range out {
		x, y := a[i], b[i]
		s := x + y
		bad |= (x ^ s) & (y ^ s)
		out[i] = s
	}
	return bad >= 0
}

// add is §5.5 add: a + b, elementwise over one shape.
func add(a, b, out *tensor.T) error {
	if !addRow(a.Data, b.Data, out.Data) {
		return outside("add")
	}
	return nil
}

// chunkAdd is §5.5 chunk_add: out[c] = in[c] + in[c + C/2].
func chunkAdd(in, out *tensor.T) error {
	half := out.Shape.Elems() // (C/2)·H·W: the second half starts here
	if !addRow(in.Data[:half], in.Data[half:], out.Data) {
		return outside("chunk_add")
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
// gives −2, not −1. narrow says that every product fits i64 (leakyNarrow):
// then it is formed in int64, whose arithmetic shift floors the same way
// (by 64 or more it gives 0 or −1, ⌊p / 2^f⌋ for |p| < 2^63 ≤ 2^f).
func leaky(p *whg1.Leaky, narrow bool, in, out *tensor.T) error {
	if narrow {
		leakyRow(p, in.Data, out.Data)
		return nil
	}
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

// leakyRow is leaky's int64 form, dst = leaky(src) (dst may be src), for
// inputs whose products all fit i64 (leakyNarrow).
func leakyRow(p *whg1.Leaky, src, dst []int64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = leaky64(p, v)
	}
}

// leaky64 is §5.5 leaky of one value with its product in int64: v, or
// ⌊v·a / 2^f⌋ when v < 0, where |v·a| ≤ 2^63 − 1 (leakyNarrow) and an
// arithmetic shift is the floor (§2).
func leaky64(p *whg1.Leaky, v int64) int64 {
	if v < 0 {
		return (v * p.A) >> p.F
	}
	return v
}

// leakyNarrow says whether the certified input interval makes every
// product of leaky int64: only v < 0 is multiplied, so |lo|·|a| ≤ 2^63 − 1
// bounds them all (§8.5; lo the interval's lower end).
func leakyNarrow(p *whg1.Leaky, b bounds) bool {
	lo, ok := b.low(0)
	return ok && productFits(absU(min(lo, 0)), absU(p.A))
}

// abs is §5.5 abs (READINGS D-A.1: |v|). |−2^63| passes i64.
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
