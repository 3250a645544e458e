//go:build cgo

package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// TestIGDNTiles compares igdn with cpuref (==) on tiles cut by the plane's
// end, channel counts that leave a partial chunk of γ rows, γ across all
// of i32 with gf 0, 31, 32 and 63, and, under a shared budget too small for
// one position, the one-thread-per-output kernel.
func TestIGDNTiles(t *testing.T) { forEachForm(t, testIGDNTiles) }

func testIGDNTiles(t *testing.T) {
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
	for k, sh := range []shape{{1, 1, 1}, {20, 7, 9}, {3, 13, 11}, {17, 1, 70}, {40, 5, 5}, {64, 9, 8}, {128, 3, 5}} {
		for _, gf := range []uint32{0, 8, 31, 32, 63} {
			// Each case's igdnTerm: TERM 2 at gf 0 (γ·x² of either sign
			// inside i32), TERM 1 at gf 8 (γ in [0, 2^10]: γ·x² in
			// [0, 2^30]), TERM 0 past it.
			lo, hi := int64(i32min), int64(i32max)
			switch gf {
			case 0:
				lo, hi = -1<<4, 1<<4
			case 8:
				lo, hi = 0, 1<<10
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
	// In 3520 bytes, 20 channels take 32 positions (2560 bytes of x²) and
	// 12 γ rows, with 8 threads sharing them: rows 12 to 15 of the
	// threads' second turn are past the chunk.
	saved := d.lim.MaxSharedBytes
	defer func() { d.lim.MaxSharedBytes = saved }()
	if pt, px, rg, ib, _ := igdnTile(20, 3520); pt != 8 || px != 4 || rg != 8 || ib != 12 {
		t.Fatalf("igdnTile(20, 3520) = %d, %d, %d, %d", pt, px, rg, ib)
	}
	d.lim.MaxSharedBytes = 3520
	runCases(t, cases[5:10])
	// A device offering 100 bytes of shared memory has no room for one
	// position's x² and one γ row of 20 channels (160 bytes).
	if _, _, _, _, ok := igdnTile(20, 100); ok {
		t.Fatalf("igdnTile(20, 100) found a tile")
	}
	d.lim.MaxSharedBytes = 100
	runCases(t, cases[5:10])
}

// TestIGDNTile checks igdnTile's picks: 64 channels in 32 KiB take 64
// positions (256 bytes of x² each: 16 KiB), 4 a thread, and 16 γ rows
// (4 KiB), since 128 positions would leave no room for a row, with 4
// threads sharing the rows (64 threads); in 16 KiB, 32 positions and 8
// threads sharing rows; 128 channels in 32 KiB likewise; 3 channels take
// 256 positions, 4 a thread; 4096 channels take one position and one row
// (32 KiB); 4097 take none.
func TestIGDNTile(t *testing.T) {
	for _, c := range []struct{ c, shared, pt, px, rg, ib int }{
		{64, 32 << 10, 16, 4, 4, 16},
		{64, 16 << 10, 8, 4, 8, 16},
		{128, 32 << 10, 8, 4, 8, 16},
		{3, 32 << 10, 64, 4, 1, 3},
		{4096, 32 << 10, 1, 1, 1, 1},
		{4097, 32 << 10, 0, 0, 0, 0},
	} {
		pt, px, rg, ib, ok := igdnTile(c.c, c.shared)
		if pt != c.pt || px != c.px || rg != c.rg || ib != c.ib || ok != (c.pt > 0) {
			t.Errorf("igdnTile(%d, %d) = %d, %d, %d, %d, %v; want %d, %d, %d, %d", c.c, c.shared, pt, px, rg, ib, ok, c.pt, c.px, c.rg, c.ib)
		}
	}
}

// TestIGDNTerm checks the term variant igdnTerm reads from the certificate
// (§8.3's igdn.gx2): inputs in [−2^10, 2^10] (x² ≤ 2^20) with γ in
// [0, 2^10] give γ·x² ≤ 2^30 (TERM 1), or at gf 32 TERM 2 (no logical
// shift by 32); γ in [−2^10, 2^10] gives TERM 2; γ = 2^11 makes 2^31,
// past i32 (TERM 0).
func TestIGDNTerm(t *testing.T) {
	for _, c := range []struct {
		glo, ghi int64
		gf       uint32
		want     string
	}{
		{0, 1 << 10, 8, "TERM 1"},
		{0, 1 << 10, 32, "TERM 2"},
		{-1 << 10, 1 << 10, 8, "TERM 2"},
		{0, 1 << 11, 8, "TERM 0"},
	} {
		g := oneOp(whg1.OpIGDN, &whg1.IGDN{GF: c.gf, Frac: 6, Gamma: []int64{c.glo, c.ghi, c.ghi, c.glo}, Beta: []int64{1, 1}},
			[]in{{2, -1 << 10, 1 << 10, 2, 2}}, 2)
		_, cert, err := certify.Load(whg1.Encode(g), certify.Acc32)
		if err != nil {
			t.Fatal(err)
		}
		if got := igdnTerm(&cert.Graphs[0].Nodes[0], c.gf); got != c.want {
			t.Errorf("γ in [%d, %d], gf %d: %s, want %s", c.glo, c.ghi, c.gf, got, c.want)
		}
	}
}
