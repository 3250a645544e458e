package cpuref

import (
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

func contraction(groups uint32, s uint8, round whg1.Round) *whg1.Contraction {
	return &whg1.Contraction{Groups: groups, RQ: whg1.RQ{Round: round, SKind: 1, Shift: []uint8{s}}}
}

func TestGram(t *testing.T) {
	// A = ch0 (1, 2), ch1 (3, −4); B = ch0 (5, 6), ch1 (−7, 8), [2, 1, 2].
	// Σ A_i·B_j: (0,0) 5 + 12 = 17; (0,1) −7 + 16 = 9; (1,0) 15 − 24 = −9;
	// (1,1) −21 − 32 = −53. s = 1, half_up: 9, 5, −4, −26.
	a, b := tn(2, 1, 2, 1, 2, 3, -4), tn(2, 1, 2, 5, 6, -7, 8)
	out := like(2, 1, 2)
	noErr(t, "gram", gram(contraction(1, 1, whg1.HalfUp), a, b, out))
	expect(t, "gram", out, 9, 5, -4, -26)
	// groups = 2, d = 1: (17, −53) → 9, −26.
	out = like(2, 1, 1)
	noErr(t, "gram", gram(contraction(2, 1, whg1.HalfUp), a, b, out))
	expect(t, "gram groups 2", out, 9, -26)
	// A sum past i64 before the shift: 2^62·2^62 = 2^124, s = 64 → 2^60.
	out = like(1, 1, 1)
	noErr(t, "gram", gram(contraction(1, 64, whg1.Floor), tn(1, 1, 1, 1<<62), tn(1, 1, 1, 1<<62), out))
	expect(t, "gram wide", out, 1<<60)
	err := gram(contraction(1, 0, whg1.Floor), tn(1, 1, 1, 1<<62), tn(1, 1, 1, 1<<62), out)
	expectRefusal(t, "gram past i64", err, refusal.ModelMismatch)
}

func TestApply(t *testing.T) {
	// A [2, 1, 2] = (1, 2), (3, −4); V [2, 1, 2] = (5, 6), (−7, 8).
	// out[i][x] = Σ_j A[i][j]·V[j][x]: i=0: 5 − 14 = −9, 6 + 16 = 22;
	// i=1: 15 + 28 = 43, 18 − 32 = −14. s = 1, half_even:
	// −4.5 → q = −5 odd → −4; 11; 21.5 → q = 21 odd → 22; −7.
	out := like(2, 1, 2)
	noErr(t, "apply", apply(contraction(1, 1, whg1.HalfEven), tn(2, 1, 2, 1, 2, 3, -4), tn(2, 1, 2, 5, 6, -7, 8), out))
	expect(t, "apply", out, -4, 11, 22, -7)
	// groups = 2, d = 1: out[i][x] = A[i][0]·V[i][x]: (5, 6), (−21, 24) → s = 1:
	// 2.5 → 2, 3, −10.5 → q = −11 odd → −10, 12.
	noErr(t, "apply", apply(contraction(2, 1, whg1.HalfEven), tn(2, 1, 1, 1, 3), tn(2, 1, 2, 5, 6, -7, 8), out))
	expect(t, "apply groups 2", out, 2, 3, -10, 12)
}
