package dot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestImplementations checks the build registered every kernel the
// machine's CPU flags call for, in the style of cryptotest's
// TestAllImplementations: a missing kernel is an error, not a skip.
func TestImplementations(t *testing.T) {
	if got, want := Implementations(), wantImpls(); !slices.Equal(got, want) {
		t.Fatalf("implementations %v, want %v (CPU flags)", got, want)
	}
	if want := wantImpls(); Selected() != want[len(want)-1] {
		t.Fatalf("dispatcher picked %s, want %s", Selected(), want[len(want)-1])
	}
}

// forEachWith runs f once per implementation this machine has for which
// has holds, as a subtest of its name, with *sel (one of the dispatcher's
// picks: best, best8, bestRQ, bestWide) set to it, and restores *sel after.
func forEachWith(t *testing.T, sel *Impl, has func(Impl) bool, f func(t *testing.T)) {
	saved := *sel
	defer func() { *sel = saved }()
	for _, im := range impls {
		if has(im) {
			*sel = im
			t.Run(im.Name, f)
		}
	}
}

// forEachImpl runs f once per implementation this machine has, with Mac16
// dispatched to it.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	forEachWith(t, &best, func(Impl) bool { return true }, f)
}

// TestChoose16 checks §6's K_c on hand-worked operand intervals.
func TestChoose16(t *testing.T) {
	for _, c := range []struct {
		o     Operands
		chunk int
		ok    bool
	}{
		// P = 128·128 = 2^14, K_c = ⌊(2^31 − 1)/2^14⌋ = 131071: 65535 taps.
		{Operands{-128, 127, -128, 127}, 65535, true},
		// P = 128·127 = 16256, K_c = 132104, an even K_c: 66052 taps.
		{Operands{-128, 127, -127, 127}, 66052, true},
		// P = 2^15, K_c = 65535: 32767 taps.
		{Operands{-1 << 15, 1<<15 - 1, -1, 1}, 32767, true},
		// P = 2^30, K_c = 1: one vpmaddwd pair of −2^15·−2^15 is 2^31.
		{Operands{-1 << 15, 1<<15 - 1, -1 << 15, 1<<15 - 1}, 0, false},
		// P = 2^15·(2^15 − 1), K_c = 2: one tap.
		{Operands{-1 << 15, 0, 0, 1<<15 - 1}, 1, true},
		// P = 0: K_c unbounded.
		{Operands{0, 0, -5, 5}, math.MaxInt32, true},
		// Outside i16, or an empty interval.
		{Operands{-1<<15 - 1, 0, 0, 1}, 0, false},
		{Operands{0, 1 << 15, 0, 1}, 0, false},
		{Operands{0, 1, -1<<15 - 1, 0}, 0, false},
		{Operands{0, 1, 0, 1 << 15}, 0, false},
		{Operands{1, 0, 0, 1}, 0, false},
	} {
		chunk, ok := Choose16(c.o)
		if chunk != c.chunk || ok != c.ok {
			t.Errorf("Choose16(%+v) = %d, %v; want %d, %v", c.o, chunk, ok, c.chunk, c.ok)
		}
	}
}

// ref is Mac16's definition in int64.
func ref(acc []int64, x []int16, off []int32, w []uint32) {
	for k, wk := range w {
		lo, hi := int64(int16(wk)), int64(int16(wk>>16))
		for t := range acc {
			acc[t] += lo*int64(x[int(off[k])+2*t]) + hi*int64(x[int(off[k])+2*t+1])
		}
	}
}

// draw is a value in [lo, hi], one of the ends a quarter of the time.
func draw(r *rand.Rand, lo, hi int64) int64 {
	switch r.IntN(8) {
	case 0:
		return lo
	case 1:
		return hi
	}
	return lo + r.Int64N(hi-lo+1)
}

