package prior

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// gg builds GGUF bytes field by field for the tests.
type gg struct{ b []byte }

func (g *gg) u8(v byte) *gg    { g.b = append(g.b, v); return g }
func (g *gg) u32(v uint32) *gg { g.b = binary.LittleEndian.AppendUint32(g.b, v); return g }
func (g *gg) u64(v uint64) *gg { g.b = binary.LittleEndian.AppendUint64(g.b, v); return g }
func (g *gg) str(s string) *gg { return g.u64(uint64(len(s))).raw(s) }
func (g *gg) raw(s string) *gg { g.b = append(g.b, s...); return g }
func (g *gg) pad(to int) *gg   { g.b = append(g.b, make([]byte, to-len(g.b))...); return g }
func (g *gg) head(nt, nkv uint64) *gg {
	return g.raw("GGUF").u32(3).u64(nt).u64(nkv)
}

// desc writes a tensor description: dims innermost first.
func (g *gg) desc(name string, typ uint32, off uint64, dims ...uint64) *gg {
	g.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		g.u64(d)
	}
	return g.u32(typ).u64(off)
}

func TestGGUFRules(t *testing.T) {
	b := func(g *gg) []byte { return g.b }
	// one I8 tensor "t" of 2 elements at offset 0, data at 64.
	one := func(kv func(g *gg) *gg, nkv uint64) []byte {
		g := kv(new(gg).head(1, nkv)).desc("t", 24, 0, 2)
		return g.pad(int(alignUp(uint64(len(g.b)), 32))).raw("\x01\x02").b
	}
	none := func(g *gg) *gg { return g }
	long := strings.Repeat("k", 65536)
	for _, tc := range []struct {
		name string
		file []byte
		code refusal.Code
	}{
		{"ok", one(none, 0), ""},
		// §9.2 steps 1 to 3.
		{"3 bytes", []byte("GGU"), HeaderTruncated},
		{"magic", b(new(gg).raw("GGUX").u32(3).u64(0).u64(0)), BadMagic},
		{"no version", []byte("GGUF\x03\x00"), HeaderTruncated},
		{"version 2", b(new(gg).raw("GGUF").u32(2).u64(0).u64(0)), VersionUnsupported},
		{"big-endian 3", b(new(gg).raw("GGUF").raw("\x00\x00\x00\x03").u64(0).u64(0)), VersionUnsupported},
		{"no kv count", b(new(gg).raw("GGUF").u32(3).u64(0)), HeaderTruncated},
		// Step 3 bounds a count's least size by the file's length (not by
		// the bytes left after the counts, the words step 5 uses for an
		// array): 2·28 = 56 > 55 and 5·12 = 60 > 59 are refused there;
		// 28 ≤ 51, 56 ≤ 56 and 24 ≤ 47 pass it, and the zero bytes then
		// read as an empty tensor name (step 6) or an empty key (step 5).
		{"tensor count past the file's length", b(new(gg).head(2, 0).pad(55)), HeaderTruncated},
		{"tensor count at the file's length", b(new(gg).head(2, 0).pad(56)), TensorMalformed},
		{"tensor count past the bytes left only", b(new(gg).head(1, 0).pad(24 + 27)), TensorMalformed},
		{"kv count past the file's length", b(new(gg).head(0, 5).pad(59)), HeaderTruncated},
		{"kv count past the bytes left only", b(new(gg).head(0, 2).pad(24 + 23)), HeaderMalformed},
		{"huge count", b(new(gg).head(1<<62, 0)), HeaderTruncated},
		// Steps 4 and 5.
		{"key not UTF-8", one(func(g *gg) *gg { return g.str("a\xff").u32(8).str("v") }, 1), HeaderMalformed},
		{"key upper case", one(func(g *gg) *gg { return g.str("A").u32(8).str("v") }, 1), HeaderMalformed},
		{"key empty segment", one(func(g *gg) *gg { return g.str("a..b").u32(8).str("v") }, 1), HeaderMalformed},
		{"key trailing dot", one(func(g *gg) *gg { return g.str("a.").u32(8).str("v") }, 1), HeaderMalformed},
		{"key empty", one(func(g *gg) *gg { return g.str("").u32(8).str("v") }, 1), HeaderMalformed},
		{"key 65 535 bytes", one(func(g *gg) *gg { return g.str(long[1:]).u32(8).str("v") }, 1), ""},
		{"key 65 536 bytes", one(func(g *gg) *gg { return g.str(long).u32(8).str("v") }, 1), HeaderMalformed},
		{"key twice", one(func(g *gg) *gg { return g.str("a").u32(8).str("v").str("a").u32(4).u32(1) }, 2), HeaderMalformed},
		{"value type 13", one(func(g *gg) *gg { return g.str("a").u32(13).u32(1) }, 1), HeaderMalformed},
		{"value string not UTF-8", one(func(g *gg) *gg { return g.str("a").u32(8).str("\xc3") }, 1), HeaderMalformed},
		{"value past the end", b(new(gg).head(0, 1).str("a").u32(10).u32(0)), HeaderTruncated},
		{"bool 2", one(func(g *gg) *gg { return g.str("a").u32(7).u8(2) }, 1), HeaderMalformed},
		{"bool 1", one(func(g *gg) *gg { return g.str("a").u32(7).u8(1) }, 1), ""},
		{"array of arrays, before its count", b(new(gg).head(0, 1).str("a").u32(9).u32(9)), HeaderMalformed},
		{"array type 13", one(func(g *gg) *gg { return g.str("a").u32(9).u32(13).u64(0) }, 1), HeaderMalformed},
		{"array count past the bytes", one(func(g *gg) *gg { return g.str("a").u32(9).u32(12).u64(1 << 40) }, 1), HeaderTruncated},
		{"array of bools", one(func(g *gg) *gg { return g.str("a").u32(9).u32(7).u64(2).u8(1).u8(3) }, 1), HeaderMalformed},
		{"array of strings", one(func(g *gg) *gg { return g.str("a").u32(9).u32(8).u64(2).str("x").str("") }, 1), ""},
		{"alignment u64", one(func(g *gg) *gg { return g.str("general.alignment").u32(10).u64(32) }, 1), HeaderMalformed},
		{"alignment 0", one(func(g *gg) *gg { return g.str("general.alignment").u32(4).u32(0) }, 1), HeaderMalformed},
		{"alignment 12", one(func(g *gg) *gg { return g.str("general.alignment").u32(4).u32(12) }, 1), HeaderMalformed},
		{"alignment 16", one(func(g *gg) *gg { return g.str("general.alignment").u32(4).u32(16) }, 1), ""},
		// Step 6, in its order.
		{"name empty", b(new(gg).head(1, 0).desc("", 24, 0, 1).pad(64).raw("\x01")), TensorMalformed},
		{"name 65 bytes", b(new(gg).head(1, 0).desc(long[:65], 24, 0, 1).pad(128).raw("\x01")), TensorMalformed},
		{"name twice", b(new(gg).head(2, 0).desc("t", 24, 0, 1).desc("t", 24, 32, 1).pad(96).raw("\x01").pad(128).raw("\x01")), TensorMalformed},
		{"name not UTF-8", b(new(gg).head(1, 0).desc("\xff", 24, 0, 1).pad(64).raw("\x01")), HeaderMalformed},
		{"0 dimensions", b(new(gg).head(1, 0).desc("t", 24, 0).pad(64)), TensorMalformed},
		{"5 dimensions", b(new(gg).head(1, 0).desc("t", 24, 0, 1, 1, 1, 1, 1).pad(96).raw("\x01")), TensorMalformed},
		{"dimension 0 before the type", b(new(gg).head(1, 0).desc("t", 2, 0, 0).pad(64)), TensorMalformed},
		{"type 2 (Q4_0)", b(new(gg).head(1, 0).desc("t", 2, 0, 32).pad(64)), DTypeUnknown},
		{"offset unaligned", b(new(gg).head(1, 0).desc("t", 24, 8, 1).pad(64).raw("\x01")), OffsetMismatch},
		{"Q8_0 innermost 48", b(new(gg).head(1, 0).desc("t", 8, 0, 48).pad(64)), TensorMalformed},
		{"count past 2^64 - 1", b(new(gg).head(1, 0).desc("t", 24, 0, 1<<32, 1<<32).pad(96)), TensorMalformed},
		{"Q8_0 2x32", b(new(gg).head(1, 0).desc("t", 8, 0, 32, 2).pad(96).raw(strings.Repeat("\x00", 68))), ""},
		// Step 7.
		{"padding not zero", b(new(gg).head(1, 0).desc("t", 24, 0, 1).pad(63).raw("\x09\x01")), HeaderMalformed},
		{"ends in the padding", b(new(gg).head(1, 0).desc("t", 24, 0, 1).pad(60)), HeaderTruncated},
		{"tensor past the end", b(new(gg).head(1, 0).desc("t", 24, 0, 2).pad(64).raw("\x01")), OffsetMismatch},
		{"offset past the end", b(new(gg).head(1, 0).desc("t", 24, 1<<63, 1).pad(64).raw("\x01")), OffsetMismatch},
		{"adjacent", b(new(gg).head(2, 0).desc("t", 26, 0, 8).desc("u", 24, 32, 64).pad(128).raw(strings.Repeat("\x00", 96))), ""},
		{"overlap by one", b(new(gg).head(2, 0).desc("t", 26, 0, 9).desc("u", 24, 32, 1).pad(128).raw(strings.Repeat("\x00", 36))), OffsetMismatch},
	} {
		_, err := readGGUF(tc.file)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, tc.name, err, tc.code)
	}
}

