package stage

import (
	"slices"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// TestAllocBoundsRans64: a t2 table of 65 537 entries (E1's most) against a
// 16-byte stream. Decoding narrows the table once (4 bytes an entry, a
// quarter of the caller's 8) and allocates nothing per symbol; a table of
// 65 538 entries is refused (model_mismatch at −1) allocating nothing of
// its size.
func TestAllocBoundsRans64(t *testing.T) {
	cdf := make([]int64, 65537)
	for k := range cdf {
		cdf[k] = int64(k) // every symbol has frequency 1
	}
	stream := make([]byte, 16)
	stream[3] = 0x80 // x = 2^31
	m := RansModes{Table: T2}
	input := 8 * len(cdf)
	var d RansDecoder
	n := spectest.Allocated(func() { _, _ = d.Decode(stream, []RansTable{{CDF: cdf}}, []int{0, 0, 0}, m) })
	if n >= uint64(input)+spectest.MiB {
		t.Fatalf("a table of 65 537 entries: %d bytes allocated for %d", n, input)
	}
	t.Logf("a table of 65 537 entries and a 16-byte stream: %d bytes allocated for %d", n, input)
	over := append(slices.Clone(cdf), 65537) // one entry past t2's 65 537
	n = spectest.Bounded(t, 8*len(over), refusal.ModelMismatch, func() error {
		_, err := d.Decode(stream, []RansTable{{CDF: over}}, []int{0}, m)
		return err
	})
	t.Logf("65 538 entries: %d bytes allocated", n)
}
