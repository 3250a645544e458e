//go:build cgo

package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// TestIGDNTiles compares igdn with cpuref (==) on tiles cut by the plane's
// end, channel counts that leave a partial chunk of γ rows, γ across all
// of i32 with gf 0, 31, 32 and 63, and, under a shared budget too small for
// one position, the one-thread-per-output kernel.
func TestIGDNTiles(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(31, 32))
	// Each case keeps igdn.x2, every term, N and x·r within i32: |x| ≤
	// 2^10, so x² ≤ 2^20; γ across i32 with gf ≥ 31 makes each term at
	// most 2^51 / 2^31 = 2^20, and 40 of them with β ≤ 2^20 stay below
	// 2^26, so r < 2^13 and |x·r| < 2^23. gf 0 takes γ in [−2^4, 2^4].
	type shape struct {
		c    uint32
		h, w int
	}
	var cases []opCase
	for k, sh := range []shape{{1, 1, 1}, {20, 7, 9}, {3, 13, 11}, {17, 1, 70}, {40, 5, 5}, {64, 9, 8}} {
		for _, gf := range []uint32{0, 31, 32, 63} {
			lo, hi := int64(i32min), int64(i32max)
			if gf == 0 {
				lo, hi = -1<<4, 1<<4
			}
			n := int(sh.c)
			cases = append(cases, opCase{
				name: fmt.Sprintf("igdn_%d_c%d_%dx%d_gf%d", k, sh.c, sh.h, sh.w, gf), code: whg1.OpIGDN,
				params: &whg1.IGDN{GF: gf, Frac: uint32(k * 7 % 40), Gamma: randInts(r, n*n, lo, hi), Beta: randInts(r, n, -1<<20, 1<<20)},
				ins:    []in{{sh.c, -1 << 10, 1 << 10, sh.h, sh.w}}, outC: []uint32{sh.c},
			})
		}
	}
	runCases(t, cases)
	// A device offering 100 bytes of shared memory has no room for one
	// position's x² and one γ row of 20 channels (160 bytes).
	if _, _, _, ok := igdnTile(20, 100); ok {
		t.Fatalf("igdnTile(20, 100) found a tile")
	}
	saved := d.lim.MaxSharedBytes
	d.lim.MaxSharedBytes = 100
	defer func() { d.lim.MaxSharedBytes = saved }()
	runCases(t, cases[4:8])
}

// TestIGDNTile checks igdnTile's picks: 64 channels in 32 KiB take 64
// positions (256 bytes of x² each: 16 KiB) and 16 γ rows (4 KiB), since
// 128 positions would leave no room for a row; in 16 KiB, 32 positions;
// 4096 channels take one position and one row (32 KiB); 4097 take none.
func TestIGDNTile(t *testing.T) {
	for _, c := range []struct{ c, shared, pt, px, ib int }{
		{64, 32 << 10, 16, 4, 16},
		{64, 16 << 10, 8, 4, 16},
		{3, 32 << 10, 64, 4, 3},
		{4096, 32 << 10, 1, 1, 1},
		{4097, 32 << 10, 0, 0, 0},
	} {
		pt, px, ib, ok := igdnTile(c.c, c.shared)
		if pt != c.pt || px != c.px || ib != c.ib || ok != (c.pt > 0) {
			t.Errorf("igdnTile(%d, %d) = %d, %d, %d, %v; want %d, %d, %d", c.c, c.shared, pt, px, ib, ok, c.pt, c.px, c.ib)
		}
	}
}
