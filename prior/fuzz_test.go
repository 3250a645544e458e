package prior

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
)

// Fuzz targets: no input panics, every failure is a refusal, and what a
// reader allocates is bounded by the file it was given, never by a size or
// count the file declares.

// seedCorpus adds the committed corpus's files of ext as seeds.
func seedCorpus(f *testing.F, ext string) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*"+ext))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// fuzzRead checks one reader on b: a refusal or a file that writes back,
// and at most perByte bytes allocated per input byte (plus 64 KiB).
func fuzzRead(t *testing.T, form Form, b []byte, perByte uint64) {
	var f *File
	var err error
	n := allocated(func() { f, err = Read(form, b) })
	if limit := perByte*uint64(len(b)) + 1<<16; n > limit {
		t.Fatalf("%s: %d bytes allocated reading %d (limit %d)", form, n, len(b), limit)
	}
	if err != nil {
		spectest.Refusal(t, err, Codes...)
		return
	}
	// What reads also writes canonically, and the canonical file reads
	// back to the same tensors (the NNC writer may refuse a value).
	c, err := Write(form, f)
	if err != nil {
		return
	}
	g, err := Read(form, c)
	if err != nil {
		t.Fatalf("%s: the canonical file of a read file does not read: %v", form, err)
	}
	if len(g.Tensors) != len(f.Tensors) {
		t.Fatalf("%s: %d tensors, canonical %d", form, len(f.Tensors), len(g.Tensors))
	}
}

// The safetensors reader's JSON tree costs at most a few hundred bytes per
// header byte (one value per byte at worst, with its slice's growth).
func FuzzSafetensors(f *testing.F) {
	seedCorpus(f, ".safetensors")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzRead(t, Safetensors, b, 512) })
}

// The GGUF reader keeps a description per 28 bytes and a key per 12.
func FuzzGGUF(f *testing.F) {
	seedCorpus(f, ".gguf")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzRead(t, GGUF, b, 64) })
}

// An NNC integer payload decodes to 4 bytes per element and an element
// costs at least one bin, which can be as little as about 1/88 of a bit
// (T's least entry 2 against a range of 256 or more): so up to about 2 816
// bytes a payload byte, doubled by the slice's growth.
func FuzzNNC(f *testing.F) {
	seedCorpus(f, ".nnc")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzRead(t, NNC, b, 8192) })
}

// FuzzCABAC decodes arbitrary payloads (no panic, only nnc_truncated or
// nnc_malformed), and round-trips values drawn from the same bytes.
func FuzzCABAC(f *testing.F) {
	f.Add([]byte{0x8d, 0x00, 0x13, 0x70, 0x0e, 0xcb, 0x3f, 0x80}, uint8(10), uint16(3))
	f.Add([]byte{0xff, 0xff, 0xff}, uint8(0), uint16(1))
	f.Add(binary.LittleEndian.AppendUint32(nil, 1<<31-1), uint8(255), uint16(40))
	f.Fuzz(func(t *testing.T, b []byte, unary uint8, n uint16) {
		g := int(unary) + 1
		if _, err := decodeInts(b, g, uint64(n)); err != nil {
			spectest.Refusal(t, err, NNCTruncated, NNCMalformed)
		}
		vals := make([]int64, 0, len(b)/4)
		for i := 0; i+4 <= len(b); i += 4 {
			v := int64(int32(binary.LittleEndian.Uint32(b[i:])))
			if v == -1<<31 {
				v = -(1<<31 - 1)
			}
			vals = append(vals, v>>(b[i]&31))
		}
		if len(vals) == 0 {
			return
		}
		p, err := encodeInts(vals, g)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		got, err := decodeInts(p, g, uint64(len(vals)))
		if err != nil {
			t.Fatalf("decode of an encoded payload: %v", err)
		}
		for i, v := range vals {
			if w := int64(int32(binary.LittleEndian.Uint32(got[4*i:]))); w != v {
				t.Fatalf("element %d: %d, want %d", i, w, v)
			}
		}
	})
}
