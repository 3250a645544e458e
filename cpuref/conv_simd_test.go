package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/refusal"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// withSIMD runs f with conv's dot kernels off, then on (the pure-Go
// kernel where the build has no other), restoring the setting after.
func withSIMD(t *testing.T, f func(t *testing.T)) {
	saved := simd
	defer func() { simd = saved }()
	for _, on := range []bool{false, true} {
		simd = on
		t.Run(map[bool]string{false: "nosimd", true: "simd"}[on], f)
	}
}

// TestConvSIMDAgainstExact runs random convolutions whose operands fit
// i16 (i8 and wider, interval ends drawn often) on the dot kernels and
// compares each output with convExact: groups (depthwise included),
// strides, paddings, 1×1 to 5×5 kernels, odd channel counts. Every case
// must take the kernels.
//
// With simd8 on, the cases whose input is non-negative and fits u8 and
// whose weights fit i8 (and whose groups start on a channel quad) must
// take Mac8 instead, and the rest Mac16.
func TestConvSIMDAgainstExact(t *testing.T) {
	t.Logf("cpuref/dot: Mac16 runs %s, Mac8 %s", dot.Selected(), dot.Selected8())
	onEachMac(t, convSIMDAgainstExact)
}

func convSIMDAgainstExact(t *testing.T, eight bool) {
	r := rand.New(rand.NewPCG(61, 62))
	took8 := 0
	for n := range 400 {
		bits := []int{8, 12, 16}[n%3]
		lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
		xlo, xhi := lo+1, hi // chunk16 takes [−X, X]: −2^15 would need X = 2^15
		switch {
		case bits == 8 && r.IntN(2) == 0:
			xlo, xhi = 0, 255 // u8, for Mac8
		case r.IntN(3) == 0:
			xlo = 0 // after a relu
		}
		g := 1 + r.IntN(3)
		cg, og := 1+r.IntN(5), 1+r.IntN(3)
		if n%4 == 0 {
			g, og = 1+r.IntN(8), 1 // depthwise
			cg = 1
		}
		kh, kw := 1+r.IntN(5), 1+r.IntN(5)
		p := &whg1.Conv{Cout: uint32(g * og), KH: uint32(kh), KW: uint32(kw),
			SH: uint32(1 + r.IntN(3)), SW: uint32(1 + r.IntN(3)), PH: uint32(r.IntN(3)), PW: uint32(r.IntN(3)),
			Groups: uint32(g), RQ: randRQ(r, g*og, func() uint8 { return uint8(r.IntN(20)) }, func() int64 { return r.Int64N(1<<20) - 1<<19 })}
		p.W = make([]int64, g*og*cg*kh*kw)
		for i := range p.W {
			p.W[i] = atEnds(r, lo, hi)
		}
		H := max(1, kh-2*int(p.PH)) + r.IntN(12)
		W := max(1, kw-2*int(p.PW)) + r.IntN(40)
		x := tensor.New(tensor.Shape{C: g * cg, H: H, W: W})
		for i := range x.Data {
			x.Data[i] = atEnds(r, xlo, xhi)
		}
		ho := (H+2*int(p.PH)-kh)/int(p.SH) + 1
		wo := (W+2*int(p.PW)-kw)/int(p.SW) + 1
		k := newConv(p, x.Shape.C)
		xv, _ := k.pointwise(val{T: x}, val{T: x})
		X, nonneg := extent(x.Data)
		_, on8 := k.chunk8(X, nonneg)
		want8 := eight && bits == 8 && xlo == 0 && (g == 1 || cg%4 == 0) // xhi ≤ 255
		if on8 != want8 {
			t.Fatalf("case %d (%d bits, x in [%d, %d], %d groups of %d): on Mac8 %v, want %v", n, bits, xlo, xhi, g, cg, on8, want8)
		}
		if on8 {
			took8++
			if _, ok := pack(k, form8, xv, wo); !ok {
				t.Fatalf("case %d: input does not pack in quads", n)
			}
		} else {
			if _, ok := k.chunk16(X); !ok || k.choose(X, W) == pathExact {
				t.Fatalf("case %d (%d bits): not on the dot kernels", n, bits)
			}
			if _, ok := pack(k, form16, xv, wo); !ok {
				t.Fatalf("case %d: input does not pack", n)
			}
		}
		got, want := like(g*og, ho, wo), like(g*og, ho, wo)
		err := k.run(x, got)
		if werr := convExact(k, x, want); werr != nil {
			expectRefusal(t, "simd past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "simd conv", err)
		if !slices.Equal(got.Data, want.Data) {
			t.Fatalf("case %d (conv %+v on %v): got %v, want %v", n, *p, x.Shape, got.Data, want.Data)
		}
	}
	if eight && took8 < 20 {
		t.Fatalf("only %d cases took Mac8", took8)
	}
}

// TestConvSIMDKc runs a 1×1 conv whose one output sums cin products of
// −128·−128 = 2^14 (K_c = ⌊(2^31 − 1)/2^14⌋ = 131071 over [−128, 128]):
// cin = 131071 products fit one lane, 131072 sum to 2^31, past i32, which
// only the widening after each chunk of 65535 pairs keeps exact. With
// −2^15·−2^15 the kernels are refused (K_c = 1) and the i64 path gives
// the same integers.
func TestConvSIMDKc(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	for _, c := range []struct {
		cin  int
		w, x int64
		simd bool
		want int64
	}{
		{131071, -128, -128, true, 131071 << 14},
		{131072, -128, -128, true, 1 << 31},
		{131073, -128, -128, true, 131073 << 14},
		{3, -1 << 15, -1 << 15, false, 3 << 30},
	} {
		p := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: make([]int64, c.cin)}
		x := tensor.New(tensor.Shape{C: c.cin, H: 1, W: 1})
		for i := range p.W {
			p.W[i], x.Data[i] = c.w, c.x
		}
		k := newConv(p, c.cin)
		if _, ok := k.chunk16(maxAbs(x.Data)); ok != c.simd {
			t.Fatalf("cin %d, w %d, x %d: on the kernels %v, want %v", c.cin, c.w, c.x, ok, c.simd)
		}
		out := like(1, 1, 1)
		noErr(t, "conv", k.run(x, out))
		expect(t, "K_c conv", out, c.want)
	}
}

// TestConvPathsBothWays runs the conv and conv_transpose suites with the
// dot kernels off and on.
func TestConvPathsBothWays(t *testing.T) {
	withSIMD(t, func(t *testing.T) {
		t.Run("big", TestConvPathsAgainstBig)
		t.Run("depthwise", TestConvDepthwiseAgainstExact)
		t.Run("pointwise", TestConvPointwiseRows)
		t.Run("parallel", TestConvParallel)
		t.Run("convT big", TestConvTransposeAgainstBig)
		t.Run("convT phases", TestConvTransposePhasesAgainstGather)
		t.Run("contractions", TestContractionsAgainstBig)
	})
}

// TestContractionsSIMD runs gram and apply on the dot kernels (gramSIMD,
// applySIMD, which must take every case) with operands at the ends of i8
// and of i16 less its −2^15 end, odd planes included, against math/big.
func TestContractionsSIMD(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	r := rand.New(rand.NewPCG(63, 64))
	for n := range 200 {
		bits := []int{8, 16}[n%2]
		hi := int64(1)<<(bits-1) - 1
		val := func() int64 {
			switch r.IntN(4) {
			case 0:
				return -hi
			case 1:
				return hi
			}
			return r.Int64N(2*hi+1) - hi
		}
		groups, d := 1+r.IntN(4), 1+r.IntN(12)
		C := groups * d
		H, W := 1+r.IntN(20), 1+r.IntN(20)
		p := contraction(uint32(groups), uint8(r.IntN(2*bits)), whg1.Round(r.IntN(3)))
		fill := func(c, h, w int) *tensor.T {
			x := tensor.New(tensor.Shape{C: c, H: h, W: w})
			for i := range x.Data {
				x.Data[i] = val()
			}
			return x
		}
		a, b := fill(C, H, W), fill(C, H, W)
		if n%8 == 0 { // gram(x, x): one extent for both operands
			b = a
			out := like(C, 1, d)
			want, _ := bigContract(p, false, a, b)
			noErr(t, "gram(x, x)", gram(p, a, b, out))
			expect(t, "gram(x, x)", out, want...)
		}
		if n%4 < 2 {
			out := like(C, 1, d)
			done, err := gramSIMD(p, a, b, maxAbs(a.Data), maxAbs(b.Data), out)
			want, ok := bigContract(p, false, a, b)
			if !done || !ok {
				t.Fatalf("case %d: gram on the kernels %v, fits %v", n, done, ok)
			}
			noErr(t, "gram", err)
			expect(t, "gram", out, want...)
			continue
		}
		w := fill(C, 1, d)
		out := like(C, H, W)
		X, nonneg := extent(b.Data)
		done, err := applySIMD(p, w, b, X, nonneg, out)
		want, ok := bigContract(p, true, w, b)
		if !done || !ok {
			t.Fatalf("case %d: apply on the kernels %v, fits %v", n, done, ok)
		}
		noErr(t, "apply", err)
		expect(t, "apply", out, want...)
	}
}

// TestConvSIMDHugeGeometry checks pack declines, without overflowing or
// allocating, a stride or padding whose packed copy would pass its cap,
// and the conv still gives §5.2's integers. Stride 2^31 on a 1×3 input
// with a 1×2 kernel: Wo = 1, out = w₀·x₀ + w₁·x₁ = 2·5 − 3·7 = −11.
func TestConvSIMDHugeGeometry(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	p := &whg1.Conv{Cout: 1, KH: 1, KW: 2, SH: 1, SW: 1 << 31, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{2, -3}}
	x := tn(1, 1, 3, 5, 7, 9)
	k := newConv(p, 1)
	if _, ok := pack(k, form16, val{T: x}, 1); ok {
		t.Fatal("stride 2^31 packed")
	}
	if _, ok := pack(k, form8, val{T: x}, 1); ok {
		t.Fatal("stride 2^31 packed in quads")
	}
	out := like(1, 1, 1)
	noErr(t, "conv", k.run(x, out))
	expect(t, "huge stride", out, -11)
	p2 := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, PH: 1 << 20, PW: 1 << 20, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{3}}
	if _, ok := pack(newConv(p2, 1), form16, val{T: x}, 3+2<<20); ok {
		t.Fatal("padding 2^20 packed")
	}
	if _, ok := pack(newConv(p2, 1), form8, val{T: x}, 3+2<<20); ok {
		t.Fatal("padding 2^20 packed in quads")
	}
}

