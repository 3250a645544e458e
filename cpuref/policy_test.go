package cpuref

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// TestInRange: the range pass at the ends of i64 and one past the ends of
// the range, at each of the four chains and in the tail.
func TestInRange(t *testing.T) {
	const lo64, hi64 = -1 << 63, 1<<63 - 1
	cases := []struct {
		lo, hi int64
		v      int64
		want   bool
	}{
		{lo64, hi64, lo64, true}, {lo64, hi64, hi64, true},
		{-5, 7, -5, true}, {-5, 7, 7, true}, {-5, 7, -6, false}, {-5, 7, 8, false},
		{-5, 7, lo64, false}, {-5, 7, hi64, false},
		{lo64, 0, hi64, false}, {0, hi64, lo64, false}, {lo64, lo64, lo64, true}, {lo64, lo64, lo64 + 1, false},
		{hi64, hi64, hi64, true}, {hi64, hi64, hi64 - 1, false},
	}
	for _, c := range cases {
		for at := range 7 { // 6 values in range, one of them replaced by v: chains 0..3 and the tail
			data := make([]int64, 7)
			for i := range data {
				data[i] = c.lo
			}
			data[at] = c.v
			if got := inRange(data, c.lo, c.hi); got != c.want {
				t.Errorf("inRange(%d at %d, [%d, %d]) = %v, want %v", c.v, at, c.lo, c.hi, got, c.want)
			}
		}
	}
	if !inRange(nil, 3, 4) {
		t.Errorf("inRange of no values is false")
	}
	// Against the plain comparison on random ranges and values near them.
	r := rand.New(rand.NewPCG(43, 44))
	for range 100_000 {
		lo := between(r, lo64, hi64)
		hi := between(r, lo, hi64)
		data := make([]int64, 1+r.IntN(9))
		want := true
		for i := range data {
			switch r.IntN(5) {
			case 0:
				data[i] = lo - 1 + int64(r.IntN(3)) // may wrap at lo = −2^63: then it is hi64, compared as such
			case 1:
				data[i] = hi - 1 + int64(r.IntN(3))
			default:
				data[i] = between(r, lo64, hi64)
			}
			want = want && data[i] >= lo && data[i] <= hi
		}
		if got := inRange(data, lo, hi); got != want {
			t.Fatalf("inRange(%v, [%d, %d]) = %v, want %v", data, lo, hi, got, want)
		}
	}
}

// TestApplyPolicy: a check that fails refuses with field_range and names
// the element; a clamp clamps; proven skips the policy.
func TestApplyPolicy(t *testing.T) {
	name := func() string { return "t" }
	data := []int64{1, 12, -3}
	expectRefusal(t, "check", applyPolicy(rec(1, whg1.Check, -5, 10), data, false, name), refusal.FieldRange)
	noErr(t, "proven check", applyPolicy(rec(1, whg1.Check, -5, 10), data, true, name))
	noErr(t, "clamp", applyPolicy(rec(1, whg1.Clamp, -2, 10), data, false, name))
	if data[0] != 1 || data[1] != 10 || data[2] != -2 {
		t.Errorf("clamp [−2, 10] of (1, 12, −3) = %v, want (1, 10, −2)", data)
	}
}

// TestProvenPolicies: a policy is skipped only where the certificate puts
// the producer's result inside it. t0 check [−10, 10]; t1 = t0·1 check
// [−20, 20] (result [−10, 10]: proven); t2 = t1·3 check [−20, 20] (result
// [−30, 30]: not); t3 = t1·2 clamp [−20, 20] (result [−20, 20]: proven).
func TestProvenPolicies(t *testing.T) {
	g := chain(1, -10, 10, []whg1.Op{shiftRescale(1, 0), shiftRescale(3, 0)},
		[]whg1.Tensor{rec(1, whg1.Check, -20, 20), rec(1, whg1.Check, -20, 20)})
	g.Tensors = append(g.Tensors, rec(1, whg1.Clamp, -20, 20))
	op := shiftRescale(2, 0)
	op.In, op.Out = []uint32{1}, []uint32{3}
	g.Ops = append(g.Ops, op)
	g.Outputs = append(g.Outputs, 3)
	g, cert, err := certify.Load(whg1.Encode(g), certify.Acc64)
	noErr(t, "certify", err)
	got := provenPolicies(g, &cert.Graphs[0])
	if want := []bool{false, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("proven = %v, want %v", got, want)
	}
	if got := provenPolicies(g, nil); slices.Contains(got, true) {
		t.Errorf("proven without bounds = %v", got)
	}
}
