package cpuref

import (
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// The exp_neg_q16 values below are worked from §2:
//
//	u = 0: n = 0, r = 0, t = 88670, t² = 7862368900, q = 119970,
//	       c = 2818695150, y = 43009 + 22544 = 65553
//	u = 45425: n = 0, r = −45425, t = 43245, t² = 1870130025, q = 28535,
//	       c = 670429825, y = 10229 + 22544 = 32773
//	u = 45426: n = 1, r = 0, y = 65553, ⌊65553/2⌋ = 32776
//	u = 16·45426: ⌊65553/2^16⌋ = 1; u = 17·45426: 0
//	u = 62·45426 + 45425: n = 62, y = 32773, ⌊32773/2^62⌋ = 0
//	u = 63·45426: n = 63 → 0 by the rule, with no shift formed
func TestExpNegQ16(t *testing.T) {
	for _, c := range []struct {
		u    uint64
		want int64
	}{
		{0, 65553}, {1, 65552}, {45425, 32773}, {45426, 32776},
		{16 * 45426, 1}, {15 * 45426, 2}, {17 * 45426, 0},
		{62*45426 + 45425, 0}, {62 * 45426, 0}, {63 * 45426, 0},
		{1 << 63, 0}, {^uint64(0), 0},
	} {
		if got := expNegQ16(c.u); got != c.want {
			t.Errorf("exp_neg_q16(−%d) = %d, want %d", c.u, got, c.want)
		}
	}
}

func TestRsqrtQ16(t *testing.T) {
	// isqrt(26) = 5 → ⌊2^32/5⌋ = 858993459; isqrt(0) = 0 → 0;
	// isqrt(2^64 − 1) = 2^32 − 1 → 1; isqrt(2^66) = 2^33 → 0.
	for _, c := range []struct {
		hi, lo uint64
		want   int64
	}{{0, 26, 858993459}, {0, 0, 0}, {0, 1, 1 << 32}, {0, ^uint64(0), 1}, {4, 0, 0}} {
		if got := rsqrtQ16(c.hi, c.lo); got != c.want {
			t.Errorf("rsqrt_q16(%d·2^64 + %d) = %d, want %d", c.hi, c.lo, got, c.want)
		}
	}
}

func TestSigmoid(t *testing.T) {
	// v ≥ 0: ⌊2^32 / (2^16 + e)⌋; v < 0: ⌊e·2^16 / (2^16 + e)⌋, e = exp_neg_q16(−|v|):
	// 0: e = 65553, 4294967296 / 131089 → 32763;
	// 45426: e = 32776, 4294967296 / 98312 → 43687;
	// −45426: 32776·65536 / 98312 = 2148007936 / 98312 → 21848;
	// 2^63 − 1 and −2^63: e = 0 → 65536 and 0.
	out := like(1, 1, 5)
	sigmoid(tn(1, 1, 5, 0, 45426, -45426, 1<<63-1, -1<<63), out)
	expect(t, "sigmoid", out, 32763, 43687, 21848, 65536, 0)
}

func TestElu(t *testing.T) {
	// elu(0) = ⌊17·α / 2^16⌋: α = 3·2^16 → 51; α = −5 → ⌊−85/65536⌋ = −1.
	out := like(1, 1, 1)
	noErr(t, "elu", elu(&whg1.Elu{Alpha: 3 << 16}, tn(1, 1, 1, 0), out))
	expect(t, "elu(0), α = 3·2^16", out, 51)
	noErr(t, "elu", elu(&whg1.Elu{Alpha: -5}, tn(1, 1, 1, 0), out))
	expect(t, "elu(0), α = −5", out, -1)
	// α = 2^16: v = 5 → 5; v = −45426 → 32776 − 65536 = −32760;
	// v = −2^63 → e = 0 → −α.
	out = like(1, 1, 3)
	noErr(t, "elu", elu(&whg1.Elu{Alpha: 1 << 16}, tn(1, 1, 3, 5, -45426, -1<<63), out))
	expect(t, "elu", out, 5, -32760, -1<<16)
	// α = −2^63, v = −2^63: e = 0, ⌊−2^63·(−2^16) / 2^16⌋ = 2^63 passes i64.
	err := elu(&whg1.Elu{Alpha: -1 << 63}, tn(1, 1, 1, -1<<63), like(1, 1, 1))
	expectRefusal(t, "elu past i64", err, refusal.ModelMismatch)
}
