package tensor

import (
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/cjson"
)

func TestJSONRoundTrip(t *testing.T) {
	in := &T{Shape: Shape{C: 2, H: 1, W: 2}, Data: []int64{1, -2, 0, -9223372036854775808}}
	b, err := cjson.Marshal(in.JSON())
	if err != nil {
		t.Fatal(err)
	}
	// §14.1: data in CHW order, shape [C, H, W], every integer a string.
	if want := `{"data":["1","-2","0","-9223372036854775808"],"shape":["2","1","2"]}`; string(b) != want {
		t.Fatalf("got %s", b)
	}
	v, _ := cjson.Unmarshal(b)
	out, err := FromJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if out.Shape != in.Shape || !slices.Equal(out.Data, in.Data) {
		t.Fatalf("round trip gave %+v", out)
	}
}

func TestFromJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ json, why string }{
		{`{"data":["1"],"shape":["1","1","2"]}`, "1 elements for shape"},
		{`{"data":[],"shape":["1","-1","1"]}`, "outside 0..2^26"},
		{`{"data":[],"shape":["1","1","67108865"]}`, "outside 0..2^26"},
		{`{"data":["1"],"shape":["1","1"]}`, "three integers"},
		{`{"data":[1],"shape":["1","1","1"]}`, "integer string"},
		{`{"data":["1"],"shape":["1","1","1"],"x":"1"}`, "exactly the members"},
		// 2^13 · 2^13 · 2 = 2^27 elements: refused before anything is allocated.
		{`{"data":[],"shape":["8192","8192","2"]}`, "passes 2^26"},
	} {
		v, err := cjson.Unmarshal([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromJSON(v); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: err = %v, want %q", tc.json, err, tc.why)
		}
	}
}

// TestFromJSONZeroDimension: a zero dimension is read (§4 run step 1 refuses
// it, not the reader), as an empty tensor however large the other two are,
// so nothing is allocated for them.
func TestFromJSONZeroDimension(t *testing.T) {
	for _, tc := range []struct {
		json string
		want Shape
	}{
		{`{"data":[],"shape":["1","0","8"]}`, Shape{1, 0, 8}},
		{`{"data":[],"shape":["0","67108864","67108864"]}`, Shape{0, 1 << 26, 1 << 26}},
		{`{"data":[],"shape":["67108864","67108864","0"]}`, Shape{1 << 26, 1 << 26, 0}},
	} {
		v, err := cjson.Unmarshal([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		x, err := FromJSON(v)
		if err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if x.Shape != tc.want || len(x.Data) != 0 || cap(x.Data) != 0 {
			t.Errorf("%s: shape %v, %d elements (cap %d)", tc.json, x.Shape, len(x.Data), cap(x.Data))
		}
	}
	// One element for a zero-sized shape is a length mismatch.
	v, _ := cjson.Unmarshal([]byte(`{"data":["1"],"shape":["1","0","8"]}`))
	if _, err := FromJSON(v); err == nil || !strings.Contains(err.Error(), "1 elements for shape") {
		t.Errorf("err = %v", err)
	}
}

func TestListJSON(t *testing.T) {
	a := &T{Shape: Shape{C: 1, H: 1, W: 1}, Data: []int64{-7}}
	b, _ := cjson.Marshal(ListJSON([]*T{a, a}))
	if want := `[{"data":["-7"],"shape":["1","1","1"]},{"data":["-7"],"shape":["1","1","1"]}]`; string(b) != want {
		t.Fatalf("got %s", b)
	}
	v, _ := cjson.Unmarshal(b)
	ts, err := ListFromJSON(v)
	if err != nil || len(ts) != 2 || ts[1].Data[0] != -7 {
		t.Fatalf("ListFromJSON: %v %v", ts, err)
	}
	if _, err := ListFromJSON(map[string]any{}); err == nil {
		t.Fatal("an object accepted as a list of tensors")
	}
	if _, err := ListFromJSON(nil); err == nil {
		t.Fatal("a missing list accepted")
	}
}
