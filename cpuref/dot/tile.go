package dot

// TileRows is the number of weight rows (output channels) one Tile16 or
// Tile8 call computes: the tile kernels hold TileRows rows × a block of
// columns (64 on zmm, 16 on ymm) of int32 lanes in registers, so each
// operand load feeds TileRows multiply-adds and each broadcast weight
// feeds a whole block (cpuref/dot/_gen writes them).
const TileRows = 4

// Tile16 is Mac16 for TileRows weight rows over the same taps: w holds
// them interleaved, w[TileRows·k + r] the tap's pair for row r, and row
// r's n columns are acc[r·ld:][:n]; each gets the sums Mac16 would give
// it, every lane widened after at most chunk taps as in Mac16. It returns
// false, and changes nothing, when the arguments do not fit: n not a
// multiple of Block, ld < n, acc shorter than (TileRows − 1)·ld + n,
// len(w) ≠ TileRows·taps.Len(), chunk < 1, a tap that would read past x,
// or taps not NewTaps'.
func Tile16(acc []int64, ld, n int, x []int16, taps *Taps, w []uint32, chunk int) bool {
	if !tileFits(len(acc), ld, n, len(x), taps, 2, len(w), chunk) {
		return false
	}
	if n > 0 && len(w) > 0 {
		best.tile16(acc, ld, n, x, taps.off, w, chunk)
	}
	return true
}

// Tile8 is Tile16 for Mac8's operands (u8 inputs in quads, i8 weights,
// taps from NewTaps8, chunk from Choose8).
func Tile8(acc []int64, ld, n int, x []uint8, taps *Taps, w []uint32, chunk int) bool {
	if !tileFits(len(acc), ld, n, len(x), taps, 4, len(w), chunk) {
		return false
	}
	if n > 0 && len(w) > 0 {
		best8.tile8(acc, ld, n, x, taps.off, w, chunk)
	}
	return true
}

// tileFits is Tile16's and Tile8's check of their arguments, unit the
// operands a column takes.
func tileFits(nacc, ld, n, nx int, taps *Taps, unit int32, nw, chunk int) bool {
	return taps.unit == unit && n >= 0 && n%Block == 0 && ld >= n && nacc >= (TileRows-1)*ld+n &&
		nw == TileRows*len(taps.off) && chunk >= 1 && (nw == 0 || taps.maxOff+int(unit)*n <= nx)
}

// tileGeneric runs a one-row pure-Go kernel (mac16Generic, mac8Generic) on
// each of the TileRows rows w interleaves.
func tileGeneric[E int16 | uint8](mac func([]int64, []E, []int32, []uint32, int)) func([]int64, int, int, []E, []int32, []uint32, int) {
	return func(acc []int64, ld, n int, x []E, off []int32, w []uint32, chunk int) {
		row := make([]uint32, len(off))
		for r := range TileRows {
			for k := range row {
				row[k] = w[TileRows*k+r]
			}
			mac(acc[r*ld:][:n], x, off, row, chunk)
		}
	}
}
