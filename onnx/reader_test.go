package onnx

import (
	"strings"
	"testing"
)

func tinyModel(t testing.TB) []byte {
	b := NewBuilder("tiny", 13)
	b.Input("x", Float, 1, 2, 4, 4)
	w := b.Floats([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2, 1, 1)
	y := b.Op("Conv", []string{"x", w}, IntsAttr("kernel_shape", 1, 1), IntAttr("group", 1))
	b.Node("Relu", []string{y}, []string{"y"})
	b.Output("y", Float, 1, 4, 4, 4)
	m, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRoundTrip(t *testing.T) {
	m, err := Parse(tinyModel(t), DefaultCaps)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graph
	if m.Opset != 13 || len(g.Nodes) != 2 || g.Nodes[0].OpType != "Conv" || g.Nodes[1].Name != "#1" {
		t.Fatalf("model %+v", m)
	}
	w := g.Inits[g.Nodes[0].Inputs[1]]
	if w == nil || len(w.Float) != 8 || w.Float[7] != 8 || w.Dims[0] != 4 {
		t.Fatalf("weights %+v", w)
	}
	if a := g.Nodes[0].Attrs["kernel_shape"]; a == nil || len(a.Ints) != 2 || a.Ints[1] != 1 {
		t.Fatalf("kernel_shape %+v", a)
	}
	if len(g.Inputs) != 1 || g.Inputs[0].Dims[3] != 4 || g.Outputs[0].Name != "y" {
		t.Fatalf("values %+v %+v", g.Inputs, g.Outputs)
	}
}

func TestCaps(t *testing.T) {
	good := tinyModel(t)
	for _, c := range []struct {
		name string
		caps Caps
		want string
	}{
		{"file", Caps{FileBytes: 10, Nodes: 9, Initializers: 9, Attributes: 9, Dims: 9, Elements: 99}, "over the cap"},
		{"nodes", Caps{FileBytes: 1 << 20, Nodes: 1, Initializers: 9, Attributes: 9, Dims: 9, Elements: 99}, "more than 1 nodes"},
		{"inits", Caps{FileBytes: 1 << 20, Nodes: 9, Initializers: 0, Attributes: 9, Dims: 9, Elements: 99}, "more than 0 initialisers"},
		{"attrs", Caps{FileBytes: 1 << 20, Nodes: 9, Initializers: 9, Attributes: 1, Dims: 9, Elements: 99}, "more than 1 attributes"},
		{"dims", Caps{FileBytes: 1 << 20, Nodes: 9, Initializers: 9, Attributes: 9, Dims: 3, Elements: 99}, "more than 3 dims"},
		{"elements", Caps{FileBytes: 1 << 20, Nodes: 9, Initializers: 9, Attributes: 9, Dims: 9, Elements: 7}, "over 7 elements"},
	} {
		_, err := Parse(good, c.caps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A tensor whose dims claim far more elements than its data holds is
// refused before its elements are allocated.
func TestDimsAgainstData(t *testing.T) {
	b := NewBuilder("lie", 13)
	tp := FloatTensor("w", []float32{1, 2}, 1<<20, 1<<5)
	b.g.Initializer = append(b.g.Initializer, tp)
	m, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(m, DefaultCaps); err == nil || !strings.Contains(err.Error(), "raw data is 8 bytes") {
		t.Fatalf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(tinyModel(f))
	f.Add([]byte{0x3a, 0x02, 0x0a, 0x00})
	f.Add([]byte{0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	small := Caps{FileBytes: 1 << 16, Nodes: 16, Initializers: 16, Attributes: 8, Dims: 4, Elements: 1 << 12}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b, small)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "onnx: ") {
				t.Fatalf("error without the package's prefix: %v", err)
			}
			return
		}
		for _, it := range m.Graph.Inits {
			if int64(it.Len()) > small.Elements {
				t.Fatalf("a tensor of %d elements passed the cap", it.Len())
			}
		}
	})
}