// TestConvSIMDCertificate loads a conv through its certificate
// (LoadBytes), weights in [−128, 5], and checks the choices certify16
// records and that the decode gives Load's and convExact's integers:
//
//   - input check [−100, 127]: P = 128·127 = 16256, the certificate's
//     k_c = ⌊(2^31 − 1)/16256⌋ = 132104, Mac16's chunk k_c/2 = 66052 taps,
//     and no Mac8 (a negative input);
//   - input check [0, 200]: P = 128·200 = 25600, k_c = 83886, Mac16's
//     chunk 41943 and Mac8's ⌊83886/4⌋ = 20971 taps.
func TestConvSIMDCertificate(t *testing.T) {
	saved, saved8 := simd, simd8
	defer func() { simd, simd8 = saved, saved8 }()
	simd, simd8 = true, true
	for _, c := range []struct {
		lo, hi          int64
		kc              int64
		chunk16, chunk8 int // 0: no certified choice
	}{
		{-100, 127, 132104, 66052, 0},
		{0, 200, 83886, 41943, 20971},
	} {
		conv := &whg1.Conv{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, WBytes: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{3}}, W: make([]int64, 2*2*9)}
		for i := range conv.W {
			conv.W[i] = int64(i%7 - 1)
		}
		conv.W[5] = -128
		g := &whg1.Graph{Version: 1, OpSet: 1, MaxElems: 1 << 20,
			Inputs:  []whg1.Input{{Tensor: 0}},
			Outputs: []uint32{1},
			Tensors: []whg1.Tensor{rec(2, whg1.Check, c.lo, c.hi), derived(2)},
			Ops:     []whg1.Op{{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: conv}},
		}
		b := whg1.Encode(g)
		p, cert, err := LoadBytes(b)
		noErr(t, "LoadBytes", err)
		node := cert.Graphs[0].Nodes[0]
		if node.KC == nil || node.KC.Int64() != c.kc {
			t.Fatalf("[%d, %d]: certificate k_c %v, want %d", c.lo, c.hi, node.KC, c.kc)
		}
		k := newConv(conv, 2)
		k.certify16(&cert.Graphs[0].Tensors[0])
		xmax := uint64(max(-c.lo, c.hi))
		if k.w16.cert == nil || k.w16.cert.chunk != c.chunk16 || k.w16.cert.xmax != xmax {
			t.Fatalf("[%d, %d]: certified choice %+v, want chunk %d over max|x| %d", c.lo, c.hi, k.w16.cert, c.chunk16, xmax)
		}
		if chunk, ok := k.chunk16(xmax); !ok || chunk != c.chunk16 {
			t.Fatalf("chunk16(%d) = %d, %v", xmax, chunk, ok)
		}
		if got := k.w16.cert8; (got == nil) != (c.chunk8 == 0) || got != nil && (got.chunk != c.chunk8 || got.xmax != uint64(c.hi)) {
			t.Fatalf("[%d, %d]: certified Mac8 choice %+v, want chunk %d", c.lo, c.hi, got, c.chunk8)
		}
		if chunk, ok := k.chunk8(xmax, c.lo >= 0); c.chunk8 != 0 && (!ok || chunk != c.chunk8) {
			t.Fatalf("chunk8(%d) = %d, %v", xmax, chunk, ok)
		}
		x := tensor.New(tensor.Shape{C: 2, H: 5, W: 6})
		for i := range x.Data {
			x.Data[i] = c.lo + int64(i*37)%(c.hi-c.lo+1)
		}
		got, err := p.Decode([]*tensor.T{x}, nil)
		noErr(t, "decode", err)
		pg, err := whg1.Parse(b)
		noErr(t, "parse", err)
		plain, err := Load(pg)
		noErr(t, "Load", err)
		want, err := plain.Decode([]*tensor.T{x}, nil)
		noErr(t, "decode", err)
		ref := like(2, 5, 6)
		noErr(t, "exact", convExact(newConv(conv, 2), x, ref))
		expect(t, "certified conv", got[0], want[0].Data...)
		expect(t, "certified conv against convExact", got[0], ref.Data...)
	}
}