func TestGGUFObtains(t *testing.T) {
	// Alignment 64; a u32 and an array are read and not kept; dims
	// innermost first on the wire.
	g := new(gg).head(2, 3).
		str("general.alignment").u32(4).u32(64).
		str("z.name").u32(8).str("é").
		str("a.list").u32(9).u32(4).u64(1).u32(7).
		desc("w", 25, 64, 3, 2).desc("b", 0, 0, 1)
	g.pad(int(alignUp(uint64(len(g.b)), 64))).raw("\x00\x00\x80\x3f").pad(len(g.b) + 60)
	for i := range 6 {
		g.u8(byte(i)).u8(0x80)
	}
	f, err := readGGUF(g.b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Meta) != 1 || f.Meta["z.name"] != "é" {
		t.Errorf("metadata %q", f.Meta)
	}
	if len(f.Tensors) != 2 || f.Tensors[0].Name != "b" || f.Tensors[1].Name != "w" {
		t.Fatalf("tensors %v", f.Tensors)
	}
	b, w := f.Tensors[0], f.Tensors[1]
	if b.DType != "F32" || len(b.Shape) != 1 || !bytes.Equal(b.Data, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("b: %s %v %v", b.DType, b.Shape, b.Data)
	}
	if w.DType != "I16" || len(w.Shape) != 2 || w.Shape[0] != 2 || w.Shape[1] != 3 || !bytes.Equal(w.Data, []byte{0, 0x80, 1, 0x80, 2, 0x80, 3, 0x80, 4, 0x80, 5, 0x80}) {
		t.Errorf("w: %s %v %v", w.DType, w.Shape, w.Data)
	}
	// Read and checked, the u32 and the array make the file not canonical.
	_, err = ReadCanonical(GGUF, g.b)
	wantCode(t, "alignment and array", err, HeaderNotCanonical)
}

