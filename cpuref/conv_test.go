package cpuref

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

func TestConvHand(t *testing.T) {
	// Depthwise (groups = cin = cout = 2), 2×2 kernel, stride 2, padding 1,
	// on 3×3 planes X0 = 1..9 and X1 = −(1..9): Ho = ⌊(3 + 2 − 2)/2⌋ + 1 = 2.
	// Output (y, x) reads rows 2y + i − 1 and columns 2x + j − 1.
	// W0 = [[1, 2], [3, 4]]:
	//   (0,0): only (i,j) = (1,1) reads X0[0][0] = 1 → 4
	//   (0,1): row 0, columns 1, 2: 3·2 + 4·3 = 18
	//   (1,0): rows 1, 2, column 0: 2·4 + 4·7 = 36
	//   (1,1): 1·5 + 2·6 + 3·8 + 4·9 = 77
	// W1 = [[−1, 0], [0, 1]]:
	//   (0,0): 1·X1[0][0] = −1; (0,1): 1·X1[0][2] = −3;
	//   (1,0): 1·X1[2][0] = −7; (1,1): −X1[1][1] + X1[2][2] = 5 − 9 = −4
	// Pre bias (1, −1), no multiplier, shift 0.
	p := &whg1.Conv{Cout: 2, KH: 2, KW: 2, SH: 2, SW: 2, PH: 1, PW: 1, Groups: 2,
		RQ: whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{1, -1}},
		W:  []int64{1, 2, 3, 4, -1, 0, 0, 1}}
	x := tn(2, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9)
	out := like(2, 2, 2)
	noErr(t, "conv", newConv(p, 2).run(x, out))
	expect(t, "conv depthwise s2 p1", out, 5, 19, 37, 78, -2, -4, -8, -5)
}

// bigConv is §5.2 written plainly with math/big: the exact acc, then rq of
// §5.1 with bigRound. ok is false when y does not fit i64.
func bigConv(p *whg1.Conv, x *tensor.T, ho, wo int) ([]int64, bool) {
	cin, H, W := x.Shape.C, x.Shape.H, x.Shape.W
	cg, og := cin/int(p.Groups), int(p.Cout/p.Groups)
	kh, kw := int(p.KH), int(p.KW)
	var res []int64
	for o := range int(p.Cout) {
		for y := range ho {
			for xx := range wo {
				acc := new(big.Int)
				for ci := range cg {
					for i := range kh {
						for j := range kw {
							u, v := y*int(p.SH)+i-int(p.PH), xx*int(p.SW)+j-int(p.PW)
							if u < 0 || u >= H || v < 0 || v >= W {
								continue
							}
							w := big.NewInt(p.W[((o*cg+ci)*kh+i)*kw+j])
							acc.Add(acc, w.Mul(w, big.NewInt(x.Data[((o/og*cg+ci)*H+u)*W+v])))
						}
					}
				}
				y, ok := bigRQ(&p.RQ, o, acc)
				if !ok {
					return nil, false
				}
				res = append(res, y)
			}
		}
	}
	return res, true
}

// bigRQ is rq_o(v) of §5.1 in math/big. ok is false when rq.p passes its
// acc64 class (product: i128) or y passes i64.
func bigRQ(r *whg1.RQ, o int, v *big.Int) (int64, bool) {
	t := new(big.Int).Add(v, big.NewInt(r.PreOf(o)))
	p := t.Mul(t, big.NewInt(r.MultOf(o)))
	if !fits128(p) {
		return 0, false
	}
	q := bigRound(p, r.ShiftOf(o), r.Round)
	q.Add(q, big.NewInt(r.PostOf(o)))
	return q.Int64(), q.IsInt64()
}

// randRQ draws an rq over c channels whose values are drawn by val.
func randRQ(r *rand.Rand, c int, s func() uint8, val func() int64) whg1.RQ {
	q := whg1.RQ{Round: whg1.Round(r.IntN(3)), Bias: whg1.BiasPlace(r.IntN(3)), MKind: uint8(r.IntN(3)), SKind: uint8(1 + r.IntN(2))}
	if q.MKind > 0 {
		n := map[uint8]int{1: 1, 2: c}[q.MKind]
		for range n {
			q.Mult = append(q.Mult, val())
		}
	}
	for range map[uint8]int{1: 1, 2: c}[q.SKind] {
		q.Shift = append(q.Shift, s())
	}
	if q.Bias != whg1.NoBias {
		for range c {
			q.BiasV = append(q.BiasV, val())
		}
	}
	return q
}