// TestGramOperandsApart: gram takes each operand's own max|·| for its
// kernel's chunk (the shared scan is only for gram(x, x)). A = 32767 and
// B = 1 over a 256 × 257 plane: P = 32767, K_c = 65538 products, so the
// 65792 products, summing to 65792·32767 = 2155806464 > 2^31 − 1, need
// two chunks; a chunk chosen from B's magnitude alone (P = 1) would wrap
// the lane.
func TestGramOperandsApart(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	a, b := like(1, 256, 257), like(1, 256, 257)
	for i := range a.Data {
		a.Data[i], b.Data[i] = 32767, 1
	}
	out := like(1, 1, 1)
	noErr(t, "gram", gram(contraction(1, 0, whg1.Floor), a, b, out))
	expect(t, "gram of 32767 and 1", out, 2155806464)
}

// TestConvFusedStore runs random convolutions whose output is stored at i8
// width with the tiles' fused epilogue (dot.Tile16RQ, Tile8RQ) and compares
// each with the same conv into an int64 output (rq, then the folded clamp
// or none, on the unfused path) narrowed by hand: equal bytes where every
// value fits i8, model_mismatch where one does not or where rq passes
// i64. Rows are multiples of 8 columns (the fused tiles' whole blocks),
// channels come in groups of 4 to 12, inputs are i8 or u8 (Mac8's), and
// both answers must come up often.
func TestConvFusedStore(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	r := rand.New(rand.NewPCG(63, 64))
	fits, refused := 0, 0
	for n := range 300 {
		g, og := 1+r.IntN(2), 4*(1+r.IntN(3))
		cg := 1 + r.IntN(9)
		if r.IntN(3) == 0 {
			cg = 4 * (1 + r.IntN(3)) // quads align: Mac8 where the input is u8
		}
		kh, kw := 1+r.IntN(3), 1+r.IntN(3)
		p := &whg1.Conv{Cout: uint32(g * og), KH: uint32(kh), KW: uint32(kw), SH: 1, SW: 1,
			PH: uint32(kh / 2), PW: uint32(kw / 2), Groups: uint32(g),
			RQ: randRQ(r, g*og, func() uint8 { return uint8(6 + r.IntN(12)) }, func() int64 { return r.Int64N(1<<10) - 1<<9 })}
		p.W = make([]int64, g*og*cg*kh*kw)
		for i := range p.W {
			p.W[i] = atEnds(r, -128, 127)
		}
		H, W := 1+r.IntN(6), 8*(1+r.IntN(17))-2*int(p.PW)+kw-1 // Wo = W + 2pw − kw + 1, a multiple of 8
		xlo := int64(-128)
		if r.IntN(2) == 0 {
			xlo = 0 // u8 values: Mac8's Tile8RQ
		}
		xs := make([]int8, g*cg*H*W)
		for i := range xs {
			xs[i] = int8(atEnds(r, xlo, 127))
		}
		k := newConv(p, g*cg)
		switch r.IntN(3) {
		case 1:
			k.post = &rowPost{stages: []postStage{{lo: 0, hi: math.MaxInt64}}} // a relu
		case 2:
			lo := atEnds(r, -140, 0)
			k.post = &rowPost{stages: []postStage{{lo: lo, hi: atEnds(r, lo, 140)}}}
		}
		sh := tensor.Shape{C: g * cg, H: H, W: W}
		x := val{T: &tensor.T{Shape: sh}, i8: xs}
		wide := like(g*og, H+2*int(p.PH)-kh+1, W+2*int(p.PW)-kw+1)
		werr := k.runVal(x, val{T: wide})
		out := val{T: &tensor.T{Shape: wide.Shape}, i8: make([]int8, len(wide.Data))}
		if k.fusedStore(out, 0) == nil {
			t.Fatalf("case %d: no fused store for an i8 output of %d columns", n, wide.Shape.W)
		}
		if narrowedLike(t, fmt.Sprintf("case %d (conv %+v, post %+v)", n, *p, k.post), wide, werr, out, k.runVal(x, out)) {
			fits++
		} else {
			refused++
		}
	}
	if fits < 50 || refused < 20 {
		t.Fatalf("%d cases fitted i8 and %d were refused: want both often", fits, refused)
	}
}

