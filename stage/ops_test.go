package stage

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// bigFloorDiv is ⌊a / b⌋ for b > 0, an independent reference.
func bigFloorDiv(a, b *big.Int) *big.Int {
	q, _ := new(big.Int).DivMod(a, b, new(big.Int)) // Euclidean: floor for b > 0
	return q
}

func TestDequantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	limit := new(big.Int).Lsh(big.NewInt(1), 63)
	for range 20000 {
		sym := int64(rng.Uint64()) >> rng.IntN(64)
		base := int64(rng.Uint64()) >> rng.IntN(64)
		f := rng.Int64N(63)
		want := new(big.Int).Lsh(big.NewInt(sym), uint(f))
		want.Add(want, big.NewInt(base))
		fits := want.Cmp(limit) < 0 && want.Cmp(new(big.Int).Neg(limit)) >= 0
		got, err := Dequantize(sym, f, base)
		if fits && (err != nil || got != want.Int64()) || !fits && err == nil {
			t.Fatalf("%d·2^%d + %d: got %d, %v; want %v", sym, f, base, got, err, want)
		}
	}
	for _, f := range []int64{-1, 63} {
		_, err := Dequantize(0, f, 0)
		wantRefusal(t, "f out of 0..62", err, refusal.FieldRange, 0)
	}
}

