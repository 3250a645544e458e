package dot

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// rqCase draws a row's rq for sums up to B in magnitude: half the time
// Mult 1 and Pre 0 (a shift alone, which the 32-bit epilogue takes where
// the sums allow), else Mult and Pre up to 2^20 (so (v + Pre)·Mult stays
// within RQ64's 2^62); a shift that puts
// most results near i8 (so that both fitting and not fitting come up), a
// small Post or, now and then, one that makes y wrap or one near 2^62
// (whose y must not be read as wrapped), and half the time a
// clamp whose ends lie in or just past i8.
func rqCase(r *rand.Rand, B int64, unsigned bool) RQ64 {
	q := RQ64{Round: uint8(r.IntN(3)), Mult: draw(r, -1<<r.IntN(21), 1<<r.IntN(21)), Pre: draw(r, -1<<r.IntN(21), 1<<r.IntN(21))}
	if r.IntN(2) == 0 { // a shift alone: the 32-bit epilogue where the sums allow
		q.Mult, q.Pre = 1, 0
	}
	top := bits.Len64(uint64((B + absI(q.Pre)) * max(1, absI(q.Mult))))
	q.Shift = uint(min(62, max(0, top-7+r.IntN(5)-2)))
	q.Post = draw(r, -200, 200)
	if r.IntN(2) == 0 {
		a, b := draw(r, -140, 140), draw(r, -140, 140)
		if unsigned {
			a, b = draw(r, -12, 268), draw(r, -12, 268)
		}
		q.Clamp, q.Lo, q.Hi = true, min(a, b), max(a, b)
	}
	switch r.IntN(16) {
	case 0:
		q.Post = math.MaxInt64 - r.Int64N(4)
	case 1, 2: // y's bit 62 flips where q's and Post's do not: no wrap
		q.Post = draw(r, 1<<62-300, 1<<62+300)
		q.Clamp, q.Lo, q.Hi = true, -100, 100
	}
	return q
}

// wantRQ8 is what Tile16RQ must store for sum v under q: rqBig's y
// clamped, and whether y fitted i64 and the clamped y i8 (u8 when
// unsigned, whose byte's bits it returns).
func wantRQ8(v int64, q RQ64, unsigned bool) (int8, bool) {
	y, ok := rqBig(v, q)
	if q.Clamp {
		y = min(max(y, q.Lo), q.Hi)
	}
	if unsigned {
		return int8(uint8(y)), ok && y >= 0 && y <= math.MaxUint8
	}
	return int8(y), ok && y >= math.MinInt8 && y <= math.MaxInt8
}

// tileRQCase is one random case of Tile16RQ or Tile8RQ: its operands'
// sums (the definition's, in int64) and rows' rq, checked against the
// kernel's bytes; run calls the kernel.
func tileRQCheck(t *testing.T, r *rand.Rand, what string, n int, sums [TileRows][]int64, run func(dst []int8, ldb int, acc []int64, q *TileRQ) bool) (fitted, in32 bool) {
	t.Helper()
	var B int64
	for _, s := range sums {
		for _, v := range s {
			B = max(B, absI(v))
		}
	}
	unsigned := r.IntN(2) == 0
	var qs [TileRows]RQ64
	for i := range qs {
		qs[i] = rqCase(r, B, unsigned)
	}
	ldb := n + r.IntN(3)*Block
	const mark = -0x5b
	dst := make([]int8, (TileRows-1)*ldb+n+r.IntN(9))
	for i := range dst {
		dst[i] = mark
	}
	wantOK := true
	want := make([][]int8, TileRows)
	for i := range TileRows {
		want[i] = make([]int8, n)
		for j, v := range sums[i] {
			var ok bool
			want[i][j], ok = wantRQ8(v, qs[i], unsigned)
			wantOK = wantOK && ok
		}
	}
	acc := make([]int64, TileRows*n)
	tq := NewTileRQ(&qs, uint64(B), unsigned)
	ok := run(dst, ldb, acc, tq)
	what = fmt.Sprintf("%s, rq %+v, u8 %v", what, qs, unsigned)
	if ok != wantOK {
		t.Fatalf("%s: ok %v, want %v", what, ok, wantOK)
	}
	for i, v := range dst {
		if (i >= (TileRows-1)*ldb+n || ldb > 0 && i%ldb >= n) && v != mark {
			t.Fatalf("%s: byte %d outside the rows written", what, i)
		}
	}
	if ok {
		for i := range TileRows {
			for j, v := range dst[i*ldb:][:n] {
				if v != want[i][j] {
					t.Fatalf("%s: row %d column %d: got %d, want %d (sum %d)", what, i, j, v, want[i][j], sums[i][j])
				}
			}
		}
	}
	return ok, tq.in32
}