// interval is a random sub-interval of i16 whose ends have up to 16 bits.
func interval(r *rand.Rand) (int64, int64) {
	b := 1 + r.IntN(16)
	lo, hi := -int64(1)<<(b-1), int64(1)<<(b-1)-1
	if r.IntN(4) == 0 {
		lo = 0 // a non-negative interval, as after a relu
	}
	a, c := draw(r, lo, hi), draw(r, lo, hi)
	return min(a, c), max(a, c)
}

// TestMac16Random compares every implementation with the definition on
// 10^5 random cases inside Choose16's bounds (10^4 with -short or -race), their
// interval ends drawn often, at the chunk Choose16 gives or a smaller one.
func TestMac16Random(t *testing.T) {
	cases := randomCases()
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for c := 0; c < cases; {
			rc, ok := mac16.newCase(r)
			if !ok {
				continue
			}
			c++
			acc := make([]int64, rc.n)
			for i := range acc {
				acc[i] = r.Int64N(1<<40) - 1<<39
			}
			mac16.check(t, r, fmt.Sprintf("case %d (%s)", c, rc), acc, rc)
		}
	})
}

// kernel is one of dot's kernel pairs under test: its one-row, tile and
// fused-tile forms, its definition in int64, and how its random cases are
// drawn: the operands a column takes, the intervals, the chunk rule, a
// tap's weight word and its taps.
type kernel[E int16 | uint8] struct {
	name    string
	one     func(acc []int64, x []E, taps *Taps, w []uint32, chunk int) bool
	tile    func(acc []int64, ld, n int, x []E, taps *Taps, w []uint32, chunk int) bool
	tileRQ  func(dst []int8, ldb int, acc []int64, n int, x []E, taps *Taps, w []uint32, chunk int, q *TileRQ) bool
	tileS32 func(dst []int32, ldb, n int, x []E, taps *Taps, w []uint32, chunk int, lo, hi int64) bool
	ref     func(acc []int64, x []E, off []int32, w []uint32)
	per     int
	draw    func(r *rand.Rand) Operands
	choose  func(Operands) (int, bool)
	word    func(r *rand.Rand, o Operands) uint32
	newTaps func(off []int32) (*Taps, bool)
}

var (
	mac16 = kernel[int16]{"Mac16", Mac16, Tile16, Tile16RQ, Tile16S32, ref, 2,
		func(r *rand.Rand) (o Operands) {
			o.WLo, o.WHi = interval(r)
			o.XLo, o.XHi = interval(r)
			return o
		}, Choose16,
		func(r *rand.Rand, o Operands) uint32 {
			return Pair(int16(draw(r, o.WLo, o.WHi)), int16(draw(r, o.WLo, o.WHi)))
		}, NewTaps}
	mac8 = kernel[uint8]{"Mac8", Mac8, Tile8, Tile8RQ, Tile8S32, ref8, 4,
		func(r *rand.Rand) (o Operands) {
			o.WLo, o.WHi = interval8(r, false)
			o.XLo, o.XHi = interval8(r, true)
			return o
		}, Choose8,
		func(r *rand.Rand, o Operands) uint32 {
			return Quad(int8(draw(r, o.WLo, o.WHi)), int8(draw(r, o.WLo, o.WHi)), int8(draw(r, o.WLo, o.WHi)), int8(draw(r, o.WLo, o.WHi)))
		}, NewTaps8}
)

// randCase is one random case of a kernel: operands in the intervals o,
// interval ends drawn often; the chunk rule's chunk or, half the time, a
// smaller one; n columns (up to 120: every column loop of every kernel);
// up to 19 taps anywhere in x; and TileRows rows of weights.
type randCase[E int16 | uint8] struct {
	o        Operands
	chunk, n int
	x        []E
	off      []int32
	taps     *Taps
	ws       [][]uint32
}

func (c randCase[E]) String() string {
	return fmt.Sprintf("%+v, chunk %d, %d taps, %d columns", c.o, c.chunk, len(c.off), c.n)
}

