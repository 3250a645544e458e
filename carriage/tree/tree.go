// Package tree writes and reads the chunk-tree heads of prior-carriage
// §19.1 (the form wai.prior.tree) and verifies a held set against one, piece
// by piece and then against its SHA-256 (§19.2 steps 2 and 3).
//
// Use it to make the head of a large set (Write), to read a head a pin names
// (Read), to check one fetched piece (PieceVerifies) or a whole held file
// (Verify). It fetches nothing: the fetcher of §19.2 step 1 sits above it.
// Every refusal is a *refusal.Error carrying a code of §20.
//
// # BLAKE3
//
// The whole-set hash (root) is BLAKE3's ordinary hash, computed with
// github.com/zeebo/blake3. A piece's value is the non-root chaining value of
// a subtree of BLAKE3's tree with its own first chunk counter (D-H9),
// which zeebo/blake3 does not export. This package takes it from
// lukechampine.com/blake3/guts rather than from a compression function of its
// own: guts exposes exactly the parts the head needs (CompressChunk with a
// chunk counter, CompressBuffer for up to 16 chunks at once, ParentNode,
// ChainingValue and CompressNode, FlagRoot) over the same SIMD backends that
// hash lukechampine's ordinary BLAKE3, so the values come at the speed of a
// whole hash and from code that its own suite tests, where a compression
// function here would be pure Go, slower, and one more thing to get right.
// The tests hold the two libraries to each other: root, the merge of the
// values, is zeebo's hash at every length of the official test vectors and
// over the sweep of pieces §19.1 asks for.
//
// # Readings
//
// docs/READINGS.md, section "Chunk trees (carriage/tree)",
// states the readings this package follows.
package tree

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/waiops/waiops/refusal"
	"github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// The codes of §20 for §19.1 and §19.2 steps 2 and 3.
const (
	HeadMalformed  refusal.Code = "tree_head_malformed"
	InnerForm      refusal.Code = "tree_inner_form"
	RootMismatch   refusal.Code = "tree_root_mismatch"
	PieceMismatch  refusal.Code = "tree_piece_mismatch"
	DigestMismatch refusal.Code = "tree_digest_mismatch"
)

// The layout's bounds (§19.1).
const (
	Magic        = "WTR1"
	MaxG         = 16
	MaxInnerForm = 64
	MinPieces    = 2
	MaxPieces    = 65536
	ChunkSize    = 1024
	fixedSize    = 82 // the head's bytes besides the inner form and the values
	// MaxHeadSize is the largest head the layout allows.
	MaxHeadSize = fixedSize + MaxInnerForm + 32*MaxPieces
)

// The inner forms §19.1 step 2 admits besides none: those §18.2 admits
// inside a sealed set, and a sealed set.
const (
	FormSafetensors = "wai.prior.safetensors"
	FormGGUF        = "wai.prior.gguf"
	FormSealed      = "wai.prior.sealed"
)

// Head is a chunk-tree head (§19.1). Values holds n = ⌈Length / P⌉ piece
// values, each 32 bytes as BLAKE3 writes a chaining value.
type Head struct {
	G         uint8
	InnerForm string
	Length    uint64
	Inner     [32]byte
	Root      [32]byte
	Values    [][32]byte
}

// PieceSize is P = 1024 · 2^g (§19.1).
func PieceSize(g uint8) uint64 { return ChunkSize << g }

// Pieces is ⌈L / P⌉ for L ≥ 1, without overflow.
func Pieces(length uint64, g uint8) uint64 { return (length-1)>>(10+g) + 1 }

// Piece is piece i's offset and length, for 0 ≤ i < n: bytes i·P to
// min((i+1)·P, L).
func (h *Head) Piece(i int) (off, n uint64) {
	p := PieceSize(h.G)
	off = uint64(i) * p
	return off, min(p, h.Length-off)
}

// admitted is §19.1 step 2's list.
func admitted(form string) bool {
	switch form {
	case "", FormSafetensors, FormGGUF, FormSealed:
		return true
	}
	return false
}

// formBytes reports whether every byte of form is '!' to '~' (§19.1).
func formBytes(form string) bool {
	for i := 0; i < len(form); i++ {
		if form[i] < '!' || form[i] > '~' {
			return false
		}
	}
	return true
}

