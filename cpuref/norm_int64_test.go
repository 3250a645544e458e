package cpuref

import (
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestL2FitsEdges checks l2Fits at its two bounds: X = 2^31 − 1 with
// L = 2 (2·(2^31 − 1)² = 2^63 − 2^33 + 2 ≤ 2^63 − 1) fits, X = 2^31 does
// not; L = 8, X = 2^30 gives L·X² = 2^63, one past i63.
func TestL2FitsEdges(t *testing.T) {
	for _, c := range []struct {
		L    int
		X    uint64
		fits bool
	}{
		{2, 1<<31 - 1, true}, {1, 1 << 31, false}, {8, 1 << 30, false}, {7, 1 << 30, true},
	} {
		if got := l2Fits(c.L, c.X); got != c.fits {
			t.Errorf("l2Fits(%d, %d) = %v, want %v", c.L, c.X, got, c.fits)
		}
	}
}

// TestL2Norm64AgainstWide compares l2norm64 with the 128-bit l2normWide
// (checked against math/big in norm_test.go) on random channels at
// l2Fits' edge: X the largest with L·X² ≤ 2^63 − 1 (or a random smaller
// one), values at ±X a quarter of the time, ε at 1 and 2^64 − 1.
func TestL2Norm64AgainstWide(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for k := range igdnCases {
		L := 1 + r.IntN(40)
		X := isqrt64(uint64(1<<63-1) / uint64(L))
		X = min(X, 1<<31-1)
		if r.IntN(2) == 0 {
			X = r.Uint64N(X + 1)
		}
		if !l2Fits(L, X) {
			t.Fatalf("case %d: L %d, X %d outside l2Fits", k, L, X)
		}
		eps := []uint64{1, 1<<64 - 1, r.Uint64(), r.Uint64N(1 << 20)}[r.IntN(4)]
		src := make([]int64, L)
		for i := range src {
			src[i] = draw(r, -int64(X), int64(X))
		}
		got, want := make([]int64, L), make([]int64, L)
		l2norm64(eps, src, got)
		noErr(t, "l2normWide", l2normWide(eps, src, want))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("case %d: L %d X %d ε %d: out[%d] = %d, want %d (%v)", k, L, X, eps, i, got[i], want[i], src)
			}
		}
	}
}

// TestLayerNorm64AgainstWide compares layernorm64 with the 128-bit
// layernormWide (checked against math/big in norm_test.go) on random
// tensors at layernormFits' edges: X the largest with C·4X² ≤ 2^63 − 1
// (capped at 2^29) or smaller, γ the largest the ln.ng bound allows for
// that X, β at ±B, ε at its ends; each case asserts layernormFits holds.
func TestLayerNorm64AgainstWide(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for k := range igdnCases {
		C, n := 1+r.IntN(6), 1+r.IntN(4)
		X := min(isqrt64(uint64(1<<63-1)/uint64(4*C)), 1<<29)
		if r.IntN(2) == 0 {
			X = r.Uint64N(X + 1)
		}
		B := uint64(r.Int64N(1 << 46))
		G := (uint64(1<<63-1) - (B+1)<<16) / max(2*X<<16, 1)
		if r.IntN(2) == 0 {
			G = r.Uint64N(G + 1)
		}
		G = min(G, 1<<63-1)
		p := &whg1.LayerNorm{Eps: []uint64{1, 1<<64 - 1, r.Uint64(), r.Uint64N(1 << 20)}[r.IntN(4)]}
		for range C {
			p.Gamma = append(p.Gamma, draw(r, -int64(G), int64(G)))
			p.Beta = append(p.Beta, draw(r, -int64(B), int64(B)))
		}
		x := tensor.New(tensor.Shape{C: C, H: 1, W: n})
		for i := range x.Data {
			x.Data[i] = draw(r, -int64(X), int64(X))
		}
		if !layernormFits(p, C, maxAbs(x.Data)) {
			t.Fatalf("case %d: C %d X %d G %d B %d outside layernormFits", k, C, X, G, B)
		}
		got, want := tensor.New(x.Shape), tensor.New(x.Shape)
		layernorm64(p, x, got)
		noErr(t, "layernormWide", layernormWide(p, x, want))
		for i := range want.Data {
			if got.Data[i] != want.Data[i] {
				t.Fatalf("case %d: C %d X %d ε %d: out[%d] = %d, want %d", k, C, X, p.Eps, i, got.Data[i], want.Data[i])
			}
		}
	}
}

// TestLayerNormFitsEdges checks layernormFits' bounds one at a time: C = 1,
// X = 2^29 fits (4·2^58 = 2^60), 2^29 + 1 does not; C = 8, X = 2^29 gives
// 2^63, one past; γ = ⌊(2^63 − 1 − 2^16) / 2^46⌋ = 131071 with β = 0
// at X = 2^29 fits and one more does not.
func TestLayerNormFitsEdges(t *testing.T) {
	ln := func(g, b int64) *whg1.LayerNorm {
		return &whg1.LayerNorm{Eps: 1, Gamma: []int64{g}, Beta: []int64{b}}
	}
	if !layernormFits(ln(1, 0), 1, 1<<29) || layernormFits(ln(1, 0), 1, 1<<29+1) {
		t.Error("X bound")
	}
	l8 := &whg1.LayerNorm{Eps: 1, Gamma: make([]int64, 8), Beta: make([]int64, 8)}
	if layernormFits(l8, 8, 1<<29) || !layernormFits(l8, 7, 1<<29) {
		t.Error("C·4X² bound")
	}
	if !layernormFits(ln(131071, 0), 1, 1<<29) || layernormFits(ln(131072, 0), 1, 1<<29) {
		t.Error("γ bound")
	}
	if layernormFits(ln(0, 1<<46+1), 1, 0) || !layernormFits(ln(0, 1<<46), 1, 0) {
		t.Error("β bound")
	}
}
