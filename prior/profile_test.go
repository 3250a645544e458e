package prior

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// handWSR1 is a WSR1 laid out by hand (docs/READINGS.md D-D): act_hi 258, one layer
// of cout 12, k 1, shift 5; weights −18 to 17; biases (i − 6)·1000; mults
// 1 to 11 then 65535.
func handWSR1() (native, w, bias, mult []byte) {
	native = []byte("WSR1\x02\x01\x01\x0c\x01\x05")
	for i := range 36 {
		w = append(w, byte(int8(i-18)))
	}
	for i := range 12 {
		bias = binary.LittleEndian.AppendUint32(bias, uint32(int32((i-6)*1000)))
		m := uint16(i + 1)
		if i == 11 {
			m = 65535
		}
		mult = binary.LittleEndian.AppendUint16(mult, m)
	}
	return cat(native, w, bias, mult), w, bias, mult
}

// handWHM1: afrac 5, gf 6, shift 7; a leaky layer (slope_q −3, slope_frac
// 9), then a relu.
var handWHM1 = cat([]byte("WHM1"), le32(5, 6, 7, 2), []byte{4}, binary.LittleEndian.AppendUint64(nil, 1<<64-3), le32(9), []byte{3})

func le32(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func le64(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func find(f *File, name string) *Tensor {
	for i := range f.Tensors {
		if f.Tensors[i].Name == name {
			return &f.Tensors[i]
		}
	}
	return nil
}

func TestBindingTensors(t *testing.T) {
	native, w, bias, mult := handWSR1()
	file, binding, err := Encode(Safetensors, native)
	if err != nil || binding != "wsr1/1" {
		t.Fatal(binding, err)
	}
	f, err := Read(Safetensors, file)
	if err != nil {
		t.Fatal(err)
	}
	var mult32 []byte
	for i := 0; i < len(mult); i += 2 {
		mult32 = append(mult32, mult[i], mult[i+1], 0, 0)
	}
	for _, want := range []Tensor{
		{"act_hi", "I16", []uint64{1}, []byte{2, 1}},
		{"layer.0.bias", "I32", []uint64{12}, bias},
		{"layer.0.mult", "I32", []uint64{12}, mult32},
		{"layer.0.shift", "I8", []uint64{1}, []byte{5}},
		{"layer.0.weight", "I8", []uint64{12, 3, 1, 1}, w},
	} {
		g := find(f, want.Name)
		if g == nil || g.DType != want.DType || !slices.Equal(g.Shape, want.Shape) || !bytes.Equal(g.Data, want.Data) {
			t.Errorf("%s: got %+v", want.Name, g)
		}
	}
	if len(f.Tensors) != 5 || len(f.Meta) != 2 || f.Meta["wai.binding"] != "wsr1/1" || f.Meta["wai.profile"] != "wai-int/1" {
		t.Errorf("tensors %d, metadata %q", len(f.Tensors), f.Meta)
	}

	file, binding, err = Encode(GGUF, handWHM1)
	if err != nil || binding != "whm1/1" {
		t.Fatal(binding, err)
	}
	if f, err = Read(GGUF, file); err != nil {
		t.Fatal(err)
	}
	for _, want := range []Tensor{
		{"header", "I64", []uint64{3}, le64(5, 6, 7)},
		{"layer.000.leaky", "I64", []uint64{2}, le64(-3, 9)},
		{"layer.001.relu", "I8", []uint64{1}, []byte{0}},
	} {
		g := find(f, want.Name)
		if g == nil || g.DType != want.DType || !slices.Equal(g.Shape, want.Shape) || !bytes.Equal(g.Data, want.Data) {
			t.Errorf("%s: got %+v", want.Name, g)
		}
	}
	if len(f.Tensors) != 3 || f.Meta["general.architecture"] != "wai" {
		t.Errorf("tensors %d, metadata %q", len(f.Tensors), f.Meta)
	}
	// Every form loads back to the native bytes.
	for _, nat := range [][]byte{native, handWHM1} {
		for _, form := range Forms {
			file, _, err := Encode(form, nat)
			if err != nil {
				t.Fatal(err)
			}
			if _, got, err := Load(form, file); err != nil || !bytes.Equal(got, nat) {
				t.Errorf("%s: load: %v", form, err)
			}
		}
	}
}

// edited encodes native in form, applies edit to what it reads, and writes
// the result canonically.
func edited(t *testing.T, form Form, native []byte, edit func(f *File)) []byte {
	t.Helper()
	file, _, err := Encode(form, native)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(form, file)
	if err != nil {
		t.Fatal(err)
	}
	edit(f)
	out, err := Write(form, f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// set replaces or adds tensor name with vals packed as dt.
func set(f *File, name string, dt DType, shape []uint64, vals ...int64) {
	t := Tensor{Name: name, DType: dt, Shape: shape, Data: pack(dt, vals)}
	if g := find(f, name); g != nil {
		*g = t
		return
	}
	f.Tensors = append(f.Tensors, t)
}

func del(f *File, name string) {
	f.Tensors = slices.DeleteFunc(f.Tensors, func(t Tensor) bool { return t.Name == name })
}

func TestLoadSteps(t *testing.T) {
	wsr, _, _, _ := handWSR1()
	conv := cat([]byte("WHM1"), le32(1, 2, 3, 1), []byte{1}, le32(1, 2, 1, 1, 0), []byte{0xff, 0x7f, 0, 0x80}, le64(1, 2), le64(3, 4))
	for _, tc := range []struct {
		name   string
		form   Form
		native []byte
		edit   func(f *File)
		code   refusal.Code
	}{
		// §10.3 step 3.
		{"extra key", Safetensors, wsr, func(f *File) { f.Meta["x"] = "y" }, ProfileAbsent},
		{"no profile", NNC, wsr, func(f *File) { delete(f.Meta, "wai.profile") }, ProfileAbsent},
		{"profile 2, binding unknown", Safetensors, wsr, func(f *File) { f.Meta["wai.profile"] = "wai-int/2"; f.Meta["wai.binding"] = "x" }, ProfileAbsent},
		{"GGUF architecture", GGUF, wsr, func(f *File) { f.Meta["general.architecture"] = "llama" }, ProfileAbsent},
		{"GGUF key in safetensors", Safetensors, wsr, func(f *File) { f.Meta["general.architecture"] = "wai" }, ProfileAbsent},
		{"binding unknown before a float", Safetensors, wsr, func(f *File) {
			f.Meta["wai.binding"] = "wsr1/2"
			set(f, "act_hi", "F32", []uint64{1}, 0)
		}, BindingUnknown},
		{"a U8", Safetensors, wsr, func(f *File) { f.Tensors[0].DType = "U16" }, DTypeNotInteger},
		{"an F32 in NNC", NNC, wsr, func(f *File) { f.Tensors = append(f.Tensors, Tensor{"z", "F32", []uint64{1}, []byte{0, 0, 0, 0}}) }, DTypeNotInteger},
		{"an I8 in GGUF is the binding's", GGUF, wsr, func(f *File) {}, ""},
		// §10.3 step 4, wsr1/1.
		{"9 layers", Safetensors, wsr, func(f *File) {
			for i := 1; i <= 8; i++ {
				set(f, "layer."+string(rune('0'+i))+".weight", "I8", []uint64{12, 12, 1, 1}, make([]int64, 144)...)
			}
		}, BindingMismatch},
		{"index with a leading zero", Safetensors, wsr, func(f *File) {
			*find(f, "layer.0.weight") = Tensor{"layer.00.weight", "I8", []uint64{12, 3, 1, 1}, make([]byte, 36)}
		}, BindingMismatch},
		{"k 2", Safetensors, wsr, func(f *File) { set(f, "layer.0.weight", "I8", []uint64{12, 3, 2, 2}, make([]int64, 144)...) }, BindingMismatch},
		{"last cout 8", Safetensors, wsr, func(f *File) { set(f, "layer.0.weight", "I8", []uint64{8, 3, 1, 1}, make([]int64, 24)...) }, BindingMismatch},
		{"weight of rank 0", Safetensors, wsr, func(f *File) { set(f, "layer.0.weight", "I8", nil, 0) }, BindingMismatch},
		{"extra tensor", Safetensors, wsr, func(f *File) { set(f, "extra", "I8", []uint64{1}, 0) }, BindingMismatch},
		{"missing bias", Safetensors, wsr, func(f *File) { del(f, "layer.0.bias") }, BindingMismatch},
		{"mult as I16", Safetensors, wsr, func(f *File) { set(f, "layer.0.mult", "I16", []uint64{12}, make([]int64, 12)...) }, BindingMismatch},
		{"bias shape [12, 1]", GGUF, wsr, func(f *File) { find(f, "layer.0.bias").Shape = []uint64{12, 1} }, BindingMismatch},
		// §10.3 step 5, wsr1/1, in its order.
		{"act_hi 0", Safetensors, wsr, func(f *File) { set(f, "act_hi", "I16", []uint64{1}, 0) }, ValueOutOfRange},
		{"act_hi 32767", Safetensors, wsr, func(f *File) { set(f, "act_hi", "I16", []uint64{1}, 32767) }, ""},
		{"shift 32", Safetensors, wsr, func(f *File) { set(f, "layer.0.shift", "I8", []uint64{1}, 32) }, ValueOutOfRange},
		{"mult 0", GGUF, wsr, func(f *File) { find(f, "layer.0.mult").Data[0] = 0 }, ValueOutOfRange},
		{"NNC weight 128", NNC, wsr, func(f *File) { copy(find(f, "layer.0.weight").Data, le32(128)) }, ValueOutOfRange},
		{"NNC weight -128", NNC, wsr, func(f *File) { copy(find(f, "layer.0.weight").Data, le32(1<<32-128)) }, ""},
		// §10.3 step 4, whm1/1.
		{"two kinds in a layer", Safetensors, handWHM1, func(f *File) { set(f, "layer.000.relu", "I8", []uint64{1}, 0) }, BindingMismatch},
		{"a gap", Safetensors, handWHM1, func(f *File) { del(f, "layer.001.relu"); set(f, "layer.002.relu", "I8", []uint64{1}, 0) }, BindingMismatch},
		{"leaky of 3", GGUF, handWHM1, func(f *File) { set(f, "layer.000.leaky", "I64", []uint64{3}, 1, 2, 3) }, BindingMismatch},
		{"relu as I16 comes later", Safetensors, handWHM1, func(f *File) {
			set(f, "layer.001.relu", "I16", []uint64{1}, 0)
			set(f, "layer.000.leaky", "I64", []uint64{2}, 1, 1<<40)
		}, BindingMismatch},
		{"conv in 0 before the names", Safetensors, conv, func(f *File) {
			set(f, "layer.000.conv", "I64", []uint64{5}, 0, 2, 1, 1, 0)
			set(f, "zzz", "I8", []uint64{1}, 0)
		}, ValueOutOfRange},
		{"conv k 2^32", GGUF, conv, func(f *File) { set(f, "layer.000.conv", "I64", []uint64{5}, 1, 2, 1<<32, 1, 0) }, ValueOutOfRange},
		{"conv in 2 before the weight's shape", Safetensors, conv, func(f *File) { set(f, "layer.000.conv", "I64", []uint64{5}, 2, 2, 1, 1, 0) }, BindingMismatch},
		{"an index without a kind before in 0", Safetensors, conv, func(f *File) {
			set(f, "layer.000.conv", "I64", []uint64{5}, 0, 2, 1, 1, 0)
			set(f, "layer.001.weight", "I8", []uint64{1}, 0)
		}, BindingMismatch},
		{"three-digit names", Safetensors, conv, func(f *File) {
			*find(f, "layer.000.conv") = Tensor{"layer.0.conv", "I64", []uint64{5}, le64(1, 2, 1, 1, 0)}
		}, BindingMismatch},
		// §10.3 step 5, whm1/1.
		{"conv stride 2^32", Safetensors, conv, func(f *File) { set(f, "layer.000.conv", "I64", []uint64{5}, 1, 2, 1, 1<<32, 0) }, ValueOutOfRange},
		{"relu 1", Safetensors, handWHM1, func(f *File) { set(f, "layer.001.relu", "I8", []uint64{1}, 1) }, ValueOutOfRange},
		{"header -1", NNC, handWHM1, func(f *File) { set(f, "header", "I32", []uint64{3}, -1, 0, 0) }, ValueOutOfRange},
		{"slope_frac 2^32", GGUF, handWHM1, func(f *File) { set(f, "layer.000.leaky", "I64", []uint64{2}, 1, 1<<32) }, ValueOutOfRange},
		{"NNC weight 32768", NNC, conv, func(f *File) { set(f, "layer.000.weight", "I32", []uint64{2, 1, 1, 1}, 32768, 0) }, ValueOutOfRange},
		{"NNC weight -32768", NNC, conv, func(f *File) { set(f, "layer.000.weight", "I32", []uint64{2, 1, 1, 1}, -32768, 0) }, ""},
	} {
		_, _, err := Load(tc.form, edited(t, tc.form, tc.native, tc.edit))
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, tc.name, err, tc.code)
	}
	// §10.3 step 2 comes before the metadata.
	file, _, _ := Encode(GGUF, wsr)
	_, _, err := Load(GGUF, append(file, 0))
	wantCode(t, "a byte after the last tensor", err, HeaderNotCanonical)
}

func TestEncodeNative(t *testing.T) {
	// conv lays out one conv layer, its weights, mults and biases zero
	// when they are few.
	conv := func(in, out, k uint32) []byte {
		b := cat([]byte("WHM1"), le32(1, 2, 3, 1), []byte{1}, le32(in, out, k, 1, 0))
		if in < 16 && out < 16 && k < 16 {
			b = append(b, make([]byte, 2*in*out*k*k+16*out)...)
		}
		return b
	}
	wsr, _, _, _ := handWSR1()
	for _, tc := range []struct {
		name   string
		native []byte
		code   refusal.Code
	}{
		{"empty", nil, NativeMalformed},
		{"WAM1", cat([]byte("WAM1"), handWHM1[4:]), NativeMalformed},
		{"short header", handWHM1[:15], NativeMalformed},
		{"byte after", cat(handWHM1, []byte{0}), NativeMalformed},
		{"tag 5", cat([]byte("WHM1"), le32(1, 2, 3, 1), []byte{5}), NativeMalformed},
		{"weights past the file", conv(1<<31, 1<<31, 1<<31), NativeMalformed},
		{"layer count past the file", cat([]byte("WHM1"), le32(1, 2, 3, 1<<32-1), []byte{3}), NativeMalformed},
		{"in 0", conv(0, 2, 1), BindingMismatch},
		{"in 1", conv(1, 2, 1), ""},
		{"igdn c 0", cat([]byte("WHM1"), le32(1, 2, 3, 1), []byte{2}, le32(0)), BindingMismatch},
		{"WSR1 short", wsr[:len(wsr)-1], NativeMalformed},
		{"WSR1 n 0", []byte("WSR1\x01\x00\x00"), BindingMismatch},
		{"WSR1 k 3 last cout 12 act_hi 0", cat([]byte("WSR1\x00\x00"), wsr[6:]), ValueOutOfRange},
		{"WSR1 shift 200", cat(wsr[:9], []byte{200}, wsr[10:]), ValueOutOfRange},
	} {
		for _, form := range Forms {
			_, _, err := Encode(form, tc.native)
			if tc.code == "" {
				if err != nil {
					t.Errorf("%s %s: %v", tc.name, form, err)
				}
				continue
			}
			wantCode(t, tc.name+" "+string(form), err, tc.code)
		}
	}
}