// Read reads a head by §19.1's three checks, in order.
func Read(b []byte) (*Head, error) {
	bad := func(format string, args ...any) (*Head, error) {
		return nil, refusal.New(HeadMalformed, format, args...)
	}
	// §19.1 step 1: the magic, g, k, L, n and the length.
	if len(b) < 4 || string(b[:4]) != Magic {
		return bad("the head does not begin with the magic WTR1")
	}
	if len(b) < 6 {
		return bad("the head ends at byte %d, before g and k", len(b))
	}
	g, k := b[4], int(b[5])
	if g > MaxG {
		return bad("g is %d, past 16", g)
	}
	if k > MaxInnerForm {
		return bad("the inner form's length k is %d, past 64", k)
	}
	if len(b) < fixedSize+k {
		return bad("the head is %d bytes, shorter than its %d fixed bytes with k = %d", len(b), fixedSize+k, k)
	}
	form := string(b[6 : 6+k])
	if !formBytes(form) {
		return bad("the inner form %q holds a byte outside '!' to '~'", form)
	}
	length := binary.LittleEndian.Uint64(b[6+k:])
	if length == 0 {
		return bad("L is 0; a set is at least 1 byte")
	}
	n := uint64(binary.LittleEndian.Uint32(b[78+k:]))
	if want := Pieces(length, g); n != want {
		return bad("n is %d, but ⌈L / P⌉ = ⌈%d / %d⌉ = %d", n, length, PieceSize(g), want)
	}
	if n < MinPieces || n > MaxPieces {
		return bad("n is %d, not 2 to 65536", n)
	}
	if want := uint64(fixedSize+k) + 32*n; uint64(len(b)) != want {
		return bad("the head is %d bytes; 82 + k + 32·n = %d", len(b), want)
	}
	// §19.1 step 2: the inner form is admitted.
	if !admitted(form) {
		return nil, refusal.New(InnerForm, "the inner form %q is not none, %s, %s or %s", form, FormSafetensors, FormGGUF, FormSealed)
	}
	h := &Head{G: g, InnerForm: form, Length: length, Values: make([][32]byte, n)}
	copy(h.Inner[:], b[14+k:])
	copy(h.Root[:], b[46+k:])
	for i := range h.Values {
		copy(h.Values[i][:], b[fixedSize+k+32*i:])
	}
	// §19.1 step 3: the values merge to root.
	if r, _ := Root(h.Values); r != h.Root {
		return nil, refusal.New(RootMismatch, "the values merge to %x, the head's root is %x", r, h.Root)
	}
	return h, nil
}

// Encode returns the head's bytes (§19.1).
func (h *Head) Encode() []byte {
	k := len(h.InnerForm)
	b := make([]byte, fixedSize+k+32*len(h.Values))
	copy(b, Magic)
	b[4], b[5] = h.G, byte(k)
	copy(b[6:], h.InnerForm)
	binary.LittleEndian.PutUint64(b[6+k:], h.Length)
	copy(b[14+k:], h.Inner[:])
	copy(b[46+k:], h.Root[:])
	binary.LittleEndian.PutUint32(b[78+k:], uint32(len(h.Values)))
	for i, v := range h.Values {
		copy(b[fixedSize+k+32*i:], v[:])
	}
	return b
}

// Fields are the head's fields as canonical JSON writes them (cjson):
// g, inner and root in lowercase hex, inner_form ("" for none), length and
// pieces (n) as integers.
func (h *Head) Fields() map[string]any {
	return map[string]any{
		"g": int(h.G), "inner": hex.EncodeToString(h.Inner[:]), "inner_form": h.InnerForm,
		"length": h.Length, "pieces": len(h.Values), "root": hex.EncodeToString(h.Root[:]),
	}
}

