package cpuref

import (
	"math/big"
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
	// One wrapped sum among fine ones, last in the row, is still seen.
	a, b := like(1, 1, 9), like(1, 1, 9)
	a.Data[8], b.Data[8] = 1<<63-1, 1
	expectRefusal(t, "add past i64 at the end", add(a, b, like(1, 1, 9)), refusal.ModelMismatch)
	expectRefusal(t, "chunk_add below i64", chunkAdd(tn(2, 1, 2, 0, -1<<63, 5, -1), like(1, 1, 2)), refusal.ModelMismatch)
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
	for _, narrow := range []bool{false, true} {
		out := like(1, 1, 6)
		noErr(t, "leaky", leaky(&whg1.Leaky{A: 3, F: 2}, narrow, tn(1, 1, 6, -1, -2, -4, -5, 0, 5), out))
		expect(t, "leaky", out, -1, -2, -3, -4, 0, 5)
		// A negative slope: a = −1, f = 1: −3 → ⌊3/2⌋ = 1.
		noErr(t, "leaky", leaky(&whg1.Leaky{A: -1, F: 1}, narrow, tn(1, 1, 1, -3), out))
		expect(t, "leaky a<0", out, 1, -2, -3, -4, 0, 5)
		// A shift past 63: ⌊−6 / 2^70⌋ = −1, ⌊0⌋ = 0.
		noErr(t, "leaky", leaky(&whg1.Leaky{A: 2, F: 70}, narrow, tn(1, 1, 2, -3, 0), out))
		expect(t, "leaky f>63", out, -1, 0, -3, -4, 0, 5)
	}
	// int64 products only where the certified lower end allows: |−2^31|·2^31
	// = 2^62 fits, |−2^32|·2^31 = 2^63 does not.
	iv := func(lo int64) bounds { return bounds{{Lo: big.NewInt(lo), Hi: big.NewInt(7)}} }
	if !leakyNarrow(&whg1.Leaky{A: 1 << 31}, iv(-1<<31)) || leakyNarrow(&whg1.Leaky{A: 1 << 31}, iv(-1<<32)) ||
		!leakyNarrow(&whg1.Leaky{A: 1 << 62}, iv(0)) || leakyNarrow(&whg1.Leaky{A: 1}, nil) {
		t.Errorf("leakyNarrow misjudges its bound")
	}
	// leaky.p past 64 bits: (−2^62)·2^40 / 2^63 = −2^39.
	one := like(1, 1, 1)
	noErr(t, "leaky", leaky(&whg1.Leaky{A: 1 << 40, F: 63}, false, tn(1, 1, 1, -1<<62), one))
	expect(t, "leaky wide p", one, -1<<39)
	err := leaky(&whg1.Leaky{A: 1 << 40, F: 0}, false, tn(1, 1, 1, -1<<62), one)
	expectRefusal(t, "leaky past i64", err, refusal.ModelMismatch)
}
