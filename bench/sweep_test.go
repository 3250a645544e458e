package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waiops/waiops/tensor"
)

// TestSweepFits: §3's 2^26 elements per tensor is 64 channels at 1024×1024.
// conv3x3 fits at 1024; conv_transpose doubles the side, so it fits at 512
// and not at 513; the synthesis network multiplies it by 16: 64 fits, 65
// does not.
func TestSweepFits(t *testing.T) {
	fam := map[string]opFamily{}
	for _, f := range opFamilies {
		fam[f.name] = f
	}
	if !fam["conv3x3"].fits(1024) || fam["conv3x3"].fits(1025) {
		t.Fatal("conv3x3 should fit at 1024 and not at 1025")
	}
	if !fam["convT3x3s2"].fits(512) || fam["convT3x3s2"].fits(513) {
		t.Fatal("convT3x3s2 should fit at 512 and not at 513")
	}
	if !synthFits(64) || synthFits(65) {
		t.Fatal("graph_synth4 should fit at 64 and not at 65")
	}
}

// TestSweepSelects: a sweep naming conv3x3_raw and convT3x3s2 at sides 4
// and 8 builds exactly those four cases, side by side, and the default
// families leave conv3x3_raw out.
func TestSweepSelects(t *testing.T) {
	s := Sweep{Sides: []int{4, 8}, SynthSides: []int{1}, Ops: []string{"conv3x3_raw", "convT3x3s2"}}
	var names []string
	for _, c := range mustCases(t, s) {
		names = append(names, c.Name())
	}
	want := []string{"conv3x3_raw_4", "convT3x3s2_4", "conv3x3_raw_8", "convT3x3s2_8"}
	if !slices.Equal(names, want) {
		t.Fatalf("cases %v, want %v", names, want)
	}
	if (Sweep{}).Wants("conv3x3_raw") || !(Sweep{}).Wants("world") {
		t.Fatal("the default families should hold world and not conv3x3_raw")
	}
	if _, err := ParseOps("conv3x3,nope"); err == nil {
		t.Fatal("ParseOps took an unknown family")
	}
	if got, err := ParseSides("16, 512,1024"); err != nil || !slices.Equal(got, []int{16, 512, 1024}) {
		t.Fatalf("ParseSides: %v %v", got, err)
	}
	for _, bad := range []string{"0", "4097", "x", "16,"} {
		if _, err := ParseSides(bad); err == nil {
			t.Fatalf("ParseSides took %q", bad)
		}
	}
}

// TestOutputsSHA256: the hash is SHA-256 of the elements as little-endian
// int64, outputs one after another (the values computed apart from this
// code: sha256 of struct.pack('<qqq', 1, -1, 2**40)).
func TestOutputsSHA256(t *testing.T) {
	outs := []*tensor.T{{Data: []int64{1, -1}}, {Data: []int64{1 << 40}}}
	if got := outputsSHA256(outs); got != "130df35337b8b764636ead16e8e097e7340982d27ab5fe01d18d6cfc0def9104" {
		t.Fatalf("hash %s", got)
	}
	if got := outputsSHA256(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("empty hash %s", got)
	}
}

// TestWritePeerData: a conv3x3_raw case at side 8 gives one file of the six
// int32 header fields (64, 64, 8, 8, 3, runs) then 64·8·8 input bytes and
// 64·64·9 weight bytes: 24 + 4096 + 36864; other cases give none.
func TestWritePeerData(t *testing.T) {
	dir := t.TempDir()
	cs := mustCases(t, Sweep{Sides: []int{8}, Ops: []string{"conv3x3_raw", "conv3x3"}})
	if err := WritePeerData(dir, cs, 5); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "conv3x3_raw_8.bin" {
		t.Fatalf("files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 24+4096+36864 {
		t.Fatalf("%d bytes", len(b))
	}
	for i, want := range []uint32{64, 64, 8, 8, 3, 5} {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != want {
			t.Fatalf("header field %d = %d, want %d", i, got, want)
		}
	}
	if cs[1].Op != "conv3x3_raw" || int8(b[24]) != int8(cs[1].Input[0].Data[0]) {
		t.Fatal("the file's first input byte is not the case's first element")
	}
}
