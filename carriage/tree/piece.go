package tree

import "errors"

// PieceWriter checks one piece as its bytes arrive (§19.2 step 2), holding
// one group of at most 16 chunks and the piece's group chaining values, so
// a fetcher verifies a piece of any size without holding it. Write the
// piece's bytes in order, then ask Verifies.
type PieceWriter struct {
	h       *Head
	i       int
	want    uint64 // the piece's length
	got     uint64 // bytes written so far
	counter uint64 // the chunk counter of the group being filled
	buf     []byte // the group being filled
	ph      pieceHasher
}

// NewPieceWriter returns a writer that checks piece i of the set h names,
// for 0 ≤ i < n. For any other i it takes no byte and never verifies.
func NewPieceWriter(h *Head, i int) *PieceWriter {
	w := &PieceWriter{h: h, buf: make([]byte, 0, groupSize(h.G))}
	w.Reset(i)
	return w
}

// Reset makes w a writer for piece i of the same set, as NewPieceWriter
// would, keeping its buffers (a fetcher checks many pieces with one).
func (w *PieceWriter) Reset(i int) {
	w.buf, w.ph.cvs, w.got = w.buf[:0], w.ph.cvs[:0], 0
	if i < 0 || i >= len(w.h.Values) {
		w.i, w.want = -1, 0
		return
	}
	_, n := w.h.Piece(i)
	w.i, w.want, w.counter = i, n, uint64(i)<<w.h.G
}

// Write adds b to the piece. Bytes past the piece's length are not taken:
// Write then takes none of b and the piece does not verify.
func (w *PieceWriter) Write(b []byte) (int, error) {
	if w.i < 0 || uint64(len(b)) > w.want-w.got {
		w.got = w.want + 1 // never verifies
		return 0, errPastPiece
	}
	w.got += uint64(len(b))
	n := len(b)
	for len(b) > 0 {
		if g := cap(w.buf); len(w.buf) == 0 && len(b) >= g {
			// A whole group of b is hashed where it lies, not copied.
			w.group(b[:g])
			b = b[g:]
			continue
		}
		m := copy(w.buf[len(w.buf):cap(w.buf)], b)
		w.buf, b = w.buf[:len(w.buf)+m], b[m:]
		if len(w.buf) == cap(w.buf) {
			w.flush()
		}
	}
	return n, nil
}

// group adds the chaining value of the group b, the next of the piece.
func (w *PieceWriter) group(b []byte) {
	w.ph.group(b, w.counter)
	w.counter += uint64(cap(w.buf) / ChunkSize)
}

// flush adds the group held to the piece's chaining values.
func (w *PieceWriter) flush() {
	w.group(w.buf)
	w.buf = w.buf[:0]
}

// Verifies reports whether the bytes written are exactly the piece and its
// value is the head's. Ask it once, after the last Write.
func (w *PieceWriter) Verifies() bool {
	if w.i < 0 || w.got != w.want {
		return false
	}
	if len(w.buf) > 0 {
		w.flush()
	}
	return w.ph.value() == w.h.Values[w.i]
}

var errPastPiece = errors.New("tree: bytes past the piece's length")