// newCase draws a case of k; ok is false when the chunk rule refuses the
// drawn intervals.
func (k kernel[E]) newCase(r *rand.Rand) (c randCase[E], ok bool) {
	c.o = k.draw(r)
	if c.chunk, ok = k.choose(c.o); !ok {
		return c, false
	}
	if r.IntN(2) == 0 {
		c.chunk = 1 + r.IntN(min(c.chunk, 8))
	}
	c.n = Block * r.IntN(16)
	c.x = make([]E, k.per*(c.n+r.IntN(40)))
	for i := range c.x {
		c.x[i] = E(draw(r, c.o.XLo, c.o.XHi))
	}
	c.off = make([]int32, r.IntN(20))
	for i := range c.off {
		c.off[i] = int32(k.per * r.IntN((len(c.x)-k.per*c.n)/k.per+1))
	}
	for range TileRows {
		w := make([]uint32, len(c.off))
		for i := range w {
			w[i] = k.word(r, c.o)
		}
		c.ws = append(c.ws, w)
	}
	c.taps, _ = k.newTaps(c.off)
	return c, true
}

// check compares the one-row form on acc with c's first weights, and the
// tile form on TileRows rows (weights c.ws, row r starting from acc
// rotated by r, rows ld apart with a random gap that must stay untouched)
// with the definition; what names the case in a failure.
func (k kernel[E]) check(t *testing.T, r *rand.Rand, what string, acc []int64, c randCase[E]) {
	t.Helper()
	x, off, taps, ws, chunk := c.x, c.off, c.taps, c.ws, c.chunk
	n := len(acc)
	ld := n + r.IntN(3)*Block
	rows := make([]int64, (TileRows-1)*ld+n+r.IntN(2))
	for i := range rows {
		rows[i] = r.Int64N(1 << 20)
	}
	for i := range TileRows {
		copy(rows[i*ld:], append(slices.Clone(acc[i%max(n, 1):]), acc[:i%max(n, 1)]...))
	}
	want, wantRows := slices.Clone(acc), slices.Clone(rows)
	k.ref(want, x, off, ws[0])
	w := make([]uint32, TileRows*len(off))
	for i := range TileRows {
		k.ref(wantRows[i*ld:][:n], x, off, ws[i])
		for j, wj := range ws[i] {
			w[TileRows*j+i] = wj
		}
	}
	if !k.one(acc, x, taps, ws[0], chunk) {
		t.Fatalf("%s: %s arguments refused", what, k.name)
	}
	if !slices.Equal(acc, want) {
		t.Fatalf("%s: %s got %v, want %v", what, k.name, acc, want)
	}
	if !k.tile(rows, ld, n, x, taps, w, chunk) {
		t.Fatalf("%s: %s tile arguments refused", what, k.name)
	}
	if !slices.Equal(rows, wantRows) {
		t.Fatalf("%s: %s tile (ld %d) got %v, want %v", what, k.name, ld, rows, wantRows)
	}
}

