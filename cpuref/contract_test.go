package cpuref

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
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

// bigContract is gram (apply false) or apply in math/big, from §5.9's
// formulas; ok is false when an output passes i64.
func bigContract(p *whg1.Contraction, apply bool, a, b *tensor.T) ([]int64, bool) {
	C := b.Shape.C
	d := C / int(p.Groups)
	n := b.Shape.H * b.Shape.W
	var res []int64
	for ch := range C {
		g := ch / d
		outs := d // gram: j < d
		if apply {
			outs = n // apply: each position
		}
		for o := range outs {
			s := new(big.Int)
			if apply {
				for j := range d {
					s.Add(s, new(big.Int).Mul(big.NewInt(a.Data[ch*d+j]), big.NewInt(b.Data[(g*d+j)*n+o])))
				}
			} else {
				for k := range n {
					s.Add(s, new(big.Int).Mul(big.NewInt(a.Data[ch*n+k]), big.NewInt(b.Data[(g*d+o)*n+k])))
				}
			}
			y, ok := bigRQ(&p.RQ, ch, s)
			if !ok {
				return nil, false
			}
			res = append(res, y)
		}
	}
	return res, true
}

// TestContractionsAgainstBig runs random gram and apply cases on the int64
// path (i8 and i24 values) and the 128-bit path (values up to 2^50, sums
// up to 2^106), with planes large enough to split channels across
// goroutines, against math/big.
func TestContractionsAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for n := range 60 {
		bits := []int{8, 24, 50}[n%3]
		val := func() int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
		groups := 1 + r.IntN(4)
		d := 1 + r.IntN(8)
		C := groups * d
		p := contraction(uint32(groups), uint8(r.IntN(2*bits)), whg1.Round(r.IntN(3)))
		H, W := 1+r.IntN(48), 1+r.IntN(48)
		fill := func(c, h, w int) *tensor.T {
			x := tensor.New(tensor.Shape{C: c, H: h, W: w})
			for i := range x.Data {
				x.Data[i] = val()
			}
			return x
		}
		a, b := fill(C, H, W), fill(C, H, W)
		if n%2 == 0 {
			out := like(C, 1, d)
			err := gram(p, a, b, out)
			want, ok := bigContract(p, false, a, b)
			if !ok {
				expectRefusal(t, "gram past i64", err, refusal.ModelMismatch)
				continue
			}
			noErr(t, "gram", err)
			expect(t, "gram", out, want...)
		} else {
			w := fill(C, 1, d)
			out := like(C, H, W)
			err := apply(p, w, b, out)
			want, ok := bigContract(p, true, w, b)
			if !ok {
				expectRefusal(t, "apply past i64", err, refusal.ModelMismatch)
				continue
			}
			noErr(t, "apply", err)
			expect(t, "apply", out, want...)
		}
	}
}

// TestContractionBound puts rowBound at 2^63 − 1 and one step past it:
// A = (2^62, 2^62 − 1), B = (1, 1) sums to 2^63 − 1 on the int64 path;
// B = (1, 2) bounds 2^64 − 2, the 128-bit path, and sums to
// 2^62 + 2^63 − 2, which shift 1 floors to 3·2^61 − 1. A = (−2^63, −2^63)
// has Σ|a| = 2^64, past one word: with B = 0 the bound is 0, with B =
// (0, 1) it is 2^64 and the sum −2^63.
func TestContractionBound(t *testing.T) {
	for _, c := range []struct {
		a, b  []int64
		shift uint8
		fits  bool
		want  int64
	}{
		{[]int64{1 << 62, 1<<62 - 1}, []int64{1, 1}, 0, true, 1<<63 - 1},
		{[]int64{1 << 62, 1<<62 - 1}, []int64{1, 2}, 1, false, 3<<61 - 1},
		{[]int64{-1 << 63, -1 << 63}, []int64{0, 0}, 0, true, 0},
		{[]int64{-1 << 63, -1 << 63}, []int64{0, 1}, 0, false, -1 << 63},
	} {
		a, b := tn(1, 1, 2, c.a...), tn(1, 1, 2, c.b...)
		if got := rowBound(a.Data, 2, maxAbs(b.Data)); got != c.fits {
			t.Errorf("B %v: rowBound %v, want %v", c.b, got, c.fits)
		}
		out := like(1, 1, 1)
		noErr(t, "gram", gram(contraction(1, c.shift, whg1.Floor), a, b, out))
		expect(t, "gram at the bound", out, c.want)
		// The same sum as apply: C = 2, d = 2, V one position per
		// channel; channel 1's weights are zero.
		w := tn(2, 1, 2, c.a[0], c.a[1], 0, 0)
		v := tn(2, 1, 1, c.b...)
		out2 := like(2, 1, 1)
		noErr(t, "apply", apply(contraction(1, c.shift, whg1.Floor), w, v, out2))
		expect(t, "apply at the bound", out2, c.want, 0)
	}
}
