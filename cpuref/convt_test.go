package cpuref

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

func TestConvTransposeHand(t *testing.T) {
	// 1-D, kw = 3, sw = 2, output padding 2 (≥ the stride), x = (1, 2),
	// Wt = (1, 10, 100): uw = 1·2 + 3 + 2 = 7 = Wo. The scatter form gives
	// (1, 10, 100 + 2, 20, 200, 0, 0); positions 5 and 6 are reached by no
	// tap and hold rq(0). Post bias 3.
	p := &whg1.ConvT{Cout: 1, KH: 1, KW: 3, SH: 1, SW: 2, OPW: 2,
		RQ: whg1.RQ{Bias: whg1.PostBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{3}},
		W:  []int64{1, 10, 100}}
	out := like(1, 1, 7)
	noErr(t, "conv_transpose", newConvT(p, 1).run(tn(1, 1, 2, 1, 2), out))
	expect(t, "conv_transpose 1-D opw 2", out, 4, 13, 105, 23, 203, 3, 3)

	// 2-D: cin = 2, cout = 1, 2×2 kernel, stride 2, padding 1, output
	// padding 1, on 2×2 inputs: Ho = 1·2 + 2 + 1 − 2 = 3. With stride =
	// kernel, uncropped (a, b) < (4, 4) gets the one tap (a mod 2, b mod 2)
	// of input (a/2, b/2); output (y, x) is uncropped (y + 1, x + 1).
	// x0 = [[1, 2], [3, 4]], x1 = [[−1, 1], [2, 0]];
	// Wt[0][0] = [[1, 2], [3, 4]], Wt[1][0] = [[5, 0], [0, −1]]:
	//   (1,1): 4·1 + (−1)(−1) = 5   (1,2): 3·2 + 0 = 6    (1,3): 4·2 − 1 = 7
	//   (2,1): 2·3 + 0 = 6          (2,2): 1·4 + 5·0 = 4  (2,3): 2·4 = 8
	//   (3,1): 4·3 − 2 = 10         (3,2): 3·4 = 12       (3,3): 4·4 − 0 = 16
	p = &whg1.ConvT{Cout: 1, KH: 2, KW: 2, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}},
		W:  []int64{1, 2, 3, 4, 5, 0, 0, -1}}
	out = like(1, 3, 3)
	noErr(t, "conv_transpose", newConvT(p, 2).run(tn(2, 2, 2, 1, 2, 3, 4, -1, 1, 2, 0), out))
	expect(t, "conv_transpose 2-D", out, 5, 6, 7, 6, 4, 8, 10, 12, 16)
}

// bigConvT is §5.3's informative scatter form in math/big: add every
// Wt[ci][o][i][j]·X[ci][u][v] into an uncropped plane at (u·sh + i,
// v·sw + j), keep rows [ph, ph + Ho) and columns [pw, pw + Wo), then rq.
func bigConvT(p *whg1.ConvT, x *tensor.T, ho, wo int) ([]int64, bool) {
	cin, H, W := x.Shape.C, x.Shape.H, x.Shape.W
	kh, kw, cout := int(p.KH), int(p.KW), int(p.Cout)
	uh, uw := (H-1)*int(p.SH)+kh+int(p.OPH), (W-1)*int(p.SW)+kw+int(p.OPW)
	var res []int64
	for o := range cout {
		plane := make([]*big.Int, uh*uw)
		for i := range plane {
			plane[i] = new(big.Int)
		}
		for ci := range cin {
			for u := range H {
				for v := range W {
					for i := range kh {
						for j := range kw {
							w := big.NewInt(p.W[((ci*cout+o)*kh+i)*kw+j])
							a := &plane[(u*int(p.SH)+i)*uw+v*int(p.SW)+j]
							(*a).Add(*a, w.Mul(w, big.NewInt(x.Data[(ci*H+u)*W+v])))
						}
					}
				}
			}
		}
		for y := range ho {
			for xx := range wo {
				v, ok := bigRQ(&p.RQ, o, plane[(y+int(p.PH))*uw+xx+int(p.PW)])
				if !ok {
					return nil, false
				}
				res = append(res, v)
			}
		}
	}
	return res, true
}

func TestConvTransposeAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, wide := range []bool{false, true} {
		compared := 0
		for n := 0; n < 200; n++ {
			cin, cout := 1+r.IntN(3), 1+r.IntN(3)
			p := &whg1.ConvT{Cout: uint32(cout), KH: uint32(1 + r.IntN(6)), KW: uint32(1 + r.IntN(6)),
				SH: uint32(1 + r.IntN(4)), SW: uint32(1 + r.IntN(4)), PH: uint32(r.IntN(4)), PW: uint32(r.IntN(4)),
				OPH: uint32(r.IntN(5)), OPW: uint32(r.IntN(5))}
			H, W := 1+r.IntN(4), 1+r.IntN(4)
			ho := (H-1)*int(p.SH) + int(p.KH+p.OPH) - 2*int(p.PH)
			wo := (W-1)*int(p.SW) + int(p.KW+p.OPW) - 2*int(p.PW)
			if ho < 1 || wo < 1 {
				continue
			}
			val := func() int64 { return r.Int64N(255) - 127 }
			xval := val
			sh := func() uint8 { return uint8(r.IntN(8)) }
			if wide {
				// Products up to 2^63·2^55, at most 3·16 per sum: the
				// 128-bit path, with partial sums inside 128 bits.
				val = func() int64 { return int64(r.Uint64()) >> r.IntN(8) }
				xval = func() int64 { return val() >> 8 }
				sh = func() uint8 { return uint8(60 + r.IntN(68)) }
			}
			p.RQ = randRQ(r, cout, sh, val)
			p.W = make([]int64, cin*cout*int(p.KH*p.KW))
			for i := range p.W {
				p.W[i] = val()
			}
			x := tensor.New(tensor.Shape{C: cin, H: H, W: W})
			for i := range x.Data {
				x.Data[i] = xval()
			}
			out := tensor.New(tensor.Shape{C: cout, H: ho, W: wo})
			err := newConvT(p, cin).run(x, out)
			want, ok := bigConvT(p, x, ho, wo)
			if !ok {
				expectRefusal(t, "conv_transpose past i64", err, refusal.ModelMismatch)
				continue
			}
			noErr(t, "conv_transpose", err)
			expect(t, "conv_transpose", out, want...)
			compared++
		}
		if compared < 20 {
			t.Errorf("wide %v: only %d cases fit i64", wide, compared)
		}
	}
}

// TestConvTransposePhasePaths puts one phase's bound on each side of the
// i32 and i64 limits. 1-D, kw = 3, sw = 2, x = (x0, x1), Wt = (a, b, c):
// phase 0 has the taps a and c (2 taps), phase 1 the tap b. The scatter
// form gives (a·x0, b·x0, c·x0 + a·x1, b·x1, c·x1).
func TestConvTransposePhasePaths(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, x  []int64
		shift uint8
		paths []convPath
		want  []int64
	}{
		// Phase 0: (2^30 + 2^30 − 1)·1 = 2^31 − 1, lanes.
		{"2^31 − 1", []int64{1 << 30, 5, 1<<30 - 1}, []int64{1, -1}, 0, []convPath{pathLanes, pathLanes},
			[]int64{1 << 30, 5, -1, -5, -(1<<30 - 1)}},
		// Phase 0: 2^32 − 2, i64; phase 1: 10, lanes.
		{"2^32 − 2", []int64{1 << 30, 5, 1<<30 - 1}, []int64{2, -2}, 0, []convPath{pathI64, pathLanes},
			[]int64{1 << 31, 10, -2, -10, -(1<<31 - 2)}},
		// Phase 0: (2^62 + 2^62 − 1)·1 = 2^63 − 1, i64: out[2] = 2^63 − 1.
		{"2^63 − 1", []int64{1 << 62, 5, 1<<62 - 1}, []int64{1, 1}, 0, []convPath{pathI64, pathLanes},
			[]int64{1 << 62, 5, 1<<63 - 1, 5, 1<<62 - 1}},
		// x doubled: 2^64 − 2, the exact path; shift 1 floors out[2] =
		// (2^64 − 2)/2 = 2^63 − 1 and out[1] = 10/2 = 5.
		{"2^64 − 2", []int64{1 << 62, 5, 1<<62 - 1}, []int64{2, 2}, 1, []convPath{pathExact, pathLanes},
			[]int64{1 << 62, 5, 1<<63 - 1, 5, 1<<62 - 1}},
	} {
		p := &whg1.ConvT{Cout: 1, KH: 1, KW: 3, SH: 1, SW: 2,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{c.shift}}, W: c.w}
		k := newConvT(p, 1)
		x := tn(1, 1, 2, c.x...)
		if got := k.paths(maxAbs(x.Data), x.Shape.W); !slices.Equal(got, c.paths) {
			t.Errorf("%s: paths %v, want %v", c.name, got, c.paths)
		}
		out := like(1, 1, 5)
		noErr(t, c.name, k.run(x, out))
		expect(t, c.name, out, c.want...)
	}
}

