package drivers_test

import (
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/stage"
)

// memory is n deterministic bytes whose last is nonzero, so mans_decode's
// init finds its sentinel bit.
func memory(seed uint64, n int) []byte {
	r := setcorpus.NewRand(seed)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Next())
	}
	b[n-1] |= 0x80
	return b
}

// TestDecodeScaleByHand: with every weight and bias 0, each conv gives 0,
// so v[c] = gain[c] at every position (§13.6.1 steps 1–12), whatever z.
// Then, by hand (step 3), with likely = R_half_up(64·g, 6) = g:
//
//	g = 1000, flag unset: band 0, row 1: −80 → R_half_up(920, 7) = ⌊984/128⌋ = 7
//	g = 1000, flag set:   band 0, row 0: −31 → R_half_up(969, 7) = ⌊1033/128⌋ = 8
//	g = 2000, flag unset: band 3, row 1: 130 → R_half_up(2130, 7) = ⌊2194/128⌋ = 17
//	g = 100 (not coded: 100 ≤ 382): −80 → R_half_up(20, 7) = 0
//	g = 0, flag unset: −80 → R_half_up(−80, 7) = ⌊−16/128⌋ = −1 → clamp 0
func TestDecodeScaleByHand(t *testing.T) {
	zero := func(cz int) [3]drivers.ScaleBlock {
		b := setcorpus.JPEGAIBlocks(1, cz)
		for i := range b {
			b[i].W, b[i].Bias = make([]int64, len(b[i].W)), make([]int64, len(b[i].Bias))
		}
		return b
	}
	n := setcorpus.JPEGAINorm()
	n.GainY = make([]int64, drivers.ScaleChannelsY)
	n.GainUV = make([]int64, drivers.ScaleChannelsUV)
	copy(n.GainY, []int64{1000, 1000, 2000, 100})
	seg := drivers.ScaleSegments{SOZ: memory(11, 1<<14), SORP: memory(12, 1<<14), SORS: memory(13, 64),
		GRFSY: make([]bool, drivers.ScaleChannelsY), GRFSUV: make([]bool, drivers.ScaleChannelsUV)}
	seg.GRFSY[1] = true
	y, uv, err := drivers.DecodeScale(cpu, drivers.EncodeScaleWeights(drivers.ScaleChannelsY, zero(drivers.ScaleChannelsY)), drivers.EncodeScaleWeights(drivers.ScaleChannelsUV, zero(drivers.ScaleChannelsUV)), drivers.EncodeNorm(n), seg)
	if err != nil {
		t.Fatal(err)
	}
	if y.V.Shape.C != drivers.ScaleChannelsY || y.V.Shape.H != 16 || uv.Z.Shape.C != drivers.ScaleChannelsUV || uv.Z.Shape.H != 4 {
		t.Fatalf("shapes: v %v, uv z %v", y.V.Shape, uv.Z.Shape)
	}
	want := []struct{ v, likely, mask, sigma int64 }{{1000, 1000, 1, 7}, {1000, 1000, 1, 8}, {2000, 2000, 1, 17}, {100, 100, 0, 0}, {0, 0, 0, 0}}
	for c, w := range want {
		for j := range 256 {
			k := c*256 + j
			if y.V.Data[k] != w.v || y.Likely.Data[k] != w.likely || y.Mask.Data[k] != w.mask || y.SigmaIdx.Data[k] != w.sigma {
				t.Fatalf("channel %d position %d: v %d likely %d mask %d σ %d, want %+v", c, j,
					y.V.Data[k], y.Likely.Data[k], y.Mask.Data[k], y.SigmaIdx.Data[k], w)
			}
		}
	}
	nz := 0
	for _, v := range y.YQ.Data {
		if v != 0 {
			nz++
		}
	}
	if nz == 0 { // 768 coded positions over 16 KiB of stream decode some symbols
		t.Error("the luma latent decoded no symbol")
	}
	for _, p := range []*drivers.ScalePlane{y, uv} {
		for _, z := range p.Z.Data {
			if z < -31 || z > 32 {
				t.Fatalf("z = %d is outside [−31, 32]", z)
			}
		}
		for k, m := range p.Mask.Data {
			if m == 0 && p.YQ.Data[k] != 0 {
				t.Fatalf("y_q is %d at an unmasked position", p.YQ.Data[k])
			}
		}
	}
	// A SOZ whose last 8 bytes hold no sentinel bit: stream_exhausted (E8).
	seg.SOZ = make([]byte, 8)
	if _, _, err := drivers.DecodeScale(cpu, drivers.EncodeScaleWeights(drivers.ScaleChannelsY, zero(drivers.ScaleChannelsY)), drivers.EncodeScaleWeights(drivers.ScaleChannelsUV, zero(drivers.ScaleChannelsUV)), drivers.EncodeNorm(n), seg); codeOf(err) != stage.StreamExhausted {
		t.Errorf("a zero SOZ: %v", err)
	}
}

func TestSatAdd(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{1<<63 - 100, 181, 1<<63 - 1}, {-1 << 63, -80, -1 << 63}, {1<<63 - 181, 181, 1<<63 - 1}, {5, -80, -75},
	} {
		if got := drivers.SatAdd(c.a, c.b); got != c.want {
			t.Errorf("drivers.SatAdd(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