// TestRHalfUp checks §2's R_half_up against ⌊(v + 2^(s−1)) / 2^s⌋ in
// math/big, with hand cases: ties go to +∞ whatever the sign.
func TestRHalfUp(t *testing.T) {
	for _, c := range [][3]int64{{3, 1, 2}, {-3, 1, -1}, {-5, 2, -1}, {-6, 2, -1}, {-7, 2, -2}, {5, 0, 5}, {math.MaxInt64, 1, 1 << 62}, {math.MinInt64, 63, -1}, {math.MinInt64, 64, 0}} {
		if got := rHalfUp(c[0], uint(c[1])); got != c[2] {
			t.Errorf("R_half_up(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		v := int64(rng.Uint64()) >> rng.IntN(64)
		s := uint(rng.IntN(128))
		want := big.NewInt(v)
		if s > 0 {
			two := new(big.Int).Lsh(big.NewInt(1), s)
			want = bigFloorDiv(want.Add(want, new(big.Int).Rsh(two, 1)), two)
		}
		if got := rHalfUp(v, s); got != want.Int64() {
			t.Fatalf("R_half_up(%d, %d) = %d, want %v", v, s, got, want)
		}
	}
}

func TestBucket(t *testing.T) {
	e := []int64{10, 20, 30, 40}
	for _, c := range []struct {
		rule  string
		sigma int64
		edges []int64
		want  int64
	}{
		// ceil: 3 − #{i < 3 : max(σ, 10) ≤ e_i}.
		{BucketCeil, 20, e, 1}, // 20 ≤ 20, 30: 3 − 2
		{BucketCeil, 21, e, 2}, // 21 ≤ 30
		{BucketCeil, 5, e, 0},  // σ′ = 10 ≤ all three
		{BucketCeil, 40, e, 3}, // e_3 is never compared
		{BucketCeil, 99, []int64{7}, 0},
		// floor: #{e_i ≤ σ}.
		{BucketFloor, 20, e[:3], 2},
		{BucketFloor, 19, e[:3], 1},
		{BucketFloor, 9, e[:3], 0},
		{BucketFloor, 30, e[:3], 3},
	} {
		got, err := Bucket(c.sigma, c.edges, c.rule)
		if err != nil || got != c.want {
			t.Errorf("%s(%d, %v) = %d, %v; want %d", c.rule, c.sigma, c.edges, got, err, c.want)
		}
	}
	_, err := Bucket(1, []int64{2, 1}, BucketFloor)
	wantRefusal(t, "floor decreasing", err, refusal.ModelMismatch, -1)
	_, err = Bucket(1, nil, BucketCeil)
	wantRefusal(t, "ceil no edges", err, refusal.ModelMismatch, -1)
}

func TestScaleIndexAndBandLookup(t *testing.T) {
	for _, c := range [][4]int64{{3, 1, 10, 2}, {-3, 1, 10, 0}, {2000, 7, 32, 16}, {100, 3, 1, 0}} {
		got, err := ScaleIndex(c[0], c[1], c[2])
		if err != nil || got != c[3] {
			t.Errorf("scale_index(%d, %d, %d) = %d, %v; want %d", c[0], c[1], c[2], got, err, c[3])
		}
	}
	_, err := ScaleIndex(1, 128, 2)
	wantRefusal(t, "s 128", err, refusal.ModelMismatch, -1)
	// §13.6.1's table: 1003 is at the first edge, so band 1.
	tab := [][]int64{{-31, 20, 122, 181}, {-80, -31, 71, 130}}
	for _, c := range [][3]int64{{1002, 0, -31}, {1003, 0, 20}, {1937, 1, 130}, {1936, 1, 71}} {
		got, err := BandLookup(c[0], []int64{1003, 1352, 1937}, tab, c[1])
		if err != nil || got != c[2] {
			t.Errorf("band_lookup(%d, row %d) = %d, %v; want %d", c[0], c[1], got, err, c[2])
		}
	}
	if !Coded(383, 382) || Coded(382, 382) {
		t.Error("coded(v, thr) is v > thr")
	}
}

// TestBlockStat: x = 1..9 in [1, 3, 3], b = 2, s = 1: blocks (0,0) sum 12
// → ⌊13/2⌋ = 6; (0,2) partial 3 + 6 = 9 → 5; (2,0) partial 7 + 8 = 15 → 8;
// (2,2) the lone 9 → 5.
func TestBlockStat(t *testing.T) {
	x := &tensor.T{Shape: tensor.Shape{C: 1, H: 3, W: 3}, Data: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}}
	out, err := BlockStat(x, 2, 1, -100, 100)
	if err != nil || !slices.Equal(out.Data, []int64{6, 6, 5, 6, 6, 5, 8, 8, 5}) {
		t.Errorf("got %v, %v", out, err)
	}
	out, err = BlockStat(x, 2, 1, 5, 7)
	if err != nil || !slices.Equal(out.Data, []int64{6, 6, 5, 6, 6, 5, 7, 7, 5}) {
		t.Errorf("clamped: got %v, %v", out, err)
	}
}

// TestResidualStep: 64-bit form by hand, and the 32-bit form equal to it
// wherever E9's width conditions hold.
func TestResidualStep(t *testing.T) {
	// [0, 255], q = 7: R = ⌊255/7⌋ + 1 = 37.
	for _, c := range [][2]int64{{37, 255}, {-14, 2}, {-37, 0}, {10, 170}} {
		got, err := ResidualStep(100, c[0], 7, 0, 255)
		if err != nil || got != c[1] {
			t.Errorf("residual_step(100, %d, 7) = %d, %v; want %d", c[0], got, err, c[1])
		}
	}
	// E9's example: lo = 2^31 − 65536, hi = 2^31 − 1, q = 65535, pred = hi,
	// r = 2 forms hi + 2·65535: the 64-bit form gives hi; the 32-bit form
	// declines (its width condition fails).
	hi := int64(maxI32)
	if v, err := ResidualStep(hi, 2, 65535, hi-65535, hi); err != nil || v != hi {
		t.Errorf("i32 top: %d, %v", v, err)
	}
	if _, ok := residualStep32(maxI32, 2, 65535, maxI32-65535, maxI32); ok {
		t.Error("the 32-bit form must decline at the i32 top")
	}
	// i64 ends: pred + r·q passes i64 and clamps.
	if v, _ := ResidualStep(math.MaxInt64, 1, 1, math.MinInt64, math.MaxInt64); v != math.MaxInt64 {
		t.Errorf("i64 top: %d", v)
	}
	if v, _ := ResidualStep(math.MinInt64, -1, 1, math.MinInt64, math.MaxInt64); v != math.MinInt64 {
		t.Errorf("i64 bottom: %d", v)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for range 200000 {
		lo := int32(rng.Int64N(1<<32) + minI32)
		width := int32(1 + rng.IntN(65535))
		if int64(lo)+int64(width) > maxI32 {
			continue
		}
		hi := lo + width
		q := int32(1 + rng.IntN(65535))
		pred := lo + int32(rng.Int64N(int64(width)+1))
		r := int32(rng.Uint32())
		if rng.IntN(2) == 0 {
			r = int32(rng.IntN(2*int(width/q)+5)) - int32(width/q) - 2 // near ±R
		}
		v32, ok := residualStep32(pred, r, q, lo, hi)
		conds := int64(lo)-131070 >= minI32 && int64(hi)+131070 <= maxI32
		if ok != conds {
			t.Fatalf("32-bit form ok %v where its conditions are %v", ok, conds)
		}
		if !ok {
			continue
		}
		v64, err := ResidualStep(int64(pred), int64(r), int64(q), int64(lo), int64(hi))
		if err != nil || int64(v32) != v64 {
			t.Fatalf("pred %d r %d q %d [%d, %d]: 32-bit %d, 64-bit %d", pred, r, q, lo, hi, v32, v64)
		}
		checked++
	}
	if checked < 10000 {
		t.Errorf("only %d cases met the width conditions", checked)
	}
	_, err := ResidualStep(5, 1<<31, 1, 0, 255)
	wantRefusal(t, "r past i32", err, refusal.ModelMismatch, -1)
}

// TestAvg4 checks ⌊(a + b + c + d + 2) / 4⌋ against math/big, extremes
// included.
func TestAvg4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ends := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, -2, 255}
	for i := range 20000 {
		var v [4]int64
		sum := big.NewInt(2)
		for k := range v {
			if i%2 == 0 {
				v[k] = ends[rng.IntN(len(ends))]
			} else {
				v[k] = int64(rng.Uint64()) >> rng.IntN(64)
			}
			sum.Add(sum, big.NewInt(v[k]))
		}
		want := bigFloorDiv(sum, big.NewInt(4))
		if got := avg4(v[0], v[1], v[2], v[3]); got != want.Int64() {
			t.Fatalf("avg4%v = %d, want %v", v, got, want)
		}
	}
}