func TestGGUFWriter(t *testing.T) {
	f := &File{
		Meta: map[string]string{"general.architecture": "wai", "a": "b"},
		Tensors: []Tensor{
			{Name: "u", DType: "I64", Shape: []uint64{1}, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
			{Name: "t", DType: "I8", Shape: []uint64{3, 1}, Data: []byte{1, 2, 3}},
		},
	}
	got, err := writeGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	// §11.2 by hand: 24 + keys (8+1+4+8+1) + (8+20+4+8+3) = 89; two
	// descriptions (8+1+4+16+4+8) + (8+1+4+8+4+8) = 74: 163 bytes, data
	// at 192; "t" (3 bytes) at 0, "u" at 32.
	want := new(gg).head(2, 2).str("a").u32(8).str("b").str("general.architecture").u32(8).str("wai").
		desc("t", 24, 0, 1, 3).desc("u", 27, 32, 1)
	if len(want.b) != 163 {
		t.Fatalf("hand header is %d bytes", len(want.b))
	}
	want.pad(192).raw("\x01\x02\x03").pad(224).raw("\x01\x02\x03\x04\x05\x06\x07\x08")
	if !bytes.Equal(got, want.b) {
		t.Errorf("got\n%x\nwant\n%x", got, want.b)
	}
	if _, err := ReadCanonical(GGUF, got); err != nil {
		t.Errorf("not canonical: %v", err)
	}
	_, err = writeGGUF(&File{Tensors: []Tensor{{Name: "q", DType: "U8", Shape: []uint64{1}, Data: []byte{1}}}})
	wantCode(t, "U8 in GGUF", err, DTypeUnknown)
}