// TestConvTransposePhasesAgainstGather compares the phase form with the
// gather form (convTExact, itself checked against math/big above) on
// larger random cases, big enough to split rows across goroutines, with
// i8 values (lanes), i24 values (i64: a phase's bound passes i32) and
// shapes where whole phases have no tap or run past Z_ρ.
func TestConvTransposePhasesAgainstGather(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	seen := map[convPath]int{}
	for n := range 24 {
		bits := []int{8, 24}[n%2]
		val := func() int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
		cin, cout := 1+r.IntN(16), 1+r.IntN(16)
		p := &whg1.ConvT{Cout: uint32(cout), KH: uint32(1 + r.IntN(5)), KW: uint32(1 + r.IntN(5)),
			SH: uint32(1 + r.IntN(3)), SW: uint32(1 + r.IntN(3)), PH: uint32(r.IntN(3)), PW: uint32(r.IntN(3)),
			OPH: uint32(r.IntN(4)), OPW: uint32(r.IntN(4)),
			RQ: randRQ(r, cout, func() uint8 { return uint8(r.IntN(20)) }, func() int64 { return r.Int64N(1<<20) - 1<<19 })}
		if n < 4 {
			*p = whg1.ConvT{Cout: uint32(cout), KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1, RQ: p.RQ}
		}
		H, W := 1+r.IntN(24), 1+r.IntN(24)
		ho := (H-1)*int(p.SH) + int(p.KH+p.OPH) - 2*int(p.PH)
		wo := (W-1)*int(p.SW) + int(p.KW+p.OPW) - 2*int(p.PW)
		if ho < 1 || wo < 1 {
			continue
		}
		p.W = make([]int64, cin*cout*int(p.KH*p.KW))
		for i := range p.W {
			p.W[i] = val()
		}
		x := tensor.New(tensor.Shape{C: cin, H: H, W: W})
		for i := range x.Data {
			x.Data[i] = val()
		}
		k := newConvT(p, cin)
		for _, path := range k.paths(maxAbs(x.Data), x.Shape.W) {
			seen[path]++
		}
		got, want := like(cout, ho, wo), like(cout, ho, wo)
		err := k.run(x, got)
		if werr := convTExact(k, x, want); werr != nil {
			expectRefusal(t, "conv_transpose past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "conv_transpose", err)
		expect(t, "conv_transpose phases", got, want.Data...)
	}
	if seen[pathLanes] == 0 || seen[pathI64] == 0 {
		t.Errorf("paths taken %v: want both lanes and i64", seen)
	}
}

// TestConvTransposeHugeStride: any u32 stride loads (§10.4). With H = W = 1
// the uncropped side is kh + oph, so strides of 2^32 − 1 plan; the kernel
// must neither allocate nor loop per residue of the stride. kh = 2, sh =
// 2^32 − 1, oph = 1, x = 3, Wt = (5, 7): the scatter form gives (15, 21, 0),
// and rq(0) = 0 at the position no tap reaches.
func TestConvTransposeHugeStride(t *testing.T) {
	const s = 1<<32 - 1
	p := &whg1.ConvT{Cout: 1, KH: 2, KW: 1, SH: s, SW: s, OPH: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{5, 7}}
	k := newConvT(p, 1)
	if len(k.phases) != 2 {
		t.Fatalf("%d phases allocated, want min(sh, kh)·min(sw, kw) = 2", len(k.phases))
	}
	out := like(1, 3, 1)
	noErr(t, "conv_transpose", k.run(tn(1, 1, 1, 3), out))
	expect(t, "conv_transpose huge stride", out, 15, 21, 0)
}
