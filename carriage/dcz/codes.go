package dcz

import "math/bits"

// The baselines and extra bits of the literals-length and match-length
// codes above the ones that stand for themselves (RFC 8878 §3.1.1.3.2.1.1):
// literal lengths 0-15 are codes 0-15, match lengths 3-34 codes 0-31.
var (
	llBase = [...]uint32{16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	llBits = [...]uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlBase = [...]uint32{35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539}
	mlBits = [...]uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// lengthCode is the code of a length in a table whose codes below first
// stand for first values from low (so code = length - low there), and whose
// codes from first on begin at base; it returns the code, its extra bits'
// value and their number. The table's last code covers every length up to
// its base plus 2^bits - 1, past the longest a 128 KiB block holds.
func lengthCode(n uint32, low uint32, first uint8, base []uint32, nbits []uint8) (code uint8, extra uint32, nb uint8) {
	if n-low < uint32(first) {
		return uint8(n - low), 0, 0
	}
	i := len(base) - 1
	for base[i] > n {
		i--
	}
	return first + uint8(i), n - base[i], nbits[i]
}

func llCode(n uint32) (uint8, uint32, uint8) { return lengthCode(n, 0, 16, llBase[:], llBits[:]) }
func mlCode(n uint32) (uint8, uint32, uint8) { return lengthCode(n, 3, 32, mlBase[:], mlBits[:]) }

// ofCode is an Offset_Value's code, ⌊log2 v⌋, whose extra bits are v's
// bits below its highest (§3.1.1.3.2.1.1); v ≥ 1.
func ofCode(v uint32) (uint8, uint32, uint8) {
	c := uint8(bits.Len32(v) - 1)
	return c, v - 1<<c, c
}