// TestTile16RQRandom compares Tile16RQ, on every implementation, with the
// definition (Mac16's sums, rqBig, the clamp, the i8 check) on 10^5 random
// cases (10^4 with -short or -race) inside Choose16's bounds, their ends
// drawn often, at Choose16's chunk (every tap in one chunk: the fused
// kernels) or a smaller one (the composed path), and checks both answers
// come up.
func TestTile16RQRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) { tileRQRandom(t, mac16, 9) })
}

// TestTile8RQRandom is TestTile16RQRandom for Tile8RQ, inside Choose8's
// bounds.
func TestTile8RQRandom(t *testing.T) {
	forEachImpl8(t, func(t *testing.T) { tileRQRandom(t, mac8, 11) })
}

// tileRQRandom is TestTile16RQRandom for kernel k, its cases drawn from
// seed.
func tileRQRandom[E int16 | uint8](t *testing.T, k kernel[E], seed uint64) {
	cases := randomCases()
	r := rand.New(rand.NewPCG(seed, seed+1))
	fits, fits32 := 0, 0
	for c := 0; c < cases; {
		rc, ok := k.newCase(r)
		if !ok {
			continue
		}
		c++
		w := make([]uint32, TileRows*len(rc.off))
		var sums [TileRows][]int64
		for i, wi := range rc.ws {
			for j, wj := range wi {
				w[TileRows*j+i] = wj
			}
			sums[i] = make([]int64, rc.n)
			k.ref(sums[i], rc.x, rc.off, wi)
		}
		ok, in32 := tileRQCheck(t, r, fmt.Sprintf("case %d (%s)", c, rc), rc.n, sums, func(dst []int8, ldb int, acc []int64, q *TileRQ) bool {
			return k.tileRQ(dst, ldb, acc, rc.n, rc.x, rc.taps, w, rc.chunk, q)
		})
		if ok {
			fits++
		}
		if in32 {
			fits32++
		}
	}
	if fits < cases/10 || fits > cases*9/10 || fits32 < cases/50 || fits32 > cases*9/10 {
		t.Fatalf("%d of %d cases fitted, %d had the 32-bit epilogue: want both answers and both forms often", fits, cases, fits32)
	}
}

// TestTileRQIn32 checks NewTileRQ's choice of the 32-bit epilogue at the
// ends of its bounds (B + 2^s ≤ 2^31 − 1, ⌊B/2^s⌋ + 1 + |Post| ≤ 2^31 − 1,
// s ≤ 30, Pre 0, Mult 1 in every row) and the clamp's saturated ends.
func TestTileRQIn32(t *testing.T) {
	const m32 = 1<<31 - 1
	for _, c := range []struct {
		name string
		q    RQ64
		B    uint64
		want bool
	}{
		{"B at its end", RQ64{Mult: 1, Shift: 8}, m32 - 1<<8, true},
		{"B past it", RQ64{Mult: 1, Shift: 8}, m32 - 1<<8 + 1, false},
		{"Post at its end", RQ64{Mult: 1, Shift: 4, Post: m32 - 1 - 1000>>4}, 1000, true},
		{"Post past it", RQ64{Mult: 1, Shift: 4, Post: m32 - 1000>>4}, 1000, false},
		{"negative Post at its end", RQ64{Mult: 1, Shift: 4, Post: -(m32 - 1 - 1000>>4)}, 1000, true},
		{"negative Post past it", RQ64{Mult: 1, Shift: 4, Post: -(m32 - 1000>>4)}, 1000, false},
		{"shift 30", RQ64{Mult: 1, Shift: 30}, 1000, true},
		{"shift 31", RQ64{Mult: 1, Shift: 31}, 0, false},
		{"shift 40", RQ64{Mult: 1, Shift: 40}, 0, false},
		{"Pre", RQ64{Mult: 1, Pre: 1}, 0, false},
		{"Mult", RQ64{Mult: 2}, 0, false},
	} {
		var qs [TileRows]RQ64
		for i := range qs {
			qs[i] = RQ64{Mult: 1}
		}
		qs[2] = c.q
		if got := NewTileRQ(&qs, c.B, false).in32; got != c.want {
			t.Errorf("%s: in32 %v, want %v", c.name, got, c.want)
		}
	}
	qs := [TileRows]RQ64{{Mult: 1, Clamp: true, Lo: -1 << 40, Hi: 1 << 40}, {Mult: 1}, {Mult: 1, Clamp: true, Lo: -5, Hi: 7}, {Mult: 1}}
	tq := NewTileRQ(&qs, 0, true)
	for r, want := range [][2]int64{{-1 << 31, 1<<31 - 1}, {-1 << 31, 1<<31 - 1}, {-5, 7}, {-1 << 31, 1<<31 - 1}} {
		if _, _, _, _, _, lo, hi, _, off := tq.row(r); lo != want[0] || hi != want[1] || off != 0 {
			t.Errorf("row %d: clamp [%d, %d], offset %d; want [%d, %d], 0", r, lo, hi, off, want[0], want[1])
		}
	}
}