// TestConvTFusedStore is TestConvFusedStore for conv_transpose: its phases'
// tiles store bytes through each phase's put8 into every sw-th output
// column; compared with the same conv_transpose into an int64 output
// narrowed by hand.
func TestConvTFusedStore(t *testing.T) {
	saved := simd
	defer func() { simd = saved }()
	simd = true
	r := rand.New(rand.NewPCG(65, 66))
	fits, refused := 0, 0
	for n := range 200 {
		cin, cout := 1+r.IntN(9), 4*(1+r.IntN(3))
		p := &whg1.ConvT{Cout: uint32(cout), KH: uint32(1 + r.IntN(5)), KW: uint32(1 + r.IntN(5)),
			SH: uint32(1 + r.IntN(3)), SW: uint32(1 + r.IntN(3)), PH: uint32(r.IntN(3)), PW: uint32(r.IntN(3)),
			OPH: uint32(r.IntN(3)), OPW: uint32(r.IntN(3)),
			RQ: randRQ(r, cout, func() uint8 { return uint8(6 + r.IntN(12)) }, func() int64 { return r.Int64N(1<<10) - 1<<9 })}
		H, W := 1+r.IntN(8), 1+r.IntN(24)
		ho := (H-1)*int(p.SH) + int(p.KH+p.OPH) - 2*int(p.PH)
		wo := (W-1)*int(p.SW) + int(p.KW+p.OPW) - 2*int(p.PW)
		if ho < 1 || wo < 1 {
			continue
		}
		p.W = make([]int64, cin*cout*int(p.KH*p.KW))
		for i := range p.W {
			p.W[i] = atEnds(r, -128, 127)
		}
		xlo := int64(-128)
		if r.IntN(2) == 0 {
			xlo = 0 // u8 values: Mac8's Tile8RQ
		}
		xs := make([]int8, cin*H*W)
		for i := range xs {
			xs[i] = int8(atEnds(r, xlo, 127))
		}
		k := newConvT(p, cin)
		if r.IntN(2) == 0 {
			lo := atEnds(r, -140, 0)
			k.post = &rowPost{stages: []postStage{{lo: lo, hi: atEnds(r, lo, 140)}}}
		}
		x := val{T: &tensor.T{Shape: tensor.Shape{C: cin, H: H, W: W}}, i8: xs}
		wide := like(cout, ho, wo)
		werr := k.runVal(x, val{T: wide})
		out := val{T: &tensor.T{Shape: wide.Shape}, i8: make([]int8, len(wide.Data))}
		if narrowedLike(t, fmt.Sprintf("case %d (conv_transpose %+v, post %+v)", n, *p, k.post), wide, werr, out, k.runVal(x, out)) {
			fits++
		} else {
			refused++
		}
	}
	if fits < 40 || refused < 20 {
		t.Fatalf("%d cases fitted i8 and %d were refused: want both often", fits, refused)
	}
}

