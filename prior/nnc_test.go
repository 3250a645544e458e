package prior

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// ndu describes a data unit's fields for the tests; the zero value with a
// name and dims is what §12.3 writes.
type ndu struct {
	pt, multi, ddfPresent, ddf, outOfBand, dq, noDims, noUnary, cpt, scan uint64
	name                                                                  string
	zeroDims                                                              bool
	dims                                                                  []uint64
	badAlign                                                              bool
	payload                                                               []byte
}

func (d ndu) bytes() []byte {
	var w bitWriter
	w.u(5, d.pt)
	w.u(1, d.multi)
	w.u(1, d.ddfPresent)
	w.u(1, 1-d.outOfBand)
	w.str(d.name)
	if d.pt == ptInt {
		w.u(1, d.dq)
	}
	if d.ddfPresent == 1 {
		w.u(7, d.ddf)
	}
	if d.outOfBand == 0 {
		w.u(1, 1-d.noDims)
		w.u(1, 1-d.noUnary)
		w.u(4, d.cpt)
		w.ue(1, uint64(len(d.dims)))
		for _, x := range d.dims {
			w.ue(7, x)
		}
		if d.noUnary == 0 {
			w.u(8, 10)
		}
		if len(d.dims) > 1 {
			w.u(4, d.scan)
		}
	}
	if d.badAlign {
		w.u(1, 0)
		for w.pos%8 != 0 {
			w.u(1, 0)
		}
	} else {
		w.align()
	}
	return unitBytes(unitNDU, append(w.b, d.payload...))
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

var (
	strUnit = unitBytes(unitSTR, []byte{0})
	mpsUnit = unitBytes(unitMPS, []byte{0, 0, 0x80})
)

func TestNNCRules(t *testing.T) {
	ints := func(vals ...int64) []byte {
		p, err := encodeInts(vals, 11)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := ndu{name: "t", dims: []uint64{2}, payload: ints(3, -4)}
	raw := ndu{pt: ptRawFloat, name: "f", dims: []uint64{1}, payload: []byte{0, 0, 0x80, 0x3f}}
	tpl := func(sf, cf byte, s string) []byte { return unitBytes(unitTPL, append([]byte{sf, cf}, s...)) }
	for _, tc := range []struct {
		name string
		file []byte
		code refusal.Code
	}{
		{"ok", cat(strUnit, mpsUnit, ok.bytes(), raw.bytes()), ""},
		// Units.
		{"empty", nil, NNCTruncated},
		{"one byte", []byte{0}, NNCTruncated},
		{"size 2", []byte{0, 2, 0}, NNCTruncated},
		{"size past the end", []byte{0, 5, 0, 0}, NNCTruncated},
		{"31-bit size 4: type past the unit", []byte{0x80, 0, 0, 4}, NNCTruncated},
		// Size 3 passes "under 3 bytes", but its own 4-byte size field runs
		// past the unit's end: nnc_truncated (§12.2), not a read past it.
		{"31-bit size 3: the size field past the unit", []byte{0x80, 0, 0, 3, 0}, NNCTruncated},
		{"31-bit size", cat([]byte{0x80, 0, 0, 6, 2, 0}, mpsUnit), ""},
		{"first unit MPS", cat(mpsUnit, strUnit), NNCMalformed},
		{"first unit not STR before the counter", []byte{0, 4, 1<<2 | 1, 0}, NNCMalformed},
		{"partial data counter", []byte{0, 4, 1, 0}, NNCNotRead},
		{"STR twice", cat(strUnit, strUnit, mpsUnit), NNCMalformed},
		{"STR long", cat(unitBytes(unitSTR, []byte{0, 0}), mpsUnit), NNCMalformed},
		{"no MPS", strUnit, NNCMalformed},
		{"LPS", cat(strUnit, unitBytes(2, nil)), NNCNotRead},
		{"QNT", cat(strUnit, mpsUnit, unitBytes(4, nil)), NNCNotRead},
		{"AGG", cat(strUnit, mpsUnit, unitBytes(6, nil)), NNCNotRead},
		{"reserved type", cat(strUnit, mpsUnit, unitBytes(40, nil)), NNCNotRead},
		// NNR_MPS.
		{"MPS reserved bit before a performance map", cat(strUnit, unitBytes(unitMPS, []byte{0x40, 0x01, 0x80})), NNCMalformed},
		{"MPS performance map", cat(strUnit, unitBytes(unitMPS, []byte{0x40, 0, 0x80})), NNCNotRead},
		{"MPS indexed reference", cat(strUnit, unitBytes(unitMPS, []byte{0, 0x80, 0x80})), NNCNotRead},
		{"MPS quantisation fields", cat(strUnit, unitBytes(unitMPS, []byte{0x01, 0, 0xff, 0xff, 0x80})), ""},
		{"MPS method bit 2 only", cat(strUnit, unitBytes(unitMPS, []byte{0x04, 0, 0x80})), ""},
		{"MPS bad alignment", cat(strUnit, unitBytes(unitMPS, []byte{0, 0, 0x81})), NNCMalformed},
		{"MPS twice", cat(strUnit, mpsUnit, mpsUnit), NNCMalformed},
		{"MPS after a data unit", cat(strUnit, mpsUnit, ok.bytes(), mpsUnit), NNCMalformed},
		// NNR_TPL.
		{"TPL before MPS", cat(strUnit, tpl(0, 0, "{}\x00"), mpsUnit), NNCMalformed},
		{"TPL twice", cat(strUnit, mpsUnit, tpl(0, 0, "{}\x00"), tpl(0, 0, "{}\x00")), NNCMalformed},
		{"TPL format 1", cat(strUnit, mpsUnit, tpl(1, 0, "{}\x00")), NNCNotRead},
		{"TPL compressed", cat(strUnit, mpsUnit, tpl(3, 1, "{}\x00")), NNCNotRead},
		{"TPL unterminated", cat(strUnit, mpsUnit, tpl(0, 0, "{}")), NNCTruncated},
		{"TPL not UTF-8", cat(strUnit, mpsUnit, tpl(4, 0, "\xff\x00")), NNCMalformed},
		{"TPL a byte after", cat(strUnit, mpsUnit, tpl(0, 0, "{}\x00\x00")), NNCMalformed},
		// NNR_NDU, in its order.
		{"NDU before MPS", cat(strUnit, ok.bytes(), mpsUnit), NNCMalformed},
		{"NNR_PT_FLOAT", cat(strUnit, mpsUnit, ndu{pt: 1, multi: 1, name: ""}.bytes()), NNCNotRead},
		{"NNR_PT_BLOCK", cat(strUnit, mpsUnit, ndu{pt: 3, name: "t"}.bytes()), NNCNotRead},
		{"several elements before the name", cat(strUnit, mpsUnit, ndu{multi: 1, name: ""}.bytes()), NNCNotRead},
		{"empty name", cat(strUnit, mpsUnit, ndu{name: "", dq: 1}.bytes()), NNCMalformed},
		{"dq_flag 1", cat(strUnit, mpsUnit, ndu{name: "t", dq: 1, ddfPresent: 1, ddf: 5}.bytes()), NNCNotRead},
		{"format 1 for integers", cat(strUnit, mpsUnit, ndu{name: "t", ddfPresent: 1, ddf: 1, outOfBand: 1}.bytes()), NNCNotRead},
		{"format 0 for integers", cat(strUnit, mpsUnit, ndu{name: "t", ddfPresent: 1, dims: []uint64{2}, payload: ints(3, -4)}.bytes()), ""},
		{"format 0 for floats", cat(strUnit, mpsUnit, ndu{pt: ptRawFloat, name: "f", ddfPresent: 1, dims: []uint64{1}}.bytes()), NNCNotRead},
		{"input parameters out of band", cat(strUnit, mpsUnit, ndu{name: "t", outOfBand: 1}.bytes()), NNCNotRead},
		{"parameter types 1 before dims", cat(strUnit, mpsUnit, ndu{name: "t", cpt: 1, noDims: 1}.bytes()), NNCNotRead},
		{"dims out of band", cat(strUnit, mpsUnit, ndu{name: "t", noDims: 1}.bytes()), NNCNotRead},
		{"0 dimensions", cat(strUnit, mpsUnit, ndu{name: "t"}.bytes()), NNCMalformed},
		{"17 dimensions", cat(strUnit, mpsUnit, ndu{name: "t", dims: make([]uint64, 17)}.bytes()), NNCMalformed},
		{"a dimension 0", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{3, 0}}.bytes()), NNCMalformed},
		{"2^28 + 1 elements", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{1<<14 + 1, 1 << 14}}.bytes()), NNCNotRead},
		{"scan order 1", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{1, 2}, scan: 1}.bytes()), NNCNotRead},
		{"bad alignment", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{2}, badAlign: true, payload: ints(3, -4)}.bytes()), NNCMalformed},
		{"unary length out of band", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{2}, noUnary: 1, payload: ints(3, -4)}.bytes()), NNCNotRead},
		{"raw floats short", cat(strUnit, mpsUnit, ndu{pt: ptRawFloat, name: "f", dims: []uint64{2}, payload: []byte{1, 2, 3, 4}}.bytes()), NNCMalformed},
		{"payload cut", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{2}, payload: ints(3, -4)[:1]}.bytes()), NNCTruncated},
		{"payload a byte long", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{2}, payload: append(ints(3, -4), 0)}.bytes()), NNCMalformed},
		{"payload of more elements", cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{1}, payload: ints(3, -4)}.bytes()), NNCMalformed},
		{"one name twice", cat(strUnit, mpsUnit, ok.bytes(), raw.bytes(), ok.bytes()), NNCMalformed},
		{"one name twice, then a unit not read", cat(strUnit, mpsUnit, ok.bytes(), ok.bytes(), unitBytes(2, nil)), NNCNotRead},
	} {
		_, err := readNNC(tc.file)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, tc.name, err, tc.code)
	}
}

