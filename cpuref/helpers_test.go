package cpuref

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// tn is a [c, h, w] tensor holding data.
func tn(c, h, w int, data ...int64) *tensor.T {
	if len(data) != c*h*w {
		panic("tn: data does not match the shape")
	}
	return &tensor.T{Shape: tensor.Shape{C: c, H: h, W: w}, Data: data}
}

// like is a zero tensor of shape [c, h, w], for an output.
func like(c, h, w int) *tensor.T { return tensor.New(tensor.Shape{C: c, H: h, W: w}) }

func expect(t *testing.T, what string, got *tensor.T, want ...int64) {
	t.Helper()
	if !slices.Equal(got.Data, want) {
		t.Errorf("%s = %v, want %v", what, got.Data, want)
	}
}

// expectRefusal checks that err is a refusal with the given code.
func expectRefusal(t *testing.T, what string, err error, code refusal.Code) {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s: err = %v, want a %s refusal", what, err, code)
	}
}

func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// onEachMac runs f with the SIMD conv paths on, once on Mac16 (eight
// false) and once on Mac8 (eight true), each as its own subtest, and
// restores the switches after.
func onEachMac(t *testing.T, f func(t *testing.T, eight bool)) {
	saved, saved8 := simd, simd8
	defer func() { simd, simd8 = saved, saved8 }()
	simd = true
	for _, eight := range []bool{false, true} {
		simd8 = eight
		t.Run(map[bool]string{false: "mac16", true: "mac8"}[eight], func(t *testing.T) { f(t, eight) })
	}
}

// atEnds draws a value of [lo, hi]: lo or hi a third of the time (a bound's
// ends are where a kernel's width runs out), else uniformly.
func atEnds(r *rand.Rand, lo, hi int64) int64 {
	switch r.IntN(6) {
	case 0:
		return lo
	case 1:
		return hi
	}
	return lo + r.Int64N(hi-lo+1)
}
