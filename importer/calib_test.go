package importer

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// npyBytes writes an .npy file (format 1.0) by hand: the magic, the
// version, the header dict padded to 64 bytes, then the data.
func npyBytes(descr, shape string, data []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(append(b, h...), data...)
}

func f32s(v ...float32) []byte {
	var b []byte
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

func TestReadLatents(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	i64 := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 7), uint64(0xFFFFFFFFFFFFFFFD)) // 7, −3
	for _, c := range []struct {
		name string
		file []byte
		want []int64
		err  string
	}{
		{"f4.npy", npyBytes("<f4", "(1, 2, 1, 1)", f32s(3, -4)), []int64{3, -4}, ""},
		{"chw.npy", npyBytes("<i8", "(2, 1, 1)", i64), []int64{7, -3}, ""},
		{"i1.npy", npyBytes("|i1", "(1, 1, 2)", []byte{5, 0xFB}), []int64{5, -5}, ""},
		{"t.json", []byte(`{"data":["1","-2"],"shape":["2","1","1"]}`), []int64{1, -2}, ""},
		{"half.npy", npyBytes("<f4", "(1, 2, 1, 1)", f32s(0.5, 1)), nil, "not a whole number"},
		{"big.npy", npyBytes(">f4", "(1, 1, 1, 1)", []byte{0, 0, 0, 0}), nil, "big-endian"},
		{"flat.npy", npyBytes("<f4", "(2,)", f32s(1, 2)), nil, "want [1, C, H, W] or [C, H, W]"},
		{"huge.npy", npyBytes("<f4", "(1, 65536, 65536, 2)", nil), nil, "passes 2^26 elements"},
		{"str.npy", npyBytes("<U3", "(1, 1, 1)", make([]byte, 12)), nil, "dtype"},
	} {
		got, err := ReadLatent(write(c.name, c.file))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Data, c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
}

// TestReadLatentsFS: a directory of an fs.FS is read in name order, files
// neither .npy nor .json and subdirectories (x.npy/) left out; a directory with no
// latent is an error, as is a bad file, named.
func TestReadLatentsFS(t *testing.T) {
	fsys := fstest.MapFS{
		"d/b.npy":       {Data: npyBytes("|i1", "(1, 1, 1)", []byte{2})},
		"d/a.json":      {Data: []byte(`{"data":["1"],"shape":["1","1","1"]}`)},
		"d/notes.txt":   {Data: []byte("x")},
		"d/x.npy/c.npy": {Data: npyBytes("|i1", "(1, 1, 1)", []byte{3})},
		"e/readme.txt":  {Data: []byte("x")},
		"f/bad.npy":     {Data: npyBytes("<f4", "(1, 1, 1)", f32s(0.5))},
	}
	got, err := ReadLatentsFS(fsys, "d")
	if err != nil || len(got) != 2 || got[0].Name != "a.json" || got[0].T.Data[0] != 1 || got[1].Name != "b.npy" || got[1].T.Data[0] != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := ReadLatentsFS(fsys, "e"); err == nil || !strings.Contains(err.Error(), "no .npy or .json latents") {
		t.Fatalf("no latents: %v", err)
	}
	if _, err := ReadLatentsFS(fsys, "f"); err == nil || !strings.Contains(err.Error(), "bad.npy: ") || !strings.Contains(err.Error(), "not a whole number") {
		t.Fatalf("bad file: %v", err)
	}
}
