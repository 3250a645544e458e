//go:build !race

package tree

import "testing"

// TestRootLargeEnd is 65,536 pieces for g = 1 to 4 (128 MiB to 1 GiB, a
// byte short of the last piece's end and whole): 3.75 GiB of hashing, about
// 10 s here, g = 1 alone under -short. The race detector multiplies that
// tenfold, so the test is built only without it, and scripts/test.sh runs
// it once more after the -race run.
func TestRootLargeEnd(t *testing.T) {
	top := uint8(4)
	if testing.Short() {
		top = 1
	}
	for g := uint8(1); g <= top; g++ {
		checkRoot(t, g, MaxPieces*PieceSize(g)-1)
		checkRoot(t, g, MaxPieces*PieceSize(g))
	}
}
