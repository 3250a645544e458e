package prior

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// wantCode fails t unless err is a refusal with code.
func wantCode(t *testing.T, name string, err error, code refusal.Code) {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s: got %v, want %s", name, err, code)
	}
}

func TestSafetensorsRules(t *testing.T) {
	tensor := `{"dtype":"I16","shape":[2],"data_offsets":[0,4]}`
	deep := strings.Repeat(`{"a":`, 63) + `1` + strings.Repeat(`}`, 63) // 64 levels
	for _, tc := range []struct {
		name string
		file []byte
		code refusal.Code // "" when the file reads
	}{
		// §9.1 steps 1 and 2, in order.
		{"7 bytes", []byte{2, 0, 0, 0, 0, 0, 0}, HeaderTruncated},
		{"N past the cap, file short", binary.LittleEndian.AppendUint64(nil, 100_000_001), HeaderTooLarge},
		{"N at the cap, file short", binary.LittleEndian.AppendUint64(nil, 100_000_000), HeaderTruncated},
		{"N one past the end", append(binary.LittleEndian.AppendUint64(nil, 3), "{}"...), HeaderTruncated},
		// Step 3.
		{"empty object", stFile("{}", nil), ""},
		{"spaces around", stFile(" \n{} \t", nil), ""},
		{"an array", stFile("[]", nil), HeaderMalformed},
		{"not JSON", stFile("{,}", nil), HeaderMalformed},
		{"trailing text", stFile("{}x", nil), HeaderMalformed},
		{"name twice", stFile(`{"__metadata__":{"k":"a","k":"b"}}`, nil), HeaderMalformed},
		{"name twice after unescaping", stFile(`{"__metadata__":{"k":"a","\u006b":"b"}}`, nil), HeaderMalformed},
		{"names differing", stFile(`{"__metadata__":{"k":"a","\u006c":"b"}}`, nil), ""},
		{"64 levels", stFile(`{"__metadata__":{},"x":`+deep+`}`, nil), TensorMalformed},
		{"65 levels", stFile(`{"__metadata__":{},"x":{"y":`+deep+`}}`, nil), HeaderMalformed},
		{"lone high surrogate", stFile(`{"__metadata__":{"k":"\ud800"}}`, nil), HeaderMalformed},
		{"lone low surrogate", stFile(`{"__metadata__":{"k":"\udc00"}}`, nil), HeaderMalformed},
		{"surrogate pair", stFile(`{"__metadata__":{"k":"\ud83d\ude00"}}`, nil), ""},
		{"invalid UTF-8", stFile("{\"__metadata__\":{\"k\":\"\xff\"}}", nil), HeaderMalformed},
		{"raw control", stFile("{\"__metadata__\":{\"k\":\"\x01\"}}", nil), HeaderMalformed},
		{"bad escape", stFile(`{"__metadata__":{"k":"\x41"}}`, nil), HeaderMalformed},
		{"literals", stFile(`{"a":[true,false,null,-0,1.5e+3,2E-1,"\/\b\f\n\r\t"]}`, nil), TensorMalformed},
		{"a literal cut", stFile(`{"a":tru}`, nil), HeaderMalformed},
		{"minus alone", stFile(`{"a":-}`, nil), HeaderMalformed},
		{"fraction without digits", stFile(`{"a":1.}`, nil), HeaderMalformed},
		{"exponent without digits", stFile(`{"a":1e}`, nil), HeaderMalformed},
		{"short \\u", stFile(`{"a":"\u12"}`, nil), HeaderMalformed},
		{"bad hex", stFile(`{"a":"\u12g4"}`, nil), HeaderMalformed},
		{"no colon", stFile(`{"a" 1}`, nil), HeaderMalformed},
		{"name not a string", stFile(`{1:1}`, nil), HeaderMalformed},
		{"array not closed", stFile(`{"a":[1 2]}`, nil), HeaderMalformed},
		{"object cut", stFile(`{"a":1`, nil), HeaderMalformed},
		// Step 4.
		{"metadata not an object", stFile(`{"__metadata__":[]}`, nil), HeaderMalformed},
		{"metadata null", stFile(`{"__metadata__":null}`, nil), HeaderMalformed},
		{"metadata value a number", stFile(`{"__metadata__":{"k":1}}`, nil), HeaderMalformed},
		// Step 5, in its order.
		{"empty name", stFile(`{"":`+tensor+`}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"extra member", stFile(`{"t":{"dtype":"I16","shape":[2],"data_offsets":[0,4],"x":1}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"missing member", stFile(`{"t":{"dtype":"I16","shape":[2],"offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"dtype a number", stFile(`{"t":{"dtype":16,"shape":[2],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"dtype unknown before a bad shape", stFile(`{"t":{"dtype":"I4","shape":[-2],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), DTypeUnknown},
		{"dtype lower case", stFile(`{"t":{"dtype":"i16","shape":[2],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), DTypeUnknown},
		{"negative dimension", stFile(`{"t":{"dtype":"I16","shape":[-2],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"fraction", stFile(`{"t":{"dtype":"I16","shape":[2.0],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"exponent", stFile(`{"t":{"dtype":"I16","shape":[2e0],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"2^64", stFile(`{"t":{"dtype":"I16","shape":[18446744073709551616],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"shape a string", stFile(`{"t":{"dtype":"I16","shape":"2","data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"three offsets", stFile(`{"t":{"dtype":"I16","shape":[2],"data_offsets":[0,4,4]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		{"begin past end", stFile(`{"t":{"dtype":"I16","shape":[2],"data_offsets":[4,0]}}`, []byte{1, 2, 3, 4}), TensorMalformed},
		// Step 6.
		{"count past 2^64 - 1", stFile(`{"t":{"dtype":"I8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil), TensorMalformed},
		{"size past 2^64 - 1", stFile(`{"t":{"dtype":"I16","shape":[9223372036854775808],"data_offsets":[0,0]}}`, nil), TensorMalformed},
		{"2^64 - 1 elements of one byte", stFile(`{"t":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,18446744073709551615]}}`, nil), OffsetMismatch},
		{"span not the size", stFile(`{"t":{"dtype":"I16","shape":[2],"data_offsets":[0,3]}}`, []byte{1, 2, 3}), OffsetMismatch},
		// Steps 4 to 6 in the header's order: the first member's fault.
		{"first member first", stFile(`{"b":{"dtype":"X","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"I8","shape":[-1],"data_offsets":[0,1]}}`, []byte{1}), DTypeUnknown},
		// Step 7.
		{"gap at 0", stFile(`{"t":{"dtype":"I16","shape":[2],"data_offsets":[1,5]}}`, []byte{0, 1, 2, 3, 4}), OffsetMismatch},
		{"bytes left", stFile(`{"t":`+tensor+`}`, []byte{1, 2, 3, 4, 5}), OffsetMismatch},
		{"bytes short", stFile(`{"t":`+tensor+`}`, []byte{1, 2, 3}), OffsetMismatch},
		{"overlap", stFile(`{"t":`+tensor+`,"u":{"dtype":"I8","shape":[2],"data_offsets":[2,4]}}`, []byte{1, 2, 3, 4}), OffsetMismatch},
		{"no tensors, a byte", stFile(`{}`, []byte{0}), OffsetMismatch},
		{"empty tensor at the end", stFile(`{"t":`+tensor+`,"u":{"dtype":"I8","shape":[0],"data_offsets":[4,4]}}`, []byte{1, 2, 3, 4}), ""},
	} {
		_, err := readSafetensors(tc.file)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, tc.name, err, tc.code)
	}
}

func TestSafetensorsObtains(t *testing.T) {
	// Written out of order, with a tensor before the metadata: §9.3 hands
	// the tensors over in byte order of names ("B" < "a").
	f, err := readSafetensors(stFile(`{"a":{"dtype":"I8","shape":[],"data_offsets":[3,4]},"__metadata__":{"x":"\u00e9\n"},"B":{"dtype":"U16","shape":[1,1],"data_offsets":[1,3]},"c":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"d":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}}`, []byte{9, 8, 7, 6}))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Meta) != 1 || f.Meta["x"] != "é\n" {
		t.Errorf("metadata %q", f.Meta)
	}
	want := []struct {
		name  string
		dtype DType
		shape string
		data  []byte
	}{{"B", "U16", "[1 1]", []byte{8, 7}}, {"a", "I8", "[]", []byte{6}}, {"c", "F32", "[]", nil}, {"d", "BOOL", "[1]", []byte{9}}}
	if len(f.Tensors) != len(want) {
		t.Fatalf("%d tensors", len(f.Tensors))
	}
	for i, w := range want {
		g := f.Tensors[i]
		if g.Name != w.name || g.DType != w.dtype || !bytes.Equal(g.Data, w.data) {
			t.Errorf("tensor %d: %q %s %v %v, want %q %s %v", i, g.Name, g.DType, g.Shape, g.Data, w.name, w.dtype, w.data)
		}
	}
	if s := f.Tensors[2].Shape; len(s) != 1 || s[0] != 0 {
		t.Errorf("c's shape %v, want [0]", s)
	}
}

func TestSafetensorsWriter(t *testing.T) {
	f := &File{
		Meta: map[string]string{"b": "q\"\\\b\t\n\f\r\x01\x1f\x7fé", "a": "1"},
		Tensors: []Tensor{
			{Name: "z", DType: "I16", Shape: []uint64{2}, Data: []byte{1, 0, 0xff, 0xff}},
			{Name: "y", DType: "I8", Shape: []uint64{}, Data: []byte{0x80}},
		},
	}
	got, err := writeSafetensors(f)
	if err != nil {
		t.Fatal(err)
	}
	// §11.1 by hand: metadata first, then "y" before "z", data contiguous;
	// RFC 8785 escapes, lowercase \u00xx; DEL and é as they stand.
	hdr := `{"__metadata__":{"a":"1","b":"q\"\\\b\t\n\f\r\u0001\u001f` + "\x7fé" + `"},` +
		`"y":{"dtype":"I8","shape":[],"data_offsets":[0,1]},` +
		`"z":{"dtype":"I16","shape":[2],"data_offsets":[1,5]}}`
	// len(hdr) is 167 bytes; 8 + 167 = 175, so 1 space makes 176.
	if len(hdr) != 167 {
		t.Fatalf("hand header is %d bytes", len(hdr))
	}
	want := binary.LittleEndian.AppendUint64(nil, 168)
	want = append(append(append(want, hdr...), ' '), 0x80, 1, 0, 0xff, 0xff)
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if _, err := ReadCanonical(Safetensors, got); err != nil {
		t.Errorf("the canonical file is not canonical: %v", err)
	}
	// The same file with its members reordered reads but is not canonical.
	swapped := strings.Replace(string(got), `"y":{"dtype":"I8","shape":[],"data_offsets":[0,1]},"z":{"dtype":"I16","shape":[2],"data_offsets":[1,5]}`,
		`"z":{"dtype":"I16","shape":[2],"data_offsets":[1,5]},"y":{"dtype":"I8","shape":[],"data_offsets":[0,1]}`, 1)
	if _, err := Read(Safetensors, []byte(swapped)); err != nil {
		t.Fatal(err)
	}
	_, err = ReadCanonical(Safetensors, []byte(swapped))
	wantCode(t, "reordered", err, HeaderNotCanonical)
	// A writer refuses a type the form has no name for.
	_, err = writeSafetensors(&File{Tensors: []Tensor{{Name: "q", DType: "Q8_0", Shape: []uint64{32}, Data: make([]byte, 34)}}})
	wantCode(t, "Q8_0 in safetensors", err, DTypeUnknown)
}