// narrowedLike checks an i8-width output out (its run's error err) against
// the same operator run into the int64 tensor wide (error werr): where
// werr is nil and every value of wide fits i8, err must be nil and out's
// bytes wide's values; otherwise err must be model_mismatch. It reports
// whether the values fitted.
func narrowedLike(t *testing.T, what string, wide *tensor.T, werr error, out val, err error) bool {
	t.Helper()
	fit := werr == nil
	for _, v := range wide.Data {
		fit = fit && v >= math.MinInt8 && v <= math.MaxInt8
	}
	if !fit {
		expectRefusal(t, what, err, refusal.ModelMismatch)
		return false
	}
	noErr(t, what, err)
	for i, v := range wide.Data {
		if int64(out.i8[i]) != v {
			t.Fatalf("%s: element %d: got %d, want %d", what, i, out.i8[i], v)
		}
	}
	return true
}

// TestConvBlocks runs a conv whose tiles, rows and column blocks end
// short (22 output channels: a last tile of 2 channels; 13 input channels:
// a last pair with a zero partner; 70 or 72 columns: blocks of 64 and 8)
// on the dot kernels and compares it with convExact: into int64 rows
// through put (i8 and u8 inputs: Mac16 and, where simd8 is on, Mac8), and
// at i8 width through the fused store (Wo = 72, a multiple of dot.Block).
func TestConvBlocks(t *testing.T) {
	onEachMac(t, func(t *testing.T, eight bool) {
		r := rand.New(rand.NewPCG(65, 66))
		const cin, cout, H = 13, 22, 19
		p := &whg1.Conv{Cout: cout, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{13}, Bias: whg1.PreBias, BiasV: make([]int64, cout)}}
		p.W = make([]int64, cout*cin*9)
		for i := range p.W {
			p.W[i] = atEnds(r, -128, 127)
		}
		k := newConv(p, cin)
		for _, W := range []int{70, 72} {
			for _, xlo := range []int64{-128, 0} {
				x := tensor.New(tensor.Shape{C: cin, H: H, W: W})
				for i := range x.Data {
					x.Data[i] = atEnds(r, xlo, 127)
				}
				what := fmt.Sprintf("%d columns, x from %d", W, xlo)
				got, want := like(cout, H, W), like(cout, H, W)
				noErr(t, what, convExact(k, x, want))
				noErr(t, what, k.run(x, got))
				if !slices.Equal(got.Data, want.Data) {
					t.Fatalf("%s: got %v, want %v", what, got.Data, want.Data)
				}
				if W%dot.Block != 0 {
					continue
				}
				xs := make([]int8, len(x.Data))
				for i, v := range x.Data {
					xs[i] = int8(v)
				}
				out := val{T: &tensor.T{Shape: want.Shape}, i8: make([]int8, len(want.Data))}
				if k.fusedStore(out, 0) == nil {
					t.Fatalf("%s: no fused store", what)
				}
				if !narrowedLike(t, what, want, nil, out, k.runVal(val{T: &tensor.T{Shape: x.Shape}, i8: xs}, out)) {
					t.Fatalf("%s: the output does not fit i8", what)
				}
			}
		}
	})
}

