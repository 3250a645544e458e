package cpuref

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestConvTransposeSharedAgainstGather runs random conv_transposes whose
// operands fit i16 (i8 and wider, interval ends drawn often, u8 inputs
// for Mac8) on the one packing all phases share (sharedRows) and compares
// each output with the gather form term by term (convTExact): 3×3 s2 and
// 5×5 s2 pad 2 output-pad 1 (the synthesis shapes) and random kernels,
// strides and paddings, phases with no tap included. Every case must take
// the shared packing, in quads when Mac8 is on and the operands allow it.
func TestConvTransposeSharedAgainstGather(t *testing.T) {
	onEachMac(t, convTSharedAgainstGather)
}

func convTSharedAgainstGather(t *testing.T, eight bool) {
	r := rand.New(rand.NewPCG(71, 72))
	took8 := 0
	for n := range 200 {
		bits := []int{8, 12, 16}[n%3]
		lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
		xlo, xhi := lo+1, hi // chunk16 takes [−X, X]
		if bits == 8 && r.IntN(2) == 0 {
			xlo, xhi = 0, 255
		}
		cin, cout := 1+r.IntN(9), 1+r.IntN(9)
		p := &whg1.ConvT{Cout: uint32(cout), KH: uint32(1 + r.IntN(5)), KW: uint32(1 + r.IntN(5)),
			SH: uint32(1 + r.IntN(3)), SW: uint32(1 + r.IntN(3)), PH: uint32(r.IntN(3)), PW: uint32(r.IntN(3)),
			OPH: uint32(r.IntN(3)), OPW: uint32(r.IntN(3)),
			RQ: randRQ(r, cout, func() uint8 { return uint8(r.IntN(20)) }, func() int64 { return r.Int64N(1<<20) - 1<<19 })}
		switch n % 4 {
		case 0:
			p.KH, p.KW, p.SH, p.SW, p.PH, p.PW, p.OPH, p.OPW = 3, 3, 2, 2, 1, 1, 1, 1
		case 1:
			p.KH, p.KW, p.SH, p.SW, p.PH, p.PW, p.OPH, p.OPW = 5, 5, 2, 2, 2, 2, 1, 1
		}
		H, W := 1+r.IntN(12), 1+r.IntN(40)
		ho := (H-1)*int(p.SH) + int(p.KH+p.OPH) - 2*int(p.PH)
		wo := (W-1)*int(p.SW) + int(p.KW+p.OPW) - 2*int(p.PW)
		if ho < 1 || wo < 1 {
			continue
		}
		p.W = make([]int64, cin*cout*int(p.KH*p.KW))
		for i := range p.W {
			p.W[i] = atEnds(r, lo, hi)
		}
		x := tensor.New(tensor.Shape{C: cin, H: H, W: W})
		for i := range x.Data {
			x.Data[i] = atEnds(r, xlo, xhi)
		}
		k := newConvT(p, cin)
		X, nonneg := extent(x.Data)
		_, release, ok := k.sharedRows(val{T: x}, X, nonneg)
		if !ok {
			t.Fatalf("case %d (%d bits): not on the shared packing", n, bits)
		}
		release()
		if _, on8 := k.phases[0].chunk8(X, nonneg); on8 {
			took8++
		}
		got, want := like(cout, ho, wo), like(cout, ho, wo)
		err := k.run(x, got)
		if werr := convTExact(k, x, want); werr != nil {
			expectRefusal(t, "shared past i64", err, refusal.ModelMismatch)
			continue
		}
		noErr(t, "shared conv_transpose", err)
		if !slices.Equal(got.Data, want.Data) {
			t.Fatalf("case %d (conv_transpose %+v on %v): got %v, want %v", n, *p, x.Shape, got.Data, want.Data)
		}
	}
	if eight != (took8 > 10) {
		t.Fatalf("%d cases took Mac8 with Mac8 %v", took8, eight)
	}
}
