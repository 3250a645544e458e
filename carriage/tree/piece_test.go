package tree

import (
	"bytes"
	"testing"
)

// TestPieceWriter holds the streaming check to PieceVerifies for every piece
// of sets whose pieces are one chunk, one group and several groups, written
// in uneven slices, and with one byte changed or one byte short.
func TestPieceWriter(t *testing.T) {
	for _, c := range []struct {
		g      int
		length int
	}{{0, 3*1024 + 5}, {4, 2*16384 + 1000}, {6, 3*65536 - 7}} {
		set := make([]byte, c.length)
		for i := range set {
			set[i] = byte(i*7 + i>>9)
		}
		h, err := Write(bytes.NewReader(set), c.g, "")
		if err != nil {
			t.Fatal(err)
		}
		reused := NewPieceWriter(h, len(h.Values)-1)
		reused.Write([]byte{1, 2, 3}) // left unfinished: Reset drops it
		for i := range h.Values {
			off, n := h.Piece(i)
			piece := set[off : off+n]
			for _, step := range []int{1000, 16384, 7, 20000, 1 << 20} { // 16384 and up: whole groups hashed where they lie
				w := NewPieceWriter(h, i)
				for b := piece; len(b) > 0; {
					m := min(step, len(b))
					if k, err := w.Write(b[:m]); k != m || err != nil {
						t.Fatalf("g %d piece %d: Write = %d, %v", c.g, i, k, err)
					}
					b = b[m:]
				}
				if !w.Verifies() {
					t.Errorf("g %d piece %d step %d: the piece does not verify", c.g, i, step)
				}
			}
			// One writer, reset, checks each piece as a new one does.
			reused.Reset(i)
			reused.Write(piece)
			if !reused.Verifies() {
				t.Errorf("g %d piece %d: a writer reset for it does not verify it", c.g, i)
			}
			bad := bytes.Clone(piece)
			bad[len(bad)/2] ^= 1
			w := NewPieceWriter(h, i)
			w.Write(bad)
			if w.Verifies() || PieceVerifies(h, i, bad) {
				t.Errorf("g %d piece %d: a changed byte verifies", c.g, i)
			}
			w = NewPieceWriter(h, i)
			w.Write(piece[:len(piece)-1])
			if w.Verifies() {
				t.Errorf("g %d piece %d: a piece one byte short verifies", c.g, i)
			}
			w = NewPieceWriter(h, i)
			if _, err := w.Write(append(bytes.Clone(piece), 0)); err == nil || w.Verifies() {
				t.Errorf("g %d piece %d: a byte past the piece is taken", c.g, i)
			}
		}
	}
}

// TestPieceWriterOutOfRange: an index outside 0 ≤ i < n takes no byte and
// never verifies, where it would read past the head's values.
func TestPieceWriterOutOfRange(t *testing.T) {
	set := make([]byte, 2*1024+1)
	h, err := Write(bytes.NewReader(set), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, len(h.Values), len(h.Values) + 5} {
		w := NewPieceWriter(h, i)
		if k, err := w.Write(set[:1]); k != 0 || err == nil {
			t.Errorf("piece %d: Write = %d, %v; want 0 and an error", i, k, err)
		}
		if w.Verifies() {
			t.Errorf("piece %d verifies", i)
		}
	}
}
