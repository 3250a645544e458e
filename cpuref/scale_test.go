package cpuref

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

func TestRescale(t *testing.T) {
	// Per channel mult (3, −2), shift (1, 0), pre bias (1, 5), half_even.
	// ch0 v = (0, 2): t = (1, 3), p = (3, 9), /2 = 1.5 → 2 (q = 1 odd),
	// 4.5 → 4 (q = 4 even). ch1 v = (−1, 4): t = (4, 9), p = (−8, −18).
	p := &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PreBias, MKind: 2, SKind: 2,
		Mult: []int64{3, -2}, Shift: []uint8{1, 0}, BiasV: []int64{1, 5}}}
	out := like(2, 1, 2)
	for _, X := range []uint64{0, 4, 1 << 61} { // measured, certified, certified too wide for int64
		noErr(t, "rescale", rescale(p, nil, X, tn(2, 1, 2, 0, 2, -1, 4), out))
		expect(t, "rescale", out, 2, 4, -8, -18)
	}
}

func TestChscale(t *testing.T) {
	// M = [[3, 5], [−7, 11]], row r = 1, s = 2, half_up:
	// ch0 (1, −2)·(−7) = (−7, 14) → ⌊(−7 + 2)/4⌋ = −2, ⌊16/4⌋ = 4;
	// ch1 (3, −1)·11 = (33, −11) → ⌊35/4⌋ = 8, ⌊−9/4⌋ = −3.
	p := &whg1.Chscale{NRows: 2, Round: whg1.HalfUp, Shift: 2, M: []int64{3, 5, -7, 11}}
	out := like(2, 1, 2)
	noErr(t, "chscale", chscale(p, nil, 1, 0, tn(2, 1, 2, 1, -2, 3, -1), out))
	expect(t, "chscale", out, -2, 4, 8, -3)
	// A product past 64 bits: 2^62·8 = 2^65, s = 3 → 2^62.
	one := like(1, 1, 1)
	p = &whg1.Chscale{NRows: 1, Shift: 3, M: []int64{8}}
	noErr(t, "chscale wide", chscale(p, nil, 0, 0, tn(1, 1, 1, 1<<62), one))
	expect(t, "chscale wide", one, 1<<62)
	p.Shift = 2
	expectRefusal(t, "chscale past i64", chscale(p, nil, 0, 0, tn(1, 1, 1, 1<<62), one), refusal.ModelMismatch)
}

func TestMul(t *testing.T) {
	// a [2, 1, 2] = ch0 (3, −5), ch1 (7, 2); b [1, 1, 2] = (4, 3) for both
	// channels. mult (1, 3), shift 1, floor:
	// ch0: 12 → 6, −15 → ⌊−7.5⌋ = −8; ch1: 28·3 = 84 → 42, 6·3 = 18 → 9.
	p := &whg1.Rescale{RQ: whg1.RQ{MKind: 2, SKind: 1, Mult: []int64{1, 3}, Shift: []uint8{1}}}
	out := like(2, 1, 2)
	noErr(t, "mul", mul(p, nil, 7, 4, tn(2, 1, 2, 3, -5, 7, 2), tn(1, 1, 2, 4, 3), out))
	expect(t, "mul b[1]", out, 6, -8, 42, 9)
	// b with C channels: ch1 reads b's ch1 = (−1, 10): −7·3 = −21 → ⌊−10.5⌋ = −11; 20·3 = 60 → 30.
	noErr(t, "mul", mul(p, nil, 0, 0, tn(2, 1, 2, 3, -5, 7, 2), tn(2, 1, 2, 4, 3, -1, 10), out))
	expect(t, "mul b[C]", out, 6, -8, -11, 30)
}

func TestLut16(t *testing.T) {
	p := &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}
	p.T[32768-1] = -5 // v = −1
	p.T[32768+2] = 7  // v = 2
	p.T[65535] = 100  // v = 32767
	p.T[1] = -100     // v = −32767
	tab, err := lut16Table(p)
	noErr(t, "table", err)
	for _, checked := range []bool{true, false} {
		out := like(1, 1, 5)
		noErr(t, "lut16", lut16(tab, checked, tn(1, 1, 5, -1, 2, 0, 32767, -32767), out))
		expect(t, "lut16", out, -5, 7, 0, 100, -100)
	}
	expectRefusal(t, "lut16(−32768)", lut16(tab, true, tn(1, 1, 1, -32768), like(1, 1, 1)), refusal.ModelMismatch)
	_, err = lut16Table(&whg1.Lut16{T: make([]int16, 10)})
	expectRefusal(t, "a short table", err, refusal.ModelMismatch)
}

// TestRescaleMulAgainstBig runs rescale and mul on random planes whose
// values and products straddle the int64 bounds of rqRow and of mul's
// product, against §5.1's rq in math/big on the exact values: 10^5 cases
// (10^4 with -short or -race). A third of them pass no bound (measured per
// decode), a third the inputs' own maxima (the certified bound's end), a
// third a bound up to 2^20 times wider (a certificate looser than the
// data).
func TestRescaleMulAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	cases := 100_000
	if testing.Short() || raceEnabled {
		cases = 10_000
	}
	for n := range cases {
		bits := 1 + r.IntN(63)
		val := func() int64 { return int64(r.Uint64()>>(64-bits)) - int64(r.Uint64()>>(64-bits)) }
		C := 1 + r.IntN(3)
		p := &whg1.Rescale{RQ: randRQ(r, C, func() uint8 { return uint8(r.IntN(80)) }, val)}
		a, b := like(C, 1+r.IntN(3), 1+r.IntN(5)), like(1+(C-1)*r.IntN(2), 1, 1)
		b = like(b.Shape.C, a.Shape.H, a.Shape.W)
		for i := range a.Data {
			a.Data[i] = val()
		}
		for i := range b.Data {
			b.Data[i] = val() >> r.IntN(64)
		}
		out := like(C, a.Shape.H, a.Shape.W)
		var XA, XB uint64
		if k := r.IntN(3); k > 0 {
			XA, XB = maxAbs(a.Data), maxAbs(b.Data)
			if k == 2 {
				XA, XB = min(XA<<r.IntN(21), 1<<63), min(XB<<r.IntN(21), 1<<63)
			}
		}
		var err error
		if n%2 == 0 {
			err = rescale(p, nil, XA, a, out)
		} else {
			err = mul(p, nil, XA, XB, a, b, out)
		}
		var want []int64
		ok := true
		for i, v := range a.Data {
			x := big.NewInt(v)
			c := i / (a.Shape.H * a.Shape.W)
			if n%2 == 1 {
				cb := 0
				if b.Shape.C == C {
					cb = c
				}
				x.Mul(x, big.NewInt(b.Data[cb*a.Shape.H*a.Shape.W+i%(a.Shape.H*a.Shape.W)]))
			}
			y, yok := bigRQ(&p.RQ, c, x)
			ok = ok && yok
			want = append(want, y)
		}
		if !ok {
			expectRefusal(t, "rescale/mul past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "rescale/mul", err)
		expect(t, "rescale/mul", out, want...)
	}
}