// TestTile16S32Random compares Tile16S32, on every implementation, with
// the definition (Mac16's sums, clamped) on 10^5 random cases (10^4 with
// -short or -race) inside Choose16's bounds, their ends drawn often, at
// Choose16's chunk or a smaller one: false, nothing written, exactly where
// the taps pass one chunk; the clamp's ends in, at and past i32's.
func TestTile16S32Random(t *testing.T) {
	forEachImpl(t, func(t *testing.T) { tileS32Random(t, mac16, 13) })
}

// TestTile8S32Random is TestTile16S32Random for Tile8S32.
func TestTile8S32Random(t *testing.T) {
	forEachImpl8(t, func(t *testing.T) { tileS32Random(t, mac8, 15) })
}

func tileS32Random[E int16 | uint8](t *testing.T, k kernel[E], seed uint64) {
	cases := randomCases()
	r := rand.New(rand.NewPCG(seed, seed+1))
	ran := 0
	for c := 0; c < cases; {
		rc, ok := k.newCase(r)
		if !ok {
			continue
		}
		c++
		w := make([]uint32, TileRows*len(rc.off))
		var sums [TileRows][]int64
		for i, wi := range rc.ws {
			for j, wj := range wi {
				w[TileRows*j+i] = wj
			}
			sums[i] = make([]int64, rc.n)
			k.ref(sums[i], rc.x, rc.off, wi)
		}
		ends := []int64{math.MinInt64, math.MinInt32 - 1, math.MinInt32, -1 << 20, 0, 1 << 20, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64}
		lo, hi := ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
		if r.IntN(4) == 0 { // a clamp near the sums
			lo, hi = draw(r, -1<<16, 1<<16), draw(r, -1<<16, 1<<16)
		}
		ldb := rc.n + r.IntN(3)*Block
		const mark = -0x5b5b5b5b
		dst := make([]int32, (TileRows-1)*ldb+rc.n+r.IntN(9))
		for i := range dst {
			dst[i] = mark
		}
		want := len(rc.off) <= rc.chunk && lo <= hi && lo <= math.MaxInt32 && hi >= math.MinInt32
		what := fmt.Sprintf("case %d (%s), clamp [%d, %d]", c, rc, lo, hi)
		if got := k.tileS32(dst, ldb, rc.n, rc.x, rc.taps, w, rc.chunk, lo, hi); got != want {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i, v := range dst {
			row, col := 0, 0
			if ldb > 0 {
				row, col = i/ldb, i%ldb
			}
			if want && row < TileRows && col < rc.n {
				if e := min(max(sums[row][col], lo), hi); int64(v) != e {
					t.Fatalf("%s: row %d column %d: got %d, want %d", what, row, col, v, e)
				}
			} else if v != mark {
				t.Fatalf("%s: element %d written", what, i)
			}
		}
		if want {
			ran++
		}
	}
	if ran < cases/10 || ran > cases*9/10 {
		t.Fatalf("%d of %d cases ran: want both answers often", ran, cases)
	}
}
