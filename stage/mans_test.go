package stage

import (
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// TestZp checks §5E's Zp at hand-worked points: nb grows at 255, 127, 63,
// 31, 15, 7, 3 and 1.
func TestZp(t *testing.T) {
	for i, want := range map[int]uint32{
		511: 255, 256: 0, 255: 510, 128: 256, 127: 252 + 512, 64: 512,
		3: 128 + 7*256, 2: 7 * 256, 1: 8 * 256,
	} {
		if zp[i] != want {
			t.Errorf("Zp[%d] = %d, want %d", i, zp[i], want)
		}
	}
}

// TestLatentRow checks T_y for P = [128, 128] (sym 0, −1) by hand:
// C = [0, 128, 256], F = [0, 64, 128], G = [128, 192, 256].
func TestLatentRow(t *testing.T) {
	var row [256]uint32
	buildLatentRow(row[:], []int64{128, 128})
	for u, want := range map[int]uint32{
		0:   1<<24 | 0<<16 | 0,        // next 128: nb 1, 256 XOR 256
		63:  1<<24 | 126<<16 | 0,      // next 191: 382 XOR 256
		64:  1<<24 | 0<<16 | 0xffff,   // k = 1, next 128, sym −1
		128: 1<<24 | 128<<16 | 0,      // G of k = 0: next 128 + 64 = 192
		191: 1<<24 | 254<<16 | 0,      // next 255
		192: 1<<24 | 128<<16 | 0xffff, // G of k = 1: next 192
		255: 1<<24 | 254<<16 | 0xffff, // next 255
	} {
		if row[u] != want {
			t.Errorf("T[%d] = %#x, want %#x", u, row[u], want)
		}
	}
	// One column: every slot u has next 256 + u, nb 0, base u, sym 0.
	buildLatentRow(row[:], []int64{256})
	for u := range row {
		if row[u] != uint32(u)<<16 {
			t.Fatalf("P = [256]: T[%d] = %#x", u, row[u])
		}
	}
}

// TestMansSgmHandWorked decodes a stream worked by hand.
//
// Stream 00 00 00 00 80 b5 a5 03 (L = 8). init: h = LE64(8) =
// 0x03a5b580·2^32, b = 57, h = 0x01a5b580·2^32; s1 = read(8) = 0xd2 (210),
// h = 0x1b580·2^32; s2 = read(8) = 0xda (218), h = 0x180·2^32, b = 41;
// flush: d = 7 XOR 5 = 2, p = 6, b = 57, h = LE64(6) mod 2^57 = 0x180·2^48.
//
// Row P = [256] (T[u] = u·2^16: sym 0, state kept), bound 0, so every
// position escapes. Position 0 (a span of one): in reads nothing; out:
// f = read(1) = 1 (b 56, h = 0x80·2^48), v = read(3) = 4 (b 53, h = 0),
// g = 0, sym = 4/2 + 0 = 2; flush: d = 7 XOR 6 = 1, p = 5, b = 61,
// h = LE64(5) mod 2^61 = 2^63 mod 2^61 = 0. The span's flush: d = 0.
// Position 1: f = 0 (b 60), v = read(16) = 0 (b 44), sym 0; flush d = 2,
// p = 3, b = 60; span flush d = 0. Position 2: b 59, then 43; flush d = 2,
// p = 1, b = 59. Position 3: b 58, then 42; flush needs d = 2 > p = 1:
// stream_exhausted at 3 (the escape's flush belongs to its position).
func TestMansSgmHandWorked(t *testing.T) {
	tab, err := NewSgmTables([][]int64{{256}}, []int64{0})
	if err != nil {
		t.Fatal(err)
	}
	stream := mustHex(t, "0000000080b5a503")
	one := Span{Mask: []bool{true}, Sigma: []int64{0}}
	var d MansDecoder
	got, err := d.Sgm(stream, tab, []Span{one, one, one})
	if err != nil || !slices.Equal(got, []int64{2, 0, 0}) || d.Escapes != 3 {
		t.Errorf("three spans: got %v, %v, %d escapes; want [2 0 0]", got, err, d.Escapes)
	}
	_, err = d.Sgm(stream, tab, []Span{one, one, one, one})
	wantRefusal(t, "four spans", err, StreamExhausted, 3)
	// The same four positions as one span: a group of four in steps (which
	// read nothing), its flush (d = 7 XOR 7 = 0), then the four outs; the
	// fourth out's flush refuses at 3.
	four := Span{Mask: []bool{true, true, true, true}, Sigma: []int64{0, 0, 0, 0}}
	_, err = d.Sgm(stream, tab, []Span{four})
	wantRefusal(t, "one span of four", err, StreamExhausted, 3)
	// Unmasked positions read nothing and decode to 0.
	off := Span{Mask: []bool{false, true, false}, Sigma: []int64{0, 0, 0}}
	got, err = d.Sgm(stream, tab, []Span{off})
	if err != nil || !slices.Equal(got, []int64{0, 2, 0}) {
		t.Errorf("masked span: got %v, %v; want [0 2 0]", got, err)
	}
}

// TestMansInit: the refusals of init are at 0.
func TestMansInit(t *testing.T) {
	tab, _ := NewSgmTables([][]int64{{256}}, []int64{0})
	var d MansDecoder
	for name, s := range map[string]string{
		"empty":     "",
		"zero tail": "ff0000000000000000",
		// L = 1: h = 2^56, b = 56; two reads leave b = 40; the flush needs
		// d = 7 XOR 5 = 2 bytes of p = 1.
		"one byte": "01",
		// h = 1: b = 0, and read(8) needs 8 bits.
		"sentinel only": "0100000000000000",
	} {
		_, err := d.Sgm(mustHex(t, s), tab, nil)
		wantRefusal(t, name, err, StreamExhausted, 0)
	}
}

// TestMansFacTable: a row with c_a = 2 for every a gives symbol 0 the slots
// 0 and 1 (k = 2: Zp[2], Zp[3]), slot 255 the escape (Zp[1], 63), and
// leaves slots 2..254 as the previous row wrote them.
func TestMansFacTable(t *testing.T) {
	var d MansDecoder
	d.tz[7] = 12345 // the previous row's entry
	var row FacRow
	for a := range row {
		row[a] = 2
	}
	d.facTable(&row)
	want := map[int]uint32{0: 1792 << 16, 1: 1920 << 16, 7: 12345, 255: 2048<<16 | 63}
	for j, w := range want {
		if d.tz[j] != w {
			t.Errorf("T_z[%d] = %#x, want %#x", j, d.tz[j], w)
		}
	}
}

// TestMansFacHandWorked uses the window of TestMansSgmHandWorked (s1 = 210,
// s2 = 218, b = 57, h = 0x180·2^48, p = 6) with a first row whose counts
// are all 0: only slot 255 is written, so T_z[210] = T_z[218] = 0 (sym 0,
// nb 0, next state 0). A row of 3: in(s1), out, in(s2), out, in(s1), out
// gives 0, 0, 0 and both states 0; the row's flush has d = 7 XOR 7 = 0.
// A second row of 1 with c_a = 255 for every a: symbol 0 owns slots
// 0..254 (k = 255), so T_z[0] = Zp[255]·2^16 = 510·2^16: nb 1, and
// s1 = (510 OR read(1)) mod 256 = 254 OR 1 = 255 (read(1) takes h's top
// bit, 1), sym 0.
func TestMansFacHandWorked(t *testing.T) {
	var full FacRow
	for a := range full {
		full[a] = 255
	}
	var d MansDecoder
	got, err := d.Fac(mustHex(t, "0000000080b5a503"), []FacRow{{}, full}, []int64{3, 1})
	if err != nil || !slices.Equal(got, []int64{0, 0, 0, 0}) || d.s[0] != 255 || d.s[1] != 0 {
		t.Errorf("got %v, %v, states %v; want [0 0 0 0], [255 0]", got, err, d.s)
	}
	// Conditions before the window.
	_, err = d.Fac(nil, []FacRow{{1, 0}}, []int64{1})
	wantRefusal(t, "decreasing counts", err, refusal.ModelMismatch, -1)
}

// TestMansConditions: the table and span conditions refuse model_mismatch
// at −1, before the window starts (an empty stream would refuse at 0).
func TestMansConditions(t *testing.T) {
	_, err := NewSgmTables([][]int64{{128, 127}}, []int64{0})
	wantRefusal(t, "sum 255", err, refusal.ModelMismatch, -1)
	_, err = NewSgmTables([][]int64{{256}}, []int64{-1})
	wantRefusal(t, "bound −1", err, refusal.ModelMismatch, -1)
	tab, _ := NewSgmTables([][]int64{{256}, {256}}, []int64{0})
	var d MansDecoder
	_, err = d.Sgm(nil, tab, []Span{{Mask: []bool{false}, Sigma: []int64{1}}})
	wantRefusal(t, "σ with a row but no bound", err, refusal.ModelMismatch, -1)
}

// TestMansNoAllocation: a reused decoder allocates nothing per decode.
func TestMansNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tab, _ := NewSgmTables([][]int64{{100, 60, 60, 20, 16}}, []int64{2})
	// Two spans of 256 positions, three in four masked, and 4 KiB of
	// pseudo-random memory (a fixed LCG; the decode's values do not matter,
	// only that it runs through masked and unmasked positions).
	spans := make([]Span, 2)
	for k := range spans {
		spans[k] = Span{Mask: make([]bool, 256), Sigma: make([]int64, 256)}
		for i := range spans[k].Mask {
			spans[k].Mask[i] = (i*7+k)%4 != 0
		}
	}
	mem := make([]byte, 4096)
	x := uint32(9)
	for i := range mem {
		x = x*1664525 + 1013904223
		mem[i] = byte(x >> 24)
	}
	mem[len(mem)-1] |= 1 // a mans memory ends in a non-zero byte
	var d MansDecoder
	if _, err := d.Sgm(mem, tab, spans); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _, _ = d.Sgm(mem, tab, spans) }); a != 0 {
		t.Errorf("%v allocations per decode", a)
	}
}