func TestNNCExpGolomb(t *testing.T) {
	// ue(7) of 2^24 − 129 is 16 zeros, a one and 23 bits: 40 bits, read.
	var w bitWriter
	w.ue(7, 1<<24-129)
	if w.pos != 40 {
		t.Fatalf("%d bits", w.pos)
	}
	r := &bitReader{b: w.b}
	if v, err := r.ue(7, "x"); err != nil || v != 1<<24-129 {
		t.Errorf("got %d, %v", v, err)
	}
	// 2^24 − 128 needs 17 zeros: 42 bits, nnc_malformed.
	w = bitWriter{}
	w.ue(7, 1<<24-128)
	_, err := (&bitReader{b: w.b}).ue(7, "x")
	wantCode(t, "42-bit code", err, NNCMalformed)
	// Hand-worked: ue(1) of 5 is 0 (5 ≥ 2: 5 − 2 = 3, k = 2), 1, then 3 in
	// 2 bits: 0 1 11 → 0111 then the alignment 1000: 0x78.
	w = bitWriter{}
	w.ue(1, 5)
	w.align()
	if !bytes.Equal(w.b, []byte{0x78}) {
		t.Errorf("ue(1) of 5 + alignment: %x, want 78", w.b)
	}
}

func TestNNCWriter(t *testing.T) {
	f := &File{
		Meta: map[string]string{"k": "v"},
		Tensors: []Tensor{
			{Name: "b", DType: "F32", Shape: []uint64{1}, Data: []byte{0, 0, 0x80, 0x3f}},
			{Name: "a", DType: "I16", Shape: []uint64{1, 2}, Data: []byte{0xff, 0x7f, 0x00, 0x80}},
		},
	}
	got, err := writeNNC(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := encodeInts([]int64{32767, -32768}, 11)
	if err != nil {
		t.Fatal(err)
	}
	// §12.3 by hand. STR: size 4, type byte 0<<2|1<<1, profile 0. MPS:
	// topology_carriage_flag 1, the rest 0, alignment. TPL: format 0,
	// compression 0, the metadata and its zero. "a": payload type 0, flags
	// 0 0 1, "a\0", then dq 0, dims 1, unary 1, types 0000, ue(1) of 2
	// (0: 2 − 2 = 0 and k = 2; 1; 00), ue(7) of 1 and of 2 (1 0000001,
	// 1 0000010), 10 in 8 bits,
	// scan order 0000, alignment. "b": payload type 2, "b\0", then 1 1 0000,
	// ue(1) of 1 (1 1), ue(7) of 1, 10, alignment, the float's bytes.
	aHead := bitsOf("0110000" + "0100" + "10000001" + "10000010" + "00001010" + "0000" + "1")
	bHead := bitsOf("110000" + "11" + "10000001" + "00001010" + "1")
	want := cat(
		[]byte{0, 4, 0x02, 0},
		[]byte{0, 6, 0x06, 0x80, 0x00, 0x80},
		unitFramed(0x0e, cat([]byte{0, 0}, []byte(`{"k":"v"}`), []byte{0})),
		unitFramed(0x16, cat([]byte{0x01, 'a', 0}, aHead, p)),
		unitFramed(0x16, cat([]byte{2<<3 | 1, 'b', 0}, bHead, []byte{0, 0, 0x80, 0x3f})),
	)
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%x\nwant\n%x", got, want)
	}
	g, err := ReadCanonical(NNC, got)
	if err != nil {
		t.Fatal(err)
	}
	if g.Meta["k"] != "v" || len(g.Tensors) != 2 || g.Tensors[0].DType != "I32" ||
		!bytes.Equal(g.Tensors[0].Data, []byte{0xff, 0x7f, 0, 0, 0x00, 0x80, 0xff, 0xff}) || g.Tensors[1].DType != "F32" {
		t.Errorf("read back %+v", g)
	}
	// ±(2^31 − 1) is carried, −2^31 is not (§12.3).
	edge := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 1<<31-1), 1<<31+1)
	if _, err := writeNNC(&File{Tensors: []Tensor{{Name: "e", DType: "I32", Shape: []uint64{2}, Data: edge}}}); err != nil {
		t.Errorf("±(2^31 - 1): %v", err)
	}
	_, err = writeNNC(&File{Tensors: []Tensor{{Name: "e", DType: "I32", Shape: []uint64{1}, Data: []byte{0, 0, 0, 0x80}}}})
	wantCode(t, "-2^31", err, ValueOutOfRange)
	_, err = writeNNC(&File{Tensors: []Tensor{{Name: "e", DType: "I64", Shape: []uint64{1}, Data: binary.LittleEndian.AppendUint64(nil, 1<<31)}}})
	wantCode(t, "2^31", err, ValueOutOfRange)
	_, err = writeNNC(&File{Tensors: []Tensor{{Name: "e", DType: "I8", Shape: []uint64{1<<24 - 128}, Data: make([]byte, 1<<24-128)}}})
	wantCode(t, "dimension 2^24 - 128", err, ValueOutOfRange)
	_, err = writeNNC(&File{Tensors: []Tensor{{Name: "e", DType: "F16", Shape: []uint64{1}, Data: []byte{0, 0}}}})
	wantCode(t, "F16", err, DTypeUnknown)
}