// TestMac16KcEnds fills lanes with the largest products: exactly K_c in
// one chunk, and K_c + 1 and K_c + 2, which only the widening keeps exact
// (their sums pass i32), for an even and an odd K_c, and −128·−128.
func TestMac16KcEnds(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, c := range []struct {
			o    Operands
			w, x int16
		}{
			{Operands{-128, 127, -127, 127}, -128, -127}, // P = 16256, K_c = 132104
			{Operands{-128, 127, -128, 127}, -128, -128}, // P = 2^14, K_c = 131071
			{Operands{-1 << 15, 1<<15 - 1, -1, 1}, -1 << 15, -1},
		} {
			chunk, _ := Choose16(c.o)
			P := int64(c.w) * int64(c.x)
			kc := int64(math.MaxInt32) / P
			// taps full pairs, plus one half pair (w, 0) when half.
			for _, tc := range []struct {
				taps int
				half bool
			}{{chunk, false}, {chunk, true}, {chunk + 1, false}, {2*chunk + 1, true}} {
				n := tc.taps
				if tc.half {
					n++
				}
				x := make([]int16, 2*15*Block) // every column loop: 64 + 32 + 16 + 8 and 32 + 32 + 32 + 8 + 8 + 8
				for i := range x {
					x[i] = c.x
				}
				off := make([]int32, n)
				w := make([]uint32, n)
				for k := range n {
					off[k] = 0
					w[k] = Pair(c.w, c.w)
				}
				products := int64(2 * tc.taps)
				if tc.half {
					w[n-1] = Pair(c.w, 0)
					products++
				}
				acc := make([]int64, 15*Block)
				taps, _ := NewTaps(off)
				Mac16(acc, x, taps, w, chunk)
				rows := make([]int64, TileRows*15*Block)
				w4 := make([]uint32, 0, TileRows*n)
				for _, wk := range w {
					for range TileRows {
						w4 = append(w4, wk)
					}
				}
				Tile16(rows, 15*Block, 15*Block, x, taps, w4, chunk)
				acc = append(acc, rows...)
				want := products * P // hand-computed: every product is P
				if products <= kc && want > math.MaxInt32 {
					t.Fatalf("K_c = %d products sum to %d, past i32", kc, want)
				}
				for _, v := range acc {
					if v != want {
						t.Fatalf("%+v, %d products (K_c %d, chunk %d): got %d, want %d", c.o, products, kc, chunk, v, want)
					}
				}
			}
		}
	})
}

// TestMac16Refuses checks Mac16 leaves acc alone when its arguments do not
// fit.
func TestMac16Refuses(t *testing.T) {
	taps, _ := NewTaps([]int32{0, 4})
	x := make([]int16, 2*Block+4)
	w := []uint32{1, 1}
	for _, c := range []struct {
		name  string
		acc   []int64
		x     []int16
		w     []uint32
		chunk int
	}{
		{"columns", make([]int64, Block+1), x, w, 1},
		{"weights", make([]int64, Block), x, w[:1], 1},
		{"chunk", make([]int64, Block), x, w, 0},
		{"short x", make([]int64, Block), x[:len(x)-1], w, 1},
	} {
		if Mac16(c.acc, c.x, taps, c.w, c.chunk) {
			t.Errorf("%s: accepted", c.name)
		}
	}
	acc := make([]int64, TileRows*Block)
	w4 := []uint32{1, 1, 1, 1, 1, 1, 1, 1}
	for _, c := range []struct {
		name  string
		acc   []int64
		ld, n int
		x     []int16
		w     []uint32
		chunk int
	}{
		{"tile columns", acc, Block, Block + 1, x, w4, 1},
		{"tile ld", acc, Block - 1, Block, x, w4, 1},
		{"tile short acc", acc[:len(acc)-1], Block, Block, x, w4, 1},
		{"tile weights", acc, Block, Block, x, w, 1},
		{"tile chunk", acc, Block, Block, x, w4, 0},
		{"tile short x", acc, Block, Block, x[:len(x)-1], w4, 1},
	} {
		if Tile16(c.acc, c.ld, c.n, c.x, taps, c.w, c.chunk) {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if slices.ContainsFunc(acc, func(v int64) bool { return v != 0 }) {
		t.Error("a refused Tile16 wrote acc")
	}
	if _, ok := NewTaps([]int32{1}); ok {
		t.Error("odd offset accepted")
	}
	if _, ok := NewTaps([]int32{-2}); ok {
		t.Error("negative offset accepted")
	}
}

// randomCases is how many random cases a kernel's equality suite draws:
// 10^5, or 10^4 with -short or under the race detector.
func randomCases() int {
	if testing.Short() || raceEnabled {
		return 10000
	}
	return 100000
}
