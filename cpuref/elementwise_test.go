package cpuref

import (
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

func TestAdd(t *testing.T) {
	out := like(1, 1, 3)
	noErr(t, "add", add(tn(1, 1, 3, 1, -2, 1<<62), tn(1, 1, 3, 2, -3, 1<<62-1), out))
	expect(t, "add", out, 3, -5, 1<<63-1)
	err := add(tn(1, 1, 1, 1<<62), tn(1, 1, 1, 1<<62), like(1, 1, 1))
	expectRefusal(t, "add past i64", err, refusal.ModelMismatch)
	err = add(tn(1, 1, 1, -1<<63), tn(1, 1, 1, -1), like(1, 1, 1))
	expectRefusal(t, "add below i64", err, refusal.ModelMismatch)
}

func TestChunkAdd(t *testing.T) {
	// [4, 1, 2] → [2, 1, 2]: out[c] = in[c] + in[c + 2]; the channels are
	// (1, 2), (3, 4), (10, 20), (−30, −40).
	out := like(2, 1, 2)
	noErr(t, "chunk_add", chunkAdd(tn(4, 1, 2, 1, 2, 3, 4, 10, 20, -30, -40), out))
	expect(t, "chunk_add", out, 1+10, 2+20, 3-30, 4-40)
}

func TestClampReluAbs(t *testing.T) {
	in := tn(1, 1, 5, -5, -2, 0, 3, 9)
	out := like(1, 1, 5)
	clampOp(&whg1.ClampParams{Lo: -2, Hi: 3}, in, out)
	expect(t, "clamp(−2, 3)", out, -2, -2, 0, 3, 3)
	relu(in, out)
	expect(t, "relu", out, 0, 0, 0, 3, 9)
	noErr(t, "abs", abs(in, out))
	expect(t, "abs", out, 5, 2, 0, 3, 9)
	expectRefusal(t, "abs(−2^63)", abs(tn(1, 1, 1, -1<<63), like(1, 1, 1)), refusal.ModelMismatch)
}

func TestLeaky(t *testing.T) {
	// a = 3, f = 2: ⌊v·3 / 4⌋ for v < 0, flooring toward −∞:
	// −1 → ⌊−3/4⌋ = −1 (trunc: 0); −2 → ⌊−6/4⌋ = −2 (trunc: −1);
	// −4 → −3; −5 → ⌊−15/4⌋ = −4 (trunc: −3); 0 and 5 pass through.
	out := like(1, 1, 6)
	noErr(t, "leaky", leaky(&whg1.Leaky{A: 3, F: 2}, tn(1, 1, 6, -1, -2, -4, -5, 0, 5), out))
	expect(t, "leaky", out, -1, -2, -3, -4, 0, 5)
	// A negative slope: a = −1, f = 1: −3 → ⌊3/2⌋ = 1.
	noErr(t, "leaky", leaky(&whg1.Leaky{A: -1, F: 1}, tn(1, 1, 1, -3), out))
	expect(t, "leaky a<0", out, 1, -2, -3, -4, 0, 5)
	// leaky.p past 64 bits: (−2^62)·2^40 / 2^63 = −2^39.
	one := like(1, 1, 1)
	noErr(t, "leaky", leaky(&whg1.Leaky{A: 1 << 40, F: 63}, tn(1, 1, 1, -1<<62), one))
	expect(t, "leaky wide p", one, -1<<39)
	err := leaky(&whg1.Leaky{A: 1 << 40, F: 0}, tn(1, 1, 1, -1<<62), one)
	expectRefusal(t, "leaky past i64", err, refusal.ModelMismatch)
}