// convCase is a random conv whose weights and inputs come from wv and xv.
func convCase(r *rand.Rand, wv, xv func() int64, shifts func() uint8, rqv func() int64) (*whg1.Conv, *tensor.T, int, int) {
	g := 1 + r.IntN(3)
	cin, cout := g*(1+r.IntN(3)), g*(1+r.IntN(3))
	// Kernels up to 6 with padding up to 3 on inputs as small as 1: some
	// taps then read only padding (kw − j > W + pw + 1).
	p := &whg1.Conv{Cout: uint32(cout), KH: uint32(1 + r.IntN(6)), KW: uint32(1 + r.IntN(6)),
		SH: uint32(1 + r.IntN(3)), SW: uint32(1 + r.IntN(3)), PH: uint32(r.IntN(4)), PW: uint32(r.IntN(4)), Groups: uint32(g)}
	if r.IntN(3) == 0 {
		p.KW, p.SW = 3, 1 // the fused 3-tap row path
	}
	H := max(1, int(p.KH)-2*int(p.PH)) + r.IntN(6)
	W := max(1, int(p.KW)-2*int(p.PW)) + r.IntN(9)
	p.RQ = randRQ(r, cout, shifts, rqv)
	p.W = make([]int64, cout*(cin/g)*int(p.KH*p.KW))
	for i := range p.W {
		p.W[i] = wv()
	}
	x := tensor.New(tensor.Shape{C: cin, H: H, W: W})
	for i := range x.Data {
		x.Data[i] = xv()
	}
	ho := (H+2*int(p.PH)-int(p.KH))/int(p.SH) + 1
	wo := (W+2*int(p.PW)-int(p.KW))/int(p.SW) + 1
	return p, x, ho, wo
}

// TestConvPathsAgainstBig runs random convolutions on each of the three
// paths and compares every output with the math/big reference.
func TestConvPathsAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	in := func(lo, hi int64) func() int64 { return func() int64 { return lo + r.Int64N(hi-lo+1) } }
	regimes := []struct {
		name       string
		w, x, rqv  func() int64
		shift      func() uint8
		want       convPath
		allowOther bool
	}{
		{"i8", in(-128, 127), in(-128, 127), in(-1000, 1000), func() uint8 { return uint8(r.IntN(12)) }, pathLanes, false},
		{"i32 inputs", in(-3, 3), in(-1<<28, 1<<28), in(-1<<40, 1<<40), func() uint8 { return uint8(r.IntN(40)) }, pathI64, true},
		{"i40", in(-1<<20, 1<<20), in(-1<<30, 1<<30), in(-1<<61, 1<<61), func() uint8 { return uint8(r.IntN(64)) }, pathI64, false},
		// Products up to 2^63·2^56 and at most 3·16 of them: every partial
		// sum stays inside 128 bits, so only y can fail to fit.
		{"i64", func() int64 { return int64(r.Uint64()) }, in(-1<<56, 1<<56), func() int64 { return int64(r.Uint64()) },
			func() uint8 { return uint8(64 + r.IntN(64)) }, pathExact, false},
	}
	for _, rg := range regimes {
		seen := map[convPath]int{}
		compared := 0
		for n := 0; n < 150; n++ {
			p, x, ho, wo := convCase(r, rg.w, rg.x, rg.shift, rg.rqv)
			k := newConv(p, x.Shape.C)
			path := k.choose(maxAbs(x.Data), x.Shape.W)
			seen[path]++
			want := rg.want
			if want == pathLanes && path == pathI64 {
				want = pathI64 // stride > 1, or a kernel far wider than the input
			}
			if path != want && !rg.allowOther {
				t.Fatalf("%s: path %d, want %d", rg.name, path, rg.want)
			}
			out := tensor.New(tensor.Shape{C: int(p.Cout), H: ho, W: wo})
			err := k.run(x, out)
			ref, ok := bigConv(p, x, ho, wo)
			if !ok {
				expectRefusal(t, rg.name+" past i64", err, refusal.ModelMismatch)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v (conv %+v)", rg.name, err, *p)
			}
			expect(t, rg.name, out, ref...)
			compared++
		}
		if compared < 20 {
			t.Errorf("%s: only %d of 150 cases fit i64", rg.name, compared)
		}
		if seen[rg.want] == 0 {
			t.Errorf("%s: path %d never taken", rg.name, rg.want)
		}
	}
}

