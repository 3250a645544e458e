package fetch

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// ragged yields b in reads of random sizes, then err.
type ragged struct {
	b   []byte
	rng *rand.Rand
	err error
}

func (r *ragged) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := copy(p[:min(len(p), 1+r.rng.IntN(300<<10))], r.b)
	r.b = r.b[n:]
	return n, nil
}

// failAfter takes n bytes, then fails.
type failAfter struct {
	n   int
	got bytes.Buffer
}

func (w *failAfter) Write(p []byte) (int, error) {
	if w.got.Len()+len(p) > w.n {
		return 0, errors.New("disk full")
	}
	return w.got.Write(p)
}

// TestCopyOverlapped: every byte reaches the writer and the hash in order,
// across buffers and reads of any size; the limit, a read error and a write
// error each stop it as they should.
func TestCopyOverlapped(t *testing.T) {
	s := set(3<<20+12345, 51)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var dst bytes.Buffer
		sum := sha256.New()
		n, rerr, werr := copyOverlapped(&dst, sum, &ragged{b: s, rng: rng, err: io.EOF}, int64(len(s))+1)
		if n != int64(len(s)) || rerr != nil || werr != nil || !bytes.Equal(dst.Bytes(), s) || [32]byte(sum.Sum(nil)) != sha256.Sum256(s) {
			t.Fatalf("seed %d: n %d, %v, %v, equal %v", seed, n, rerr, werr, bytes.Equal(dst.Bytes(), s))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var dst bytes.Buffer
	if n, rerr, werr := copyOverlapped(&dst, sha256.New(), &ragged{b: s, rng: rng, err: io.EOF}, 1000001); n != 1000001 || rerr != nil || werr != nil || !bytes.Equal(dst.Bytes(), s[:1000001]) {
		t.Errorf("limit: %d, %v, %v", n, rerr, werr)
	}
	broken := errors.New("reset by peer")
	dst.Reset()
	if n, rerr, werr := copyOverlapped(&dst, sha256.New(), &ragged{b: s[:5000], rng: rng, err: broken}, 1<<30); n != 5000 || rerr != broken || werr != nil {
		t.Errorf("read error: %d, %v, %v", n, rerr, werr)
	}
	fw := &failAfter{n: 1 << 20}
	sum := sha256.New()
	n, rerr, werr := copyOverlapped(fw, sum, &ragged{b: s, rng: rng, err: io.EOF}, 1<<30)
	if werr == nil || rerr != nil || n != int64(fw.got.Len()) || !bytes.Equal(fw.got.Bytes(), s[:n]) {
		t.Errorf("write error: %d, %v, %v", n, rerr, werr)
	}
}
