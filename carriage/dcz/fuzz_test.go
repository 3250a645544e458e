package dcz

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/waiops/waiops/refusal"
)

// fuzzCap bounds what one fuzzed body may decode to: a few bytes of
// Zstandard can stand for gigabytes, and the fetcher's writer bounds a
// real one the same way (set_too_large).
const fuzzCap = 1 << 20

// errCapped is capWriter's error past fuzzCap.
var errCapped = errors.New("past the fuzz cap")

// capWriter keeps up to fuzzCap bytes and fails past them.
type capWriter struct{ bytes.Buffer }

func (c *capWriter) Write(b []byte) (int, error) {
	if c.Len()+len(b) > fuzzCap {
		return 0, errCapped
	}
	return c.Buffer.Write(b)
}

// FuzzDecode: a dcz body coded against a fixed predecessor is refused with
// one of H5's codes, or stopped by the writer's bound, or accepted; an
// accepted body begins with the magic and the predecessor's SHA-256, and
// klauspost's decoder, given the frame after the header on its own, yields
// the same bytes.
func FuzzDecode(f *testing.F) {
	pred, succ := pair(1 << 12)
	sum := sha256.Sum256(pred)
	var b bytes.Buffer
	for _, s := range [][]byte{succ, nil, pred[:100], bytes.Repeat([]byte{7}, 5000)} {
		b.Reset()
		if err := Encode(&b, pred, bytes.NewReader(s)); err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Clone(b.Bytes()))
	}
	f.Add(Magic[:])
	codes := []refusal.Code{Malformed, DictionaryMismatch, WindowTooLarge}
	f.Fuzz(func(t *testing.T, body []byte) {
		var out capWriter
		err := Decode(bytes.NewReader(body), pred, sum, &out)
		if errors.Is(err, errCapped) {
			return
		}
		if err != nil {
			if c := code(err); !slices.Contains(codes, c) {
				t.Fatalf("refused with %q (%v), not one of H5's codes", c, err)
			}
			return
		}
		if !bytes.Equal(body[:8], Magic[:]) || !bytes.Equal(body[8:HeaderSize], sum[:]) {
			t.Fatalf("accepted a body whose header is % x", body[:HeaderSize])
		}
		limit := WindowLimit(uint64(len(pred)))
		dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, pred), zstd.WithDecoderMaxWindow(limit),
			zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		plain, err := dec.DecodeAll(body[HeaderSize:], nil)
		if err != nil {
			t.Fatalf("accepted, but the frame alone does not decode: %v", err)
		}
		if !bytes.Equal(plain, out.Bytes()) {
			t.Fatalf("accepted as %d bytes, the frame alone decodes to %d others", out.Len(), len(plain))
		}
	})
}

// FuzzRoundTrip: any successor coded against any predecessor decodes, with
// klauspost's decoder and through Decode, to itself. The predecessor is
// the first half of the input and the successor the rest.
func FuzzRoundTrip(f *testing.F) {
	pred, succ := pair(1 << 12)
	f.Add(append(bytes.Clone(pred), succ...), len(pred))
	f.Add([]byte("abcabcabcabcabcabcabcabc"), 3)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		cut = min(max(cut, 0), len(in))
		pred, succ := in[:cut], in[cut:]
		var b bytes.Buffer
		if err := Encode(&b, pred, bytes.NewReader(succ)); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Decode(bytes.NewReader(b.Bytes()), pred, sha256.Sum256(pred), &out); err != nil || !bytes.Equal(out.Bytes(), succ) {
			t.Fatalf("Decode: %v", err)
		}
	})
}