// TestConvPathBoundaries puts B = Σ|w|·max|x| on each side of the i32 and
// i64 limits with a 1×1 (or 1×2) convolution and checks both the path and
// the value.
func TestConvPathBoundaries(t *testing.T) {
	conv := func(w []int64, shift uint8, pw int) *whg1.Conv {
		return &whg1.Conv{Cout: 1, KH: 1, KW: uint32(len(w)), SH: 1, SW: 1, PW: uint32(pw), Groups: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{shift}}, W: w}
	}
	for _, c := range []struct {
		name  string
		w     []int64
		x     []int64
		shift uint8
		path  convPath
		want  []int64
		pw    int
	}{
		// B = (2^31 − 1)·1: i32, the product −(2^31 − 1) exact.
		{"B = 2^31 − 1", []int64{1<<31 - 1}, []int64{-1}, 0, pathLanes, []int64{-(1<<31 - 1)}, 0},
		// B = (2^31 − 1)·2: i64.
		{"B = 2^32 − 2", []int64{1<<31 - 1}, []int64{-2}, 0, pathI64, []int64{-(1<<32 - 2)}, 0},
		// max|x| = 2^31 (x = −2^31 does not fit the i32 value path's bound).
		{"x = −2^31", []int64{1}, []int64{-1 << 31}, 0, pathI64, []int64{-1 << 31}, 0},
		// Two taps, B = (2^30 + 2^30 − 1)·1 = 2^31 − 1: the sum is 2^31 − 1.
		{"two taps at 2^31 − 1", []int64{1 << 30, 1<<30 - 1}, []int64{1, 1}, 0, pathLanes, []int64{1<<31 - 1}, 0},
		// B = 2^63 − 1 exactly: i64, the sum 2^63 − 1.
		{"B = 2^63 − 1", []int64{1 << 62, 1<<62 - 1}, []int64{1, 1}, 0, pathI64, []int64{1<<63 - 1}, 0},
		// x doubled: B = 2^64 − 2, the exact path; acc = 2^64 − 2, shift 1 → 2^63 − 1.
		{"B = 2^64 − 2", []int64{1 << 62, 1<<62 - 1}, []int64{2, 2}, 1, pathExact, []int64{1<<63 - 1}, 0},
		// A weight past i32 on an all-zero input: B = 0 and every packed
		// word is 0, so the lanes hold.
		{"w = 2^31, x = 0", []int64{1 << 31}, []int64{0}, 0, pathLanes, []int64{0}, 0},
		// B = 2^31 − 1 with both lanes used (Wo = 2) at opposite ends, and
		// with both at the bottom end.
		{"lanes ±(2^31 − 1)", []int64{1<<31 - 1}, []int64{-1, 1}, 0, pathLanes, []int64{-(1<<31 - 1), 1<<31 - 1}, 0},
		{"lanes −(2^31 − 1) twice", []int64{-1<<31 + 1}, []int64{1, 1}, 0, pathLanes, []int64{-1<<31 + 1, -1<<31 + 1}, 0},
		// A kernel much wider than its input (kw = 9, pw = 4, W = 1):
		// packed rows of 9 words would pass 2W, so the i64 path.
		{"wide kernel", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, []int64{1}, 0, pathI64, []int64{5}, 4},
		// Wo = 3, odd: the last lane is unused.
		{"lanes Wo = 3", []int64{1 << 30, 1<<30 - 1}, []int64{1, 1, -1, 1}, 0, pathLanes, []int64{1<<31 - 1, 1, -1}, 0},
	} {
		p := conv(c.w, c.shift, c.pw)
		k := newConv(p, 1)
		x := tn(1, 1, len(c.x), c.x...)
		if got := k.choose(maxAbs(x.Data), x.Shape.W); got != c.path {
			t.Errorf("%s: path %d, want %d", c.name, got, c.path)
		}
		out := like(1, 1, len(c.x)+2*c.pw-len(c.w)+1)
		noErr(t, c.name, k.run(x, out))
		expect(t, c.name, out, c.want...)
	}
}

// TestConvParallel checks a convolution large enough to be split across
// goroutines (8·72·64 MACs a row, 32 rows: over 2^20) against the
// reference, on the lanes path and on the i64 path.
func TestConvParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	p := &whg1.Conv{Cout: 8, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{3}}}
	p.W = make([]int64, 8*8*9)
	x := tensor.New(tensor.Shape{C: 8, H: 32, W: 64})
	for _, scale := range []int64{1, 1 << 20} {
		for i := range p.W {
			p.W[i] = r.Int64N(255) - 127
		}
		for i := range x.Data {
			x.Data[i] = (r.Int64N(255) - 127) * scale
		}
		out := like(8, 32, 64)
		noErr(t, "conv", newConv(p, 8).run(x, out))
		want, _ := bigConv(p, x, 32, 64)
		expect(t, "conv parallel", out, want...)
	}
}

