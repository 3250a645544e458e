package dcz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/waiops/waiops/refusal"
)

// pair is a predecessor and a successor that shares most of its bytes.
func pair(n int) (pred, succ []byte) {
	pred = make([]byte, n)
	x := uint32(1)
	for i := range pred {
		x = x*1664525 + 1013904223
		pred[i] = byte(x >> 24)
	}
	succ = bytes.Clone(pred)
	for i := 0; i < n; i += 4099 {
		succ[i] ^= 0x5a
	}
	return pred, succ
}

func code(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

func encode(t *testing.T, pred, succ []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, pred, bytes.NewReader(succ)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWindowLimit(t *testing.T) {
	for _, c := range []struct{ d, want uint64 }{
		{0, 8 << 20}, {1 << 20, 8 << 20},
		{8 << 20, 10 << 20},                // 8 MiB + 2 MiB
		{10<<20 + 3, 10<<20 + 3 + 2621440}, // ⌊(10 MiB + 3) / 4⌋ = 2621440
		{120 << 20, 128 << 20}, {1 << 40, 128 << 20},
	} {
		if got := WindowLimit(c.d); got != c.want {
			t.Errorf("WindowLimit(%d) = %d, want %d", c.d, got, c.want)
		}
	}
}

// TestFrameHeader reads windows from headers written by hand (RFC 8878
// §3.1.1.1.2).
func TestFrameHeader(t *testing.T) {
	magic := []byte{0x28, 0xB5, 0x2F, 0xFD}
	for _, c := range []struct {
		hdr    []byte
		window uint64
		did    uint32
	}{
		{[]byte{0x00, 0x70}, 16 << 20, 0},                   // exponent 14: 2^24
		{[]byte{0x00, 0x59}, 2<<20 + 256<<10, 0},            // 2^21 + 2^21/8
		{[]byte{0x01, 0x00, 0x07}, 1024, 7},                 // 1-byte dictionary ID
		{[]byte{0x20, 0xFF}, 255, 0},                        // single segment, 1-byte size
		{[]byte{0xA0, 0x00, 0x00, 0x00, 0x01}, 16 << 20, 0}, // single segment, 4-byte size
		{[]byte{0xA2, 0x34, 0x12, 0x00, 0x00, 0x00, 0x02}, 32 << 20, 0x1234},
		{[]byte{0x40, 0x38, 0x00, 0x00}, 1 << 17, 0}, // 2-byte content size, window 2^17
	} {
		f := &frameReader{r: bufioOf(append(bytes.Clone(magic), c.hdr...))}
		h, err := f.readHeader()
		if err != nil || h.window != c.window || h.dictID != c.did {
			t.Errorf("% x: window %d dict %d, %v; want %d, %d", c.hdr, h.window, h.dictID, err, c.window, c.did)
		}
	}
	f := &frameReader{r: bufioOf(append(bytes.Clone(magic), 0x08, 0x00))}
	if _, err := f.readHeader(); code(err) != Malformed {
		t.Errorf("reserved bit: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	pred, succ := pair(3 << 20)
	body := encode(t, pred, succ)
	if len(body) > len(succ)/4 {
		t.Errorf("the coded body is %d bytes of a %d-byte successor: the dictionary was not used", len(body), len(succ))
	}
	var out bytes.Buffer
	if err := Decode(bytes.NewReader(body), pred, sha256.Sum256(pred), &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), succ) {
		t.Fatal("the decoding is not the successor")
	}
	// Stock zstd decodes the frame after the 40-byte header against the
	// predecessor (the corpus's "stock" check, §16).
	stockDecodes(t, pred, body, succ)
}

// TestDecodeRefuses holds each check of H5 to its code, in order.
func TestDecodeRefuses(t *testing.T) {
	pred, succ := pair(1 << 20)
	sum := sha256.Sum256(pred)
	body := encode(t, pred, succ)
	other := sha256.Sum256([]byte("another set"))
	// A frame with a 16 MiB window: past the 8 MiB limit of a 1 MiB dictionary.
	var wide bytes.Buffer
	wide.Write(body[:HeaderSize])
	enc, _ := zstd.NewWriter(&wide, zstd.WithEncoderDictRaw(0, pred), zstd.WithWindowSize(16<<20), zstd.WithEncoderConcurrency(1))
	enc.Write(succ)
	enc.Close()
	wrongMagic := bytes.Clone(body)
	wrongMagic[0] = 0x28
	twoFrames := append(bytes.Clone(body), body[HeaderSize:]...)
	corrupt := bytes.Clone(body)
	corrupt[len(corrupt)-10] ^= 0xff // inside the checksummed frame
	for _, c := range []struct {
		name string
		body []byte
		dict [32]byte
		want refusal.Code
	}{
		{"short", body[:39], sum, Malformed},
		{"magic", wrongMagic, sum, Malformed},
		{"gzip body", []byte("\x1f\x8b\x08\x00 not a dcz header at all......"), sum, Malformed},
		{"another dictionary", body, other, DictionaryMismatch},
		{"16 MiB window", wide.Bytes(), sum, WindowTooLarge},
		{"truncated frame", body[:len(body)-7], sum, Malformed},
		{"header only", body[:HeaderSize], sum, Malformed},
		{"two frames", twoFrames, sum, Malformed},
		{"corrupt frame", corrupt, sum, Malformed},
	} {
		var out bytes.Buffer
		err := Decode(bytes.NewReader(c.body), pred, c.dict, &out)
		if code(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// TestDecodeWriterError returns the writer's own error, not dcz_malformed.
func TestDecodeWriterError(t *testing.T) {
	pred, succ := pair(1 << 20)
	mine := errors.New("past the bound")
	err := Decode(bytes.NewReader(encode(t, pred, succ)), pred, sha256.Sum256(pred), failWriter{mine})
	if err != mine {
		t.Errorf("Decode = %v, want the writer's error", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func bufioOf(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// changedPair is a predecessor of n pseudo-random bytes and a successor
// with a fraction perMille/1000 of its bytes changed, at random places.
// A skewed predecessor draws its bytes as a quantized weight's are drawn,
// mostly near 0 (the sum of four uniform nibbles, centred), so literals are
// worth a Huffman table; an even one is incompressible.
func changedPair(n int, perMille int, skewed bool, seed uint64) (pred, succ []byte) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pred = make([]byte, n)
	for i := range pred {
		x := rng.Uint64()
		if skewed {
			pred[i] = byte(int(x&15) + int(x>>4&15) + int(x>>8&15) + int(x>>12&15) - 30)
		} else {
			pred[i] = byte(x)
		}
	}
	succ = bytes.Clone(pred)
	for range n / 1000 * perMille {
		i := rng.IntN(n)
		succ[i] ^= byte(1 + rng.IntN(255))
	}
	return pred, succ
}