// TestPackDirtyPool packs random inputs into buffers the pool hands back
// full of garbage (packInput zeroes only the padding at stride 1 with full
// groups) and checks every element against packed's layout: padded
// position (u, v) of channel c holds x[c][u − ph][v − pw] inside the
// input and 0 outside it, past the last channel too; i8 and int64 inputs
// into pairs, u8 ones into quads, strides 1 to 3, odd channel counts.
func TestPackDirtyPool(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for n := range 300 {
		C, H, W := 1+r.IntN(9), 1+r.IntN(6), 1+r.IntN(30)
		g := padGeom{kw: 1 + r.IntN(5), sw: 1 + r.IntN(3), ph: r.IntN(3), pw: r.IntN(4)}
		if n%2 == 0 {
			g.sw = 1
		}
		Wo := 1 + r.IntN(W+2*g.pw)
		xs := make([]int64, C*H*W)
		for i := range xs {
			xs[i] = r.Int64N(255) - 127
		}
		check := func(name string, per int, got func(i int) int64, pk func() (int, int, int, int, int, bool)) {
			rowLen, nq, wq, sw, total, ok := pk()
			if !ok {
				t.Fatalf("case %d %s: does not pack", n, name)
			}
			for i := range total {
				k, m := i%per, i/per%wq
				phi := i / (per * wq) % sw
				q := i / (per * wq * sw) % nq
				u := i / rowLen
				c, row, col := q*per+k, u-g.ph, m*sw+phi-g.pw
				want := int64(0)
				if c < C && row >= 0 && row < H && col >= 0 && col < W {
					want = xs[(c*H+row)*W+col]
				}
				if got(i) != want {
					t.Fatalf("case %d %s (C %d, %d×%d, %+v, Wo %d): element %d = %d, want %d", n, name, C, H, W, g, Wo, i, got(i), want)
				}
			}
		}
		sh := tensor.Shape{C: C, H: H, W: W}
		dirty16 := func(total int) {
			b := make([]int16, total+r.IntN(50))
			for i := range b {
				b[i] = int16(r.IntN(1 << 16))
			}
			form16.pool.Put(&b)
		}
		// Each form's pack from an int64 input, and from the 8-bit one.
		i8 := make([]int8, len(xs))
		u8 := make([]uint8, len(xs))
		for i, v := range xs {
			i8[i], u8[i] = int8(v), uint8(v+127)
		}
		for _, from := range []string{"int64", "i8"} {
			probe, _ := packInput(form16, xs, sh, g, Wo)
			dirty16(len(probe.data))
			var pk *packed[int16]
			var ok bool
			if from == "i8" {
				pk, ok = packInput(form16, i8, sh, g, Wo)
			} else {
				pk, ok = packInput(form16, xs, sh, g, Wo)
			}
			check(from+" pairs", 2, func(i int) int64 { return int64(pk.data[i]) },
				func() (int, int, int, int, int, bool) { return pk.rowLen, pk.nq, pk.wq, pk.sw, len(pk.data), ok })
		}
		probe, _ := packInput(form8, u8, sh, g, Wo)
		b := make([]uint8, len(probe.data))
		for i := range b {
			b[i] = uint8(r.IntN(256))
		}
		form8.pool.Put(&b)
		pk, ok := packInput(form8, u8, sh, g, Wo)
		for i := range xs {
			xs[i] += 127 // u8's values, for check
		}
		check("u8 quads", 4, func(i int) int64 { return int64(pk.data[i]) }, func() (int, int, int, int, int, bool) { return pk.rowLen, pk.nq, pk.wq, pk.sw, len(pk.data), ok })
	}
}
