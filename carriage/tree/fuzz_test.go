package tree

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
)

// FuzzTreeHead: a head is refused with a code of §19.1's three checks, or
// it is accepted, re-encodes to the same bytes and has values that merge to
// its root. Seeded with the corpus's heads, good and broken.
func FuzzTreeHead(f *testing.F) {
	spectest.Seed(f, "../../vectors/carriage/files/tree", "*.wtr1", "broken/*.wtr1")
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Read(b)
		if err != nil {
			switch c := code(err); c {
			case HeadMalformed, InnerForm, RootMismatch:
			default:
				t.Fatalf("refused with %q (%v), not a code of §19.1", c, err)
			}
			return
		}
		if !bytes.Equal(h.Encode(), b) {
			t.Fatal("an accepted head re-encodes to other bytes")
		}
		if r, err := Root(h.Values); err != nil || r != h.Root {
			t.Fatalf("an accepted head's values merge to %x, root %x (%v)", r, h.Root, err)
		}
		if n := Pieces(h.Length, h.G); n != uint64(len(h.Values)) || n < MinPieces || n > MaxPieces || !admitted(h.InnerForm) {
			t.Fatalf("an accepted head breaks §19.1: L %d g %d n %d form %q", h.Length, h.G, len(h.Values), h.InnerForm)
		}
	})
}