// TestPredictors works docs/READINGS.md D-C's predictors by hand.
func TestPredictors(t *testing.T) {
	// mc_predict, channel 0 = [10 20 30; 40 50 60].
	frame := &tensor.T{Shape: tensor.Shape{C: 3, H: 2, W: 3}, Data: make([]int64, 18)}
	copy(frame.Data, []int64{10, 20, 30, 40, 50, 60})
	for _, c := range []struct{ y, x, dy, dx, prec, want int64 }{
		{0, 0, 1, 5, 1, 60},   // x clamped to 2
		{1, 2, -3, -9, 1, 10}, // both clamped to 0
		// dx = −1: ix = −1, rx = 1: x0 = −1 → 0, x1 = 0; dy = 1: y0 = 0,
		// y1 = 1: ⌊(10 + 10 + 40 + 40 + 2)/4⌋ = 25.
		{0, 0, 1, -1, 2, 25},
		// dy = 3: y0 = 1, y1 = 2 → 1; dx = 1: x0 = 1, x1 = 2:
		// ⌊(50 + 60 + 50 + 60 + 2)/4⌋ = 55.
		{0, 1, 3, 1, 2, 55},
	} {
		got, err := MCPredict(frame, c.y, c.x, 0, c.dy, c.dx, c.prec)
		if err != nil || got != c.want {
			t.Errorf("mc_predict(%d, %d, %d, %d, p%d) = %d, %v; want %d", c.y, c.x, c.dy, c.dx, c.prec, got, err, c.want)
		}
	}
	// up2_predict, prev [1 2; 3 5] to 3 × 3: rows (y0, y1) = (0,0), (0,1),
	// (1,1), likewise columns; e.g. (1,1): ⌊(1 + 2 + 3 + 5 + 2)/4⌋ = 3.
	prev := &tensor.T{Shape: tensor.Shape{C: 1, H: 2, W: 2}, Data: []int64{1, 2, 3, 5}}
	out, err := Up2Predict(prev, 3, 3)
	if err != nil || !slices.Equal(out.Data, []int64{1, 2, 2, 2, 3, 4, 3, 4, 5}) {
		t.Errorf("up2_predict: %v, %v", out, err)
	}
	_, err = Up2Predict(prev, 5, 3)
	wantRefusal(t, "up2 h′ ≠ ⌈5/2⌉", err, refusal.GeometryMismatch, -1)
	// rate_predict, prev [0 100 −50], 3 → 2 (num 3, den 2), d0 = 4:
	// n′ = ⌈8/3⌉ = 3. i = 1: t = 2, k = 0, ρ = 2: rdiv(0 + 100·2, 3) =
	// ⌊403/6⌋ = 67; i = 2: k = 1, ρ = 1: rdiv(300 − 150, 3) = ⌊303/6⌋ = 50;
	// i = 3: k = 2, ρ = 0, b = prev[min(3, 2)]: rdiv(−150, 3) = −50.
	rp := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 3}, Data: []int64{0, 100, -50}}
	out, err = RatePredict(rp, 3, 2, 4)
	if err != nil || !slices.Equal(out.Data, []int64{0, 67, 50, -50}) {
		t.Errorf("rate_predict: %v, %v", out, err)
	}
	_, err = RatePredict(rp, 3, 2, 5) // n′ = ⌈10/3⌉ = 4
	wantRefusal(t, "rate n′", err, refusal.GeometryMismatch, -1)
	if rdiv(-7, 2) != -4 || rdiv(7, 2) != 4 || rdiv(5, 0) != 0 || rdiv(-5, 2) != -3 {
		t.Error("rdiv: sgn(n)·⌊(2|n| + d)/(2d)⌋ rounds halves away from zero")
	}
}

