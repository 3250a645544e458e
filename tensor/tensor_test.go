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
		{`{"data":[],"shape":["0","1","1"]}`, "outside 1..2^26"},
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