// Write reads a set's bytes from r to their end and returns its head for
// pieces of 2^g chunks under the inner form form ("" for none). It holds one
// group of 16 chunks and the chaining values of one piece at a time, and
// stops reading once the set passes 65,536 pieces.
func Write(r io.Reader, g int, form string) (*Head, error) {
	if g < 0 || g > MaxG {
		return nil, refusal.New(HeadMalformed, "g is %d, not 0 to 16", g)
	}
	if len(form) > MaxInnerForm || !formBytes(form) {
		return nil, refusal.New(HeadMalformed, "the inner form %q is not 0 to 64 bytes of '!' to '~'", form)
	}
	if !admitted(form) {
		return nil, refusal.New(InnerForm, "the inner form %q is not none, %s, %s or %s", form, FormSafetensors, FormGGUF, FormSealed)
	}
	h := &Head{G: uint8(g), InnerForm: form}
	sum, whole := sha256.New(), blake3.New()
	length, over, err := scan(r, h.G, MaxPieces*PieceSize(h.G), io.MultiWriter(sum, whole), func(i int, v [32]byte, n uint64) {
		h.Values = append(h.Values, v)
	})
	if err != nil {
		return nil, err
	}
	if over {
		return nil, refusal.New(HeadMalformed, "the set is more than 65536 pieces of %d bytes; a larger g makes fewer", PieceSize(h.G))
	}
	h.Length = length
	if n := len(h.Values); n < MinPieces {
		return nil, refusal.New(HeadMalformed, "the set of %d bytes is %d piece(s) of %d; a head lists 2 to 65536, and a set in one piece is pinned in its inner form (§19.1)", length, n, PieceSize(h.G))
	}
	sum.Sum(h.Inner[:0])
	whole.Sum(h.Root[:0])
	// The root is zeebo/blake3's hash; the values, from guts, must merge to it.
	if r, _ := Root(h.Values); r != h.Root {
		return nil, fmt.Errorf("tree: the piece values merge to %x but the set's BLAKE3 hash is %x", r, h.Root)
	}
	return h, nil
}

// Verify checks a held file against h: each piece against its value (§19.2
// step 2), then, when every piece verifies, the file's SHA-256 against inner
// (step 3). It returns the pieces that fail, in order, with a
// tree_piece_mismatch refusal naming them; or a tree_digest_mismatch refusal;
// or nil. It holds one group of 16 chunks and one piece's chaining values at
// a time.
func Verify(h *Head, r io.Reader) ([]int, error) {
	sum := sha256.New()
	var failed []int
	reached := 0
	limited := io.LimitReader(r, int64(min(h.Length, math.MaxInt64)))
	if _, _, err := scan(limited, h.G, h.Length, sum, func(i int, v [32]byte, n uint64) {
		// The scan stops at L bytes, so i < n. A piece the file ends inside
		// is short, and fails.
		reached = i + 1
		if _, want := h.Piece(i); n != want || v != h.Values[i] {
			failed = append(failed, i)
		}
	}); err != nil {
		return nil, err
	}
	// A piece the file ends before fails too.
	for i := reached; i < len(h.Values); i++ {
		failed = append(failed, i)
	}
	if len(failed) > 0 {
		return failed, refusal.New(PieceMismatch, "pieces %v do not verify against their values", failed)
	}
	var extra [1]byte
	if m, _ := io.ReadFull(r, extra[:]); m > 0 {
		return nil, refusal.New(DigestMismatch, "the file holds bytes past the head's L = %d", h.Length)
	}
	var got [32]byte
	sum.Sum(got[:0])
	if got != h.Inner {
		return nil, refusal.New(DigestMismatch, "the file's SHA-256 is %x, the head's inner is %x", got, h.Inner)
	}
	return nil, nil
}

// PieceVerifies reports whether b is piece i of the set h names: its length
// is the piece's and its value is h's value i (§19.2 step 2).
func PieceVerifies(h *Head, i int, b []byte) bool {
	if i < 0 || i >= len(h.Values) {
		return false
	}
	if _, n := h.Piece(i); uint64(len(b)) != n {
		return false
	}
	var ph pieceHasher
	counter := uint64(i) << h.G
	gsize := groupSize(h.G)
	for off := 0; off < len(b); off += gsize {
		ph.group(b[off:min(off+gsize, len(b))], counter)
		counter += uint64(gsize / ChunkSize)
	}
	return ph.value() == h.Values[i]
}

