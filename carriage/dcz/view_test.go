package dcz

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestAtFile codes and decodes through a predecessor file (mapped where
// the system maps), to the same body Encode makes and to the successor.
func TestAtFile(t *testing.T) {
	pred, succ := changedPair(2<<20, 5, true, 11)
	path := filepath.Join(t.TempDir(), "pred")
	if err := os.WriteFile(path, pred, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum := sha256.Sum256(pred)
	var body bytes.Buffer
	if err := EncodeAt(&body, f, int64(len(pred)), sum, bytes.NewReader(succ)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body.Bytes(), encode(t, pred, succ)) {
		t.Error("EncodeAt's body is not Encode's")
	}
	var out bytes.Buffer
	if err := DecodeAt(bytes.NewReader(body.Bytes()), f, int64(len(pred)), sum, &out); err != nil || !bytes.Equal(out.Bytes(), succ) {
		t.Fatalf("DecodeAt: %v", err)
	}
	// Through a reader that is not a file, the bytes are read.
	out.Reset()
	if err := DecodeAt(bytes.NewReader(body.Bytes()), bytes.NewReader(pred), int64(len(pred)), sum, &out); err != nil || !bytes.Equal(out.Bytes(), succ) {
		t.Fatalf("DecodeAt through a bytes.Reader: %v", err)
	}
	// A size past the file's end is an error, not a fault.
	if err := DecodeAt(bytes.NewReader(body.Bytes()), f, int64(len(pred))+1, sum, &out); err == nil {
		t.Error("a predecessor size past the file's end was accepted")
	}
}

// TestDecodeStreams: a bound of 1 MiB on the decoded bytes of a 16 MiB
// successor that shares nothing with its predecessor stops the decoding
// once about a megabyte of the body is read, not after the whole body:
// the body is read as it comes and each decoded block written at once.
func TestDecodeStreams(t *testing.T) {
	pred, _ := changedPair(1<<20, 0, false, 12)
	succ, _ := changedPair(16<<20, 0, false, 13)
	body := encode(t, pred, succ)
	in := &countReader{r: bytes.NewReader(body)}
	bound := &boundWriter{left: 1 << 20}
	err := DecodeAt(in, bytes.NewReader(pred), int64(len(pred)), sha256.Sum256(pred), bound)
	if !errors.Is(err, errBound) {
		t.Fatalf("DecodeAt = %v, want the bound's error", err)
	}
	if in.n > 3<<20 {
		t.Errorf("%d bytes of a %d-byte body read before a 1 MiB bound stopped it", in.n, len(body))
	}
}

var errBound = errors.New("past the bound")

// boundWriter takes left bytes and fails past them, as the fetcher's
// set_too_large writer does.
type boundWriter struct{ left int }

func (b *boundWriter) Write(p []byte) (int, error) {
	if len(p) > b.left {
		return 0, errBound
	}
	b.left -= len(p)
	return len(p), nil
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