func TestNNCLongUnit(t *testing.T) {
	// 8 192 floats are 32 768 payload bytes: the unit takes the 31-bit
	// size. It is 4 + 1 (size, type byte) + 1 (payload type and flags) + 2
	// ("w\0") + 5: 6 bits of parameters, ue(1) of 1 (2 bits), ue(7) of
	// 8 192 (six zeros: 8 192 − 128 − 256 − … − 4 096 = 128 with k = 13,
	// then a one and 13 bits: 20 bits), 8 bits of unary length and the
	// alignment's 4; then the floats.
	data := make([]byte, 4*8192)
	data[7] = 0x3f
	got, err := writeNNC(&File{Tensors: []Tensor{{Name: "w", DType: "F32", Shape: []uint64{8192}, Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	u := got[10:] // after STR (4 bytes) and MPS (6)
	if size := binary.BigEndian.Uint32(u); size != 1<<31|(5+1+2+5+32768) || len(u) != 5+1+2+5+32768 {
		t.Errorf("size field %08x, unit %d bytes", size, len(u))
	}
	f, err := ReadCanonical(NNC, got)
	if err != nil || !bytes.Equal(f.Tensors[0].Data, data) {
		t.Errorf("read back: %v", err)
	}
}

// bitsOf packs a string of 0s and 1s into bytes, padding with zeros.
func bitsOf(s string) []byte {
	var w bitWriter
	for _, c := range s {
		w.u(1, uint64(c-'0'))
	}
	return w.b
}

// unitFramed is a unit of under 32 768 bytes: the 15-bit size, then the
// type byte, then the body.
func unitFramed(typeByte byte, body []byte) []byte {
	return cat(binary.BigEndian.AppendUint16(nil, uint16(3+len(body))), []byte{typeByte}, body)
}

// unitBytes frames a unit of typ around body, as the writer does.
func unitBytes(typ int, body []byte) []byte {
	u, _ := appendUnit(nil, typ, body) // small bodies: the 15-bit size
	return u
}