// Root merges values to the root of §19.1: over m ≥ 2 values, the left child
// is the merge of the first 2^⌊log₂(m−1)⌋ and the right of the rest, each
// parent without the ROOT flag but the top one.
func Root(values [][32]byte) ([32]byte, error) {
	if len(values) < 2 {
		return [32]byte{}, errors.New("tree: a root merges at least 2 values")
	}
	cvs := make([][8]uint32, len(values))
	for i, v := range values {
		cvs[i] = words(v)
	}
	l := leftCount(len(cvs))
	top := guts.ParentNode(merge(cvs[:l]), merge(cvs[l:]), &guts.IV, guts.FlagRoot)
	out := guts.CompressNode(top)
	var cv [8]uint32
	copy(cv[:], out[:8])
	return cvBytes(cv), nil
}

// leftCount is 2^⌊log₂(m−1)⌋ for m ≥ 2: the left subtree's leaves.
func leftCount(m int) int { return 1 << (bits.Len(uint(m-1)) - 1) }

// merge is the non-root chaining value of the subtree over cvs.
func merge(cvs [][8]uint32) [8]uint32 {
	if len(cvs) == 1 {
		return cvs[0]
	}
	l := leftCount(len(cvs))
	return guts.ChainingValue(guts.ParentNode(merge(cvs[:l]), merge(cvs[l:]), &guts.IV, 0))
}

// groupSize is the bytes a pieceHasher compresses at once: one piece, or 16
// chunks (guts.MaxSIMD) of a larger piece. A group of a larger piece is a
// whole subtree of it, as every piece is of the set's tree.
func groupSize(g uint8) int { return int(min(PieceSize(g), guts.MaxSIMD*ChunkSize)) }

// pieceHasher gathers one piece's group chaining values.
type pieceHasher struct {
	scratch [guts.MaxSIMD * ChunkSize]byte
	cvs     [][8]uint32
}

// group adds the chaining value of b, at most 16 chunks whose first has
// chunk counter counter.
func (ph *pieceHasher) group(b []byte, counter uint64) {
	var n guts.Node
	switch {
	case len(b) <= ChunkSize:
		n = guts.CompressChunk(b, &guts.IV, counter, 0)
	case len(b) == len(ph.scratch):
		n = guts.CompressBuffer((*[guts.MaxSIMD * ChunkSize]byte)(b), len(b), &guts.IV, counter, 0)
	default:
		// CompressBuffer reads a whole 16-chunk buffer: pad with zeros.
		m := copy(ph.scratch[:], b)
		clear(ph.scratch[m:])
		n = guts.CompressBuffer(&ph.scratch, m, &guts.IV, counter, 0)
	}
	ph.cvs = append(ph.cvs, guts.ChainingValue(n))
}

// value is the piece's value, the merge of its groups; it resets ph.
func (ph *pieceHasher) value() [32]byte {
	v := cvBytes(merge(ph.cvs))
	ph.cvs = ph.cvs[:0]
	return v
}

// scan reads r to its end, group by group, writes every byte to w, and
// calls piece for each piece it reaches with its value and its length in
// bytes. It stops, reporting over, before a byte past limit.
func scan(r io.Reader, g uint8, limit uint64, w io.Writer, piece func(i int, v [32]byte, n uint64)) (total uint64, over bool, err error) {
	var ph pieceHasher
	gsize := groupSize(g)
	perPiece := int(PieceSize(g)) / gsize
	buf := make([]byte, gsize)
	i, groups, held := 0, 0, uint64(0) // the piece, and its groups and bytes held
	for {
		m, err := io.ReadFull(r, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return total, false, err
		}
		if m > 0 {
			if total+uint64(m) > limit {
				return total, true, nil
			}
			w.Write(buf[:m])
			// Every group before this one is whole, so this one's first
			// chunk is the set's chunk total / 1024.
			ph.group(buf[:m], total/ChunkSize)
			total += uint64(m)
			held += uint64(m)
			groups++
		}
		// ReadFull reads less than a group only at r's end.
		if groups == perPiece || (m < gsize && groups > 0) {
			piece(i, ph.value(), held)
			i, groups, held = i+1, 0, 0
		}
		if m < gsize {
			return total, false, nil
		}
	}
}

// words reads a chaining value's 32 bytes as BLAKE3's eight words.
func words(v [32]byte) (w [8]uint32) {
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(v[4*i:])
	}
	return w
}

// cvBytes writes a chaining value's words as 32 bytes.
func cvBytes(w [8]uint32) (v [32]byte) {
	for i, x := range w {
		binary.LittleEndian.PutUint32(v[4*i:], x)
	}
	return v
}