// TestConvChunkedLanes: each input channel's bound fits i32 but the whole
// sum does not, so the lanes run in chunks of input channels (§6).
func TestConvChunkedLanes(t *testing.T) {
	// By hand: cin = 2, 1×1, Wt = (2^31 − 1, −(2^31 − 1)); x ch0 = (1, −1),
	// ch1 = (−1, −1). Each channel's bound is 2^31 − 1, the total 2^32 − 2:
	// two chunks. out = (2^31 − 1 + 2^31 − 1, −(2^31 − 1) + 2^31 − 1) = (2^32 − 2, 0).
	p := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{1<<31 - 1, -(1<<31 - 1)}}
	k := newConv(p, 2)
	x := tn(2, 1, 2, 1, -1, -1, -1)
	if got := k.choose(maxAbs(x.Data), x.Shape.W); got != pathLanes {
		t.Fatalf("path %d, want lanes", got)
	}
	if got := k.chunks(1); !slices.Equal(got[0], []int{1, 2}) {
		t.Errorf("chunks %v, want [1 2]", got[0])
	}
	out := like(1, 1, 2)
	noErr(t, "conv", k.run(x, out))
	expect(t, "conv two chunks", out, 1<<32-2, 0)

	// Random: 8 input channels, 3×3, weights in i8, inputs up to 2^20: one
	// channel's bound is at most 9·128·2^20 < 2^31, eight of them are not.
	r := rand.New(rand.NewPCG(15, 16))
	chunked := 0
	for range 20 {
		p := &whg1.Conv{Cout: 3, KH: 3, KW: 3, SH: uint32(1 + r.IntN(2)), SW: 1, PH: 1, PW: 1, Groups: 1,
			RQ: randRQ(r, 3, func() uint8 { return uint8(r.IntN(30)) }, func() int64 { return r.Int64N(1<<40) - 1<<39 })}
		p.W = make([]int64, 3*8*9)
		for i := range p.W {
			p.W[i] = r.Int64N(256) - 128
		}
		x := tensor.New(tensor.Shape{C: 8, H: 1 + r.IntN(6), W: 2 + r.IntN(9)}) // W ≥ 2: packed rows within 2W
		for i := range x.Data {
			x.Data[i] = r.Int64N(1<<21) - 1<<20
		}
		k := newConv(p, 8)
		if k.choose(maxAbs(x.Data), x.Shape.W) != pathLanes {
			t.Fatalf("path %d, want lanes", k.choose(maxAbs(x.Data), x.Shape.W))
		}
		if len(k.chunks(int64(maxAbs(x.Data)))[0]) > 1 {
			chunked++
		}
		ho := (x.Shape.H+2-3)/int(p.SH) + 1
		out := tensor.New(tensor.Shape{C: 3, H: ho, W: x.Shape.W})
		err := k.run(x, out)
		want, ok := bigConv(p, x, ho, x.Shape.W)
		if !ok {
			expectRefusal(t, "conv past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "conv", err)
		expect(t, "conv chunked lanes", out, want...)
	}
	if chunked == 0 {
		t.Error("no case ran in more than one chunk")
	}
}

// TestConvDepthwiseAgainstExact compares depthwise convolutions (groups =
// cin = cout) on the lanes path (i8 values) and the i64 path (i24 values:
// a channel's bound passes i32) with the 128-bit term-by-term path
// (convExact, checked against math/big above), on planes large enough to
// split rows across goroutines, with odd widths and padding up to 2.
func TestConvDepthwiseAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	seen := map[convPath]int{}
	for n := range 24 {
		bits := []int{8, 24}[n%2]
		val := func() int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
		C := 1 + r.IntN(16)
		k3 := uint32(1 + 2*r.IntN(2)) // 1 or 3
		p := &whg1.Conv{Cout: uint32(C), KH: k3, KW: k3, SH: 1, SW: 1, PH: uint32(r.IntN(3)), PW: uint32(r.IntN(3)),
			Groups: uint32(C), RQ: randRQ(r, C, func() uint8 { return uint8(r.IntN(16)) }, func() int64 { return r.Int64N(1<<16) - 1<<15 })}
		p.W = make([]int64, C*int(k3*k3))
		for i := range p.W {
			p.W[i] = val()
		}
		x := tensor.New(tensor.Shape{C: C, H: 2 + r.IntN(40), W: 2 + r.IntN(40)})
		for i := range x.Data {
			x.Data[i] = val()
		}
		ho := x.Shape.H + 2*int(p.PH) - int(k3) + 1
		wo := x.Shape.W + 2*int(p.PW) - int(k3) + 1
		k := newConv(p, C)
		seen[k.choose(maxAbs(x.Data), x.Shape.W)]++
		got, want := like(C, ho, wo), like(C, ho, wo)
		err := k.run(x, got)
		if werr := convExact(k, x, want); werr != nil {
			expectRefusal(t, "depthwise past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "depthwise", err)
		expect(t, "depthwise", got, want.Data...)
	}
	if seen[pathLanes] == 0 || seen[pathI64] == 0 {
		t.Errorf("paths taken %v: want both lanes and i64", seen)
	}
}

// TestConvPointwiseRows checks 1×1, stride 1, unpadded convolutions, which
// run on rows joined across the plane (pointwise), against convExact on
// the original shape, for heights with and without divisors.
func TestConvPointwiseRows(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for n := range 20 {
		g := 1 + r.IntN(2)
		cin, cout := g*(1+r.IntN(8)), g*(1+r.IntN(8))
		p := &whg1.Conv{Cout: uint32(cout), KH: 1, KW: 1, SH: 1, SW: 1, Groups: uint32(g),
			RQ: randRQ(r, cout, func() uint8 { return uint8(r.IntN(12)) }, func() int64 { return r.Int64N(1<<16) - 1<<15 })}
		p.W = make([]int64, cout*cin/g)
		bits := []int{8, 30}[n%2]
		for i := range p.W {
			p.W[i] = r.Int64N(1<<bits) - 1<<(bits-1)
		}
		x := tensor.New(tensor.Shape{C: cin, H: []int{1, 7, 12, 64}[n%4], W: 1 + r.IntN(40)})
		for i := range x.Data {
			x.Data[i] = r.Int64N(1<<bits) - 1<<(bits-1)
		}
		k := newConv(p, cin)
		if v, _ := k.pointwise(val{T: x}, val{T: x}); x.Shape.H%2 == 0 && x.Shape.W <= 128 && v.Shape.H == x.Shape.H {
			t.Errorf("%v: rows not joined", x.Shape)
		}
		got, want := like(cout, x.Shape.H, x.Shape.W), like(cout, x.Shape.H, x.Shape.W)
		err := k.run(x, got)
		if werr := convExact(k, x, want); werr != nil {
			expectRefusal(t, "pointwise past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "pointwise", err)
		expect(t, "pointwise", got, want.Data...)
		if got.Shape != want.Shape {
			t.Errorf("shape %v, want %v", got.Shape, want.Shape)
		}
	}
}

// TestExtent compares extent with its definition, max|v| over the slice
// and whether no element is below 0, on random slices of 0 to 11 elements
// (the four-way loop and its tail) drawn from the int64 range's ends
// (−2^63, whose magnitude is 2^63, included), and on hand cases.
func TestExtent(t *testing.T) {
	for _, c := range []struct {
		data   []int64
		X      uint64
		nonneg bool
	}{
		{nil, 0, true},
		{[]int64{0}, 0, true},
		{[]int64{-3, -1}, 3, false},
		{[]int64{1, 3, 2, 0, 5}, 5, true},
		{[]int64{4, 2, 9, 1, -10}, 10, false},
		{[]int64{math.MinInt64, 7}, 1 << 63, false},
		{[]int64{1, 2, 3, 4, math.MaxInt64}, 1<<63 - 1, true},
	} {
		if X, nn := extent(c.data); X != c.X || nn != c.nonneg {
			t.Errorf("extent(%v) = %d, %v; want %d, %v", c.data, X, nn, c.X, c.nonneg)
		}
	}
	r := rand.New(rand.NewPCG(81, 82))
	ends := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64}
	for range 100000 {
		data := make([]int64, r.IntN(12))
		var X uint64
		nonneg := true
		for i := range data {
			data[i] = int64(r.Uint64() >> r.IntN(64))
			if r.IntN(2) == 0 {
				data[i] = -data[i]
			}
			if r.IntN(4) == 0 {
				data[i] = ends[r.IntN(len(ends))]
			}
			X, nonneg = max(X, absU(data[i])), nonneg && data[i] >= 0
		}
		if gX, gn := extent(data); gX != X || gn != nonneg {
			t.Fatalf("extent(%v) = %d, %v; want %d, %v", data, gX, gn, X, nonneg)
		}
	}
}
