package tree

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
	"github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// pattern is the official test vectors' input: byte i is i mod 251, read
// without holding it, so a sweep of a GiB allocates nothing.
type pattern struct{ off, n uint64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.off == p.n {
		return 0, io.EOF
	}
	m := min(uint64(len(b)), p.n-p.off)
	for i := uint64(0); i < m; {
		i += uint64(copy(b[i:m], period[(p.off+i)%251:]))
	}
	p.off += m
	return int(m), nil
}

// period is the pattern twice over, so any 251 bytes of it are one copy.
var period = func() []byte {
	b := make([]byte, 4096+251)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}()

func patternBytes(n uint64) []byte {
	b, _ := io.ReadAll(&pattern{n: n})
	return b
}

// zeeboHash is the whole-set hash the root must equal (§19.1).
func zeeboHash(n uint64) [32]byte {
	h := blake3.New()
	io.Copy(h, &pattern{n: n})
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func code(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// TestOfficialVectors checks zeebo's hash and the piece values' root
// against the BLAKE3 team's test vectors, at every length there and every g
// that makes two pieces or more of it.
func TestOfficialVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/blake3_test_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var tv struct {
		Cases []struct {
			Len  uint64 `json:"input_len"`
			Hash string `json:"hash"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &tv); err != nil {
		t.Fatal(err)
	}
	heads := 0
	for _, c := range tv.Cases {
		want, _ := hex.DecodeString(c.Hash[:64])
		if got := zeeboHash(c.Len); !bytes.Equal(got[:], want) {
			t.Errorf("len %d: zeebo hash %x, vector %x", c.Len, got, want)
		}
		for g := 0; g <= MaxG && c.Len > PieceSize(uint8(g)); g++ {
			h, err := Write(&pattern{n: c.Len}, g, "")
			if err != nil {
				t.Fatalf("len %d g %d: %v", c.Len, g, err)
			}
			r, _ := Root(h.Values)
			if !bytes.Equal(r[:], want) || !bytes.Equal(h.Root[:], want) {
				t.Errorf("len %d g %d: root %x, head %x, vector %x", c.Len, g, r, h.Root, want)
			}
			heads++
		}
	}
	if heads < 30 {
		t.Errorf("only %d heads over the vectors", heads)
	}
}

// TestOneChunkPiece: with g = 0 a piece's value is its chunk's chaining
// value, counter i, without ROOT (docs/READINGS.md D-H9); the two of a 2-chunk set
// merge under ROOT to the set's hash.
func TestOneChunkPiece(t *testing.T) {
	b := patternBytes(2048)
	h, err := Write(bytes.NewReader(b), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		cv := cvBytes(guts.ChainingValue(guts.CompressChunk(b[1024*i:1024*(i+1)], &guts.IV, uint64(i), 0)))
		if h.Values[i] != cv {
			t.Errorf("piece %d: value %x, chunk CV %x", i, h.Values[i], cv)
		}
		root := guts.CompressChunk(b[1024*i:1024*(i+1)], &guts.IV, uint64(i), guts.FlagRoot)
		if h.Values[i] == cvBytes(guts.ChainingValue(root)) {
			t.Errorf("piece %d: value carries ROOT", i)
		}
	}
	top := guts.CompressNode(guts.ParentNode(words(h.Values[0]), words(h.Values[1]), &guts.IV, guts.FlagRoot))
	var cv [8]uint32
	copy(cv[:], top[:8])
	if cvBytes(cv) != blake3.Sum256(b) {
		t.Error("parent(v0, v1) with ROOT is not the set's hash")
	}
}

// sweepLengths are the lengths of §19.1's sweep for g: from 2 to 65,536
// pieces, a byte either side of a piece boundary and, inside the last piece,
// of a chunk boundary. The large end is sampled: 65,535 and 65,536 pieces
// for g = 0 (64 MiB) here, and TestRootLargeEnd has g = 1 to 4. The short
// sample (-short, -race) stops at 16 MiB.
func sweepLengths(g uint8, short bool) []uint64 {
	p := PieceSize(g)
	counts := []uint64{2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 255, 257, 1000, 4095, 4096}
	if short {
		counts = []uint64{2, 3, 4, 5, 8, 9, 17, 255, 4096}
	} else if g == 0 {
		counts = append(counts, 65535, 65536)
	}
	var ls []uint64
	for _, n := range counts {
		if short && n*p > 1<<24 {
			continue
		}
		ls = append(ls, n*p, n*p-1, (n-1)*p+1)
		if g > 0 {
			ls = append(ls, (n-1)*p+ChunkSize-1, (n-1)*p+ChunkSize, (n-1)*p+ChunkSize+1)
		}
		if n < MaxPieces {
			ls = append(ls, n*p+1)
		}
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}

// TestRootIsHash: root is the BLAKE3 hash of the set, and pieces verify,
// for g = 0 to 4 over the sweep.
func TestRootIsHash(t *testing.T) {
	for g := uint8(0); g <= 4; g++ {
		for _, l := range sweepLengths(g, testing.Short() || raceEnabled) {
			checkRoot(t, g, l)
		}
	}
}

// TestRootLargeG: pieces of several 16-chunk groups, g = 5 to 16 (to 12
// under -short or -race), at two pieces (the last of one byte) and, for g
// up to 12, two and a half.
func TestRootLargeG(t *testing.T) {
	top := uint8(MaxG)
	if testing.Short() || raceEnabled {
		top = 12
	}
	for g := uint8(5); g <= top; g++ {
		p := PieceSize(g)
		checkRoot(t, g, p+1)
		if g <= 12 {
			checkRoot(t, g, 2*p+p/2+1)
		}
	}
}

func checkRoot(t *testing.T, g uint8, l uint64) {
	t.Helper()
	h, err := Write(&pattern{n: l}, int(g), "")
	if err != nil {
		t.Fatalf("g %d L %d: %v", g, l, err)
	}
	want := zeeboHash(l)
	if r, _ := Root(h.Values); r != want || h.Root != want {
		t.Fatalf("g %d L %d: root %x, head %x, hash %x", g, l, r, h.Root, want)
	}
	if n := Pieces(l, g); uint64(len(h.Values)) != n {
		t.Fatalf("g %d L %d: %d values, want %d", g, l, len(h.Values), n)
	}
	if l > 1<<22 {
		return
	}
	b := patternBytes(l)
	for _, i := range []int{0, 1, len(h.Values) - 1} {
		off, n := h.Piece(i)
		if !PieceVerifies(h, i, b[off:off+n]) {
			t.Fatalf("g %d L %d: piece %d does not verify", g, l, i)
		}
	}
}

// TestLeftCount: 2^⌊log₂(m−1)⌋ (§19.1).
func TestLeftCount(t *testing.T) {
	for m, want := range map[int]int{2: 1, 3: 2, 4: 2, 5: 4, 8: 4, 9: 8, 65536: 32768, 65535: 32768, 32769: 32768} {
		if got := leftCount(m); got != want {
			t.Errorf("leftCount(%d) = %d, want %d", m, got, want)
		}
	}
}

func head(t *testing.T, l uint64, g int, form string) *Head {
	t.Helper()
	h, err := Write(&pattern{n: l}, g, form)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHeadLayout writes a head by hand from §19.1's table and reads it.
func TestHeadLayout(t *testing.T) {
	h := head(t, 3000, 0, FormSealed)
	b := h.Encode()
	if len(b) != 82+16+32*3 {
		t.Fatalf("head is %d bytes", len(b))
	}
	want := []byte("WTR1\x00\x10wai.prior.sealed")
	want = binary.LittleEndian.AppendUint64(want, 3000)
	inner := sha256.Sum256(patternBytes(3000))
	want = append(want, inner[:]...)
	root := blake3.Sum256(patternBytes(3000))
	want = append(want, root[:]...)
	want = binary.LittleEndian.AppendUint32(want, 3)
	for _, v := range h.Values {
		want = append(want, v[:]...)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("head bytes\n%x\nwant\n%x", b, want)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Encode(), b) {
		t.Error("read head re-encodes to other bytes")
	}
}

// TestReadRefusals: §19.1's three checks, each field broken one way, in
// order.
func TestReadRefusals(t *testing.T) {
	h := head(t, 3000, 0, "")
	good := h.Encode()
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	withForm := func(form string) []byte {
		x := *h
		x.InnerForm = form
		return x.Encode()
	}
	cases := []struct {
		name string
		b    []byte
		want refusal.Code
	}{
		{"empty", nil, HeadMalformed},
		{"magic", edit(func(b []byte) []byte { b[3] = '2'; return b }), HeadMalformed},
		{"ends after magic", good[:5], HeadMalformed},
		{"g 17", edit(func(b []byte) []byte { b[4] = 17; return b }), HeadMalformed},
		{"k 65", edit(func(b []byte) []byte { b[5] = 65; return b }), HeadMalformed},
		{"L 0", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[6:], 0); return b }), HeadMalformed},
		{"L one less piece", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[6:], 2048); return b }), HeadMalformed},
		// L is not under root: a head that misstates it reads, and Verify refuses its file.
		{"L 2049 still 3 pieces", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[6:], 2049); return b }), ""},
		{"n 4", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[78:], 4); return b }), HeadMalformed},
		{"n 1 for L 1024", func() []byte {
			b := append(bytes.Clone(good[:78]), 1, 0, 0, 0)
			binary.LittleEndian.PutUint64(b[6:], 1024)
			return append(b, good[82:114]...)
		}(), HeadMalformed},
		{"one byte short", good[:len(good)-1], HeadMalformed},
		{"one byte long", append(bytes.Clone(good), 0), HeadMalformed},
		{"form byte space", withForm("wai prior"), HeadMalformed},
		{"form coded", withForm("wai.prior.nnc"), InnerForm},
		{"form listing", withForm("wai.prior.set"), InnerForm},
		{"form tree", withForm("wai.prior.tree"), InnerForm},
		{"form unregistered", withForm("x"), InnerForm},
		{"form gguf", withForm(FormGGUF), ""},
		{"form safetensors", withForm(FormSafetensors), ""},
		{"value changed", edit(func(b []byte) []byte { b[82+32] ^= 1; return b }), RootMismatch},
		{"root changed", edit(func(b []byte) []byte { b[46] ^= 0x80; return b }), RootMismatch},
		{"inner changed", edit(func(b []byte) []byte { b[14] ^= 1; return b }), ""},
	}
	for _, c := range cases {
		_, err := Read(c.b)
		if got := code(err); got != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestN65536: a head of 65,536 pieces reads; n is bounded at the head's
// fourth field before any value is read.
func TestN65536(t *testing.T) {
	h := &Head{G: 0, Length: MaxPieces * 1024, Values: make([][32]byte, MaxPieces)}
	h.Root, _ = Root(h.Values)
	if _, err := Read(h.Encode()); err != nil {
		t.Fatal(err)
	}
	h.Length++
	b := h.Encode()
	binary.LittleEndian.PutUint32(b[78:], MaxPieces+1)
	if _, err := Read(b); code(err) != HeadMalformed {
		t.Fatalf("65537 pieces: %v", err)
	}
}

func TestWriteRefusals(t *testing.T) {
	cases := []struct {
		l    uint64
		g    int
		form string
		want refusal.Code
	}{
		{0, 0, "", HeadMalformed},
		{1024, 0, "", HeadMalformed},
		{1025, 0, "", ""},
		{2048, 1, "", HeadMalformed},
		{2049, 1, "", ""},
		{3000, 17, "", HeadMalformed},
		{3000, -1, "", HeadMalformed},
		{3000, 0, "wai.prior.set", InnerForm},
		{3000, 0, "a b", HeadMalformed},
		{MaxPieces*1024 + 1, 0, "", HeadMalformed},
		{MaxPieces * 1024, 0, "", ""},
	}
	for _, c := range cases {
		_, err := Write(&pattern{n: c.l}, c.g, c.form)
		if got := code(err); got != c.want {
			t.Errorf("L %d g %d %q: %v, want %q", c.l, c.g, c.form, err, c.want)
		}
	}
}

// TestVerify: a byte changed in piece 3 fails at piece 3 alone; a short
// file fails at the pieces it does not hold; a long one and a head that
// misstates its set are tree_digest_mismatch.
func TestVerify(t *testing.T) {
	const l = 5*2048 + 700 // g = 1: pieces 0..5, the last 700 bytes
	b := patternBytes(l)
	h := head(t, l, 1, "")
	if bad, err := Verify(h, bytes.NewReader(b)); err != nil || bad != nil {
		t.Fatalf("whole file: %v %v", bad, err)
	}
	changed := bytes.Clone(b)
	changed[3*2048+1500] ^= 1
	if bad, err := Verify(h, bytes.NewReader(changed)); code(err) != PieceMismatch || !slices.Equal(bad, []int{3}) {
		t.Errorf("byte in piece 3: %v %v", bad, err)
	}
	changed[0] ^= 1
	if bad, err := Verify(h, bytes.NewReader(changed)); code(err) != PieceMismatch || !slices.Equal(bad, []int{0, 3}) {
		t.Errorf("bytes in pieces 0 and 3: %v %v", bad, err)
	}
	if bad, err := Verify(h, bytes.NewReader(b[:4*2048+1])); code(err) != PieceMismatch || !slices.Equal(bad, []int{4, 5}) {
		t.Errorf("short file: %v %v", bad, err)
	}
	if bad, err := Verify(h, bytes.NewReader(b[:l-1])); code(err) != PieceMismatch || !slices.Equal(bad, []int{5}) {
		t.Errorf("one byte short: %v %v", bad, err)
	}
	if _, err := Verify(h, bytes.NewReader(append(bytes.Clone(b), 0))); code(err) != DigestMismatch {
		t.Errorf("one byte long: %v", err)
	}
	mis := *h
	mis.Inner[0] ^= 1
	if _, err := Verify(&mis, bytes.NewReader(b)); code(err) != DigestMismatch {
		t.Errorf("misstated inner: %v", err)
	}
}

func TestPieceVerifies(t *testing.T) {
	const l = 3*4096 + 5
	b := patternBytes(l)
	h := head(t, l, 2, "")
	for i := range 4 {
		off, n := h.Piece(i)
		if !PieceVerifies(h, i, b[off:off+n]) {
			t.Errorf("piece %d", i)
		}
		if PieceVerifies(h, (i+1)%4, b[off:off+n]) {
			t.Errorf("piece %d verifies as %d", i, (i+1)%4)
		}
	}
	if PieceVerifies(h, 0, b[:4095]) || PieceVerifies(h, 4, nil) || PieceVerifies(h, -1, nil) {
		t.Error("a short piece or an index out of range verifies")
	}
}

// BenchmarkWrite is the head writer's throughput over a 64 MiB set.
func BenchmarkWrite(b *testing.B) {
	data := patternBytes(64 << 20)
	for _, g := range []int{0, 4, 10} {
		b.Run(fmt.Sprintf("g%d", g), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Write(bytes.NewReader(data), g, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify is Verify's throughput over a 64 MiB set (g = 4).
func BenchmarkVerify(b *testing.B) {
	data := patternBytes(64 << 20)
	h, err := Write(bytes.NewReader(data), 4, "")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Verify(h, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPieceValueByHand: D-H9 for g = 2, built from single chunks.
// A set of 2 whole pieces and a third of 3 chunks (the last of 5 bytes):
// piece 1 is parent(parent(c4, c5), parent(c6, c7)) and piece 2 is
// parent(parent(c8, c9), c10), every chunk's chaining value with its own
// counter and no node with ROOT; the three merge under ROOT, as
// parent(parent(p0, p1), p2), to the set's BLAKE3 hash.
func TestPieceValueByHand(t *testing.T) {
	const l = 10*ChunkSize + 5
	b := patternBytes(l)
	h := head(t, l, 2, "")
	chunk := func(c int) [8]uint32 {
		return guts.ChainingValue(guts.CompressChunk(b[c*ChunkSize:min((c+1)*ChunkSize, l)], &guts.IV, uint64(c), 0))
	}
	parent := func(a, b [8]uint32) [8]uint32 {
		return guts.ChainingValue(guts.ParentNode(a, b, &guts.IV, 0))
	}
	p := [3][8]uint32{
		parent(parent(chunk(0), chunk(1)), parent(chunk(2), chunk(3))),
		parent(parent(chunk(4), chunk(5)), parent(chunk(6), chunk(7))),
		parent(parent(chunk(8), chunk(9)), chunk(10)),
	}
	for i, v := range p {
		if h.Values[i] != cvBytes(v) {
			t.Errorf("piece %d: value %x, by hand %x", i, h.Values[i], cvBytes(v))
		}
	}
	top := guts.CompressNode(guts.ParentNode(parent(p[0], p[1]), p[2], &guts.IV, guts.FlagRoot))
	var cv [8]uint32
	copy(cv[:], top[:8])
	if cvBytes(cv) != blake3.Sum256(b) || h.Root != blake3.Sum256(b) {
		t.Error("the hand-built pieces do not merge to the set's BLAKE3 hash")
	}
}

// TestHeadEdges: §19.1's layout on the admitted side of each bound, read
// from heads built field by field. g = 16 with L one byte past a piece (n
// = 2) reads; k = 64 of '!' to '~' passes step 1 and step 2 refuses it;
// L = 65 536 · P reads at n = 65 536 and L one byte more does not.
func TestHeadEdges(t *testing.T) {
	build := func(g uint8, form string, l uint64, n int) []byte {
		h := &Head{G: g, InnerForm: form, Length: l, Values: make([][32]byte, n)}
		for i := range h.Values {
			h.Values[i][0] = byte(i)
		}
		h.Root, _ = Root(h.Values)
		return h.Encode()
	}
	if h, err := Read(build(16, "", PieceSize(16)+1, 2)); err != nil || h.G != 16 {
		t.Errorf("g 16: %v", err)
	}
	if _, err := Read(build(16, "", PieceSize(16), 2)); code(err) != HeadMalformed {
		t.Errorf("g 16, L one piece, n 2: %v, want tree_head_malformed", err)
	}
	if _, err := Read(build(0, string(bytes.Repeat([]byte("!"), 64)), 2048, 2)); code(err) != InnerForm {
		t.Errorf("k 64: %v, want tree_inner_form", err)
	}
	if _, err := Read(build(3, "", MaxPieces*PieceSize(3), MaxPieces)); err != nil {
		t.Errorf("n 65536 at g 3: %v", err)
	}
	if _, err := Read(build(3, "", MaxPieces*PieceSize(3)+1, MaxPieces)); code(err) != HeadMalformed {
		t.Errorf("L past 65536 pieces: %v, want tree_head_malformed", err)
	}
}

// TestReadClaimBounded: a head whose n claims 65,536 values (2 MiB) in a
// file of a few hundred bytes is refused at step 1's length check, before
// the values are allocated.
func TestReadClaimBounded(t *testing.T) {
	good := head(t, 3000, 0, "").Encode()
	b := bytes.Clone(good)
	binary.LittleEndian.PutUint64(b[6:], MaxPieces*ChunkSize)
	binary.LittleEndian.PutUint32(b[78:], MaxPieces)
	spectest.Bounded(t, len(b), HeadMalformed, func() error { _, err := Read(b); return err })
}