func TestCodingOrder(t *testing.T) {
	// [1, 2, 3]: positions 0..5; (row + col) even: 0, 2, 4.
	got, err := CodingOrder(1, 2, 3, OrderCheckerboard, true)
	if err != nil || !slices.Equal(got, []int64{0, 2, 4}) {
		t.Errorf("anchor: %v, %v", got, err)
	}
	got, _ = CodingOrder(2, 1, 2, OrderCheckerboard, false)
	if !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("non-anchor [2, 1, 2]: %v", got)
	}
	got, _ = CodingOrder(1, 2, 2, OrderRaster, false)
	if !slices.Equal(got, []int64{0, 1, 2, 3}) {
		t.Errorf("raster: %v", got)
	}
	_, err = CodingOrder(1<<13, 1<<13, 2, OrderRaster, false)
	wantRefusal(t, "past 2^26", err, refusal.TooLarge, -1)
}

// TestDequantizeWideOperands: E2's operands read from §14.1 text as exact
// integers. f = ±2^64 is outside 0..62 (field_range at 0, not a width
// refusal); sym = 2^63 with base = −1 is 2^63·2^0 − 1 = 2^63 − 1, which
// fits i64; sym = −2^63 − 1 with base = 1 is −2^63; one past either end is
// field_range at 0; a sym that is no integer at all is a malformed operand
// (model_mismatch at −1, D-E).
func TestDequantizeWideOperands(t *testing.T) {
	for _, c := range []struct{ sym, f, base, want string }{
		{"1", "18446744073709551616", "0", `{"at":"0","refuse":"field_range"}`},
		{"1", "-18446744073709551616", "0", `{"at":"0","refuse":"field_range"}`},
		{"9223372036854775808", "0", "-1", `{"value":"9223372036854775807"}`},
		{"-9223372036854775809", "0", "1", `{"value":"-9223372036854775808"}`},
		{"9223372036854775808", "0", "0", `{"at":"0","refuse":"field_range"}`},
		{"0", "0", "-9223372036854775809", `{"at":"0","refuse":"field_range"}`},
		{"1267650600228229401496703205376", "62", "-5846006549323611672814739330865132078623730171904", `{"value":"0"}`},
		{"1.5", "0", "0", `{"at":"-1","refuse":"model_mismatch"}`},
	} {
		in := map[string]any{"sym": c.sym, "f": c.f, "base": c.base}
		got, err := cjson.Marshal(ExpectOf("dequantize", map[string]any{}, in))
		if err != nil || string(got) != c.want {
			t.Errorf("sym %s, f %s, base %s: got %s (%v), want %s", c.sym, c.f, c.base, got, err, c.want)
		}
	}
}

// residualStep32 is E9's 32-bit form (identity): with R = ⌊(hi − lo)/q⌋ + 1,
// clamp(pred + clamp(r, −R, R)·q, lo, hi), every value formed in int32. It
// applies only under E9's width conditions, hi − lo ≤ 65535 with lo − 131070
// and hi + 131070 fitting i32; where they fail (or E9's conditions do) ok is
// false and a fabric forms the step in a wider width (ResidualStep). The test
// proves that a 32-bit fabric may form it so.
func residualStep32(pred, r, q, lo, hi int32) (v int32, ok bool) {
	l, h := int64(lo), int64(hi)
	if checkResidual(int64(pred), int64(r), int64(q), l, h) != nil ||
		h-l > 65535 || !fitsI32(l-131070) || !fitsI32(h+131070) {
		return 0, false
	}
	// Width: R·q ≤ (hi − lo) + q ≤ 131070, so every term below fits i32.
	R := (hi-lo)/q + 1 // hi − lo ≥ 1 and q ≥ 1: truncation is floor here
	rr := min(max(r, -R), R)
	return min(max(pred+rr*q, lo), hi), true
}
