package certify

import (
	"math"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// Admissible ranges (§8.4), worked by hand.
func TestAdmissible(t *testing.T) {
	// A conv with taps (3, −2) reading tensor 0: with [−X, X] the terms are
	// [−3X, 3X] and [−2X, 2X], so conv.acc = rq.t = … = [−5X, 5X]:
	// acc32 needs 5X ≤ 2^31 − 1, so X* = ⌊(2^31 − 1)/5⌋ = 429496729;
	// acc64 needs 5X ≤ 2^63 − 1, so X* = 1844674407370955161.
	b := newGraph(1, -1, 1, 4, 4)
	x := b.op(whg1.OpConv, &whg1.Conv{Cout: 1, KH: 1, KW: 2, SH: 1, SW: 1, Groups: 1, RQ: rqFloor(0), W: []int64{3, -2}}, 1, 0)
	// A sigmoid reading the conv's output: exp.negx = [0, X] is class acc,
	// so acc64 allows X = 2^63 − 1; its exp.t2 fails acc32 for every X.
	y := b.op(whg1.OpSigmoid, nil, 1, x)
	g := b.role(t, "g").Graph
	for _, tc := range []struct {
		tensor  uint32
		profile Profile
		want    Range
	}{
		{0, Acc32, Range{Lo: -429496729, Hi: 429496729}},
		{0, Acc64, Range{Lo: -1844674407370955161, Hi: 1844674407370955161}},
		{x, Acc64, Range{Lo: -math.MaxInt64, Hi: math.MaxInt64}},
		{x, Acc32, Range{None: true}},
		// No consumer: X* = 2^63, and the range is [−2^63, 2^63 − 1].
		{y, Acc32, Range{Lo: math.MinInt64, Hi: math.MaxInt64}},
	} {
		got, err := Admissible(g, tc.tensor, tc.profile)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("tensor %d %s: %v, want %v", tc.tensor, tc.profile, got, tc.want)
		}
	}
	if _, err := Admissible(g, 0, "acc16"); err == nil {
		t.Error("profile acc16 accepted")
	}
}

// A lut16 consumer limits X to its load check, 32767 (a reading of §8.4).
func TestAdmissibleLut16(t *testing.T) {
	b := newGraph(1, -5, 5, 4, 4)
	b.op(whg1.OpLut16, &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}, 1, 0)
	got, err := Admissible(b.role(t, "g").Graph, 0, Acc32)
	if err != nil || got != (Range{Lo: -32767, Hi: 32767}) {
		t.Errorf("lut16: %v (%v), want [-32767, 32767]", got, err)
	}
}
