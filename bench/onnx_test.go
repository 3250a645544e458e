package bench

import (
	"testing"

	"github.com/waiops/waiops/onnx"
)

// TestPeerModelsParse: each peer model the bench writes reads back through
// the binding with its ops, domains and initialisers.
func TestPeerModelsParse(t *testing.T) {
	p := &peerConv{cin: 4, cout: 2, k: 3, side: 5, w: make([]int64, 2*4*9)}
	ci, err := convIntegerModel(p)
	if err != nil {
		t.Fatal(err)
	}
	ql, err := qlinearConvModel(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		b      []byte
		op     string
		domain string
		inits  int
	}{{"convinteger", ci, "ConvInteger", "", 0}, {"qlinear", ql, "QLinearConv", "com.microsoft", 5}} {
		m, err := onnx.Parse(c.b, onnx.DefaultCaps)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := m.Graph.Nodes
		if m.Opset != 13 || len(n) != 1 || n[0].OpType != c.op || n[0].Domain != c.domain || len(m.Graph.Inits) != c.inits {
			t.Fatalf("%s: %+v", c.name, m)
		}
	}
	if w := mustParse(t, ql).Graph.Inits["w"]; len(w.Int) != 2*4*9 || w.Dims[3] != 3 {
		t.Fatalf("qlinear weights %+v", w)
	}
}

func mustParse(t *testing.T, b []byte) *onnx.Model {
	m, err := onnx.Parse(b, onnx.DefaultCaps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPeerModelsU8: on u8 data both models take x as uint8, ConvInteger in
// NCHW, QLinearConv in NHWC with y uint8 too; on i8 data, int8.
func TestPeerModelsU8(t *testing.T) {
	for _, c := range []struct {
		unsigned bool
		elem     int32
	}{{false, onnx.Int8}, {true, onnx.Uint8}} {
		p := &peerConv{cin: 4, cout: 2, k: 3, side: 5, unsigned: c.unsigned, w: make([]int64, 2*4*9)}
		ci, err := convIntegerModel(p)
		if err != nil {
			t.Fatal(err)
		}
		ql, err := qlinearConvModel(p)
		if err != nil {
			t.Fatal(err)
		}
		g, q := mustParse(t, ci).Graph, mustParse(t, ql).Graph
		if x := g.Inputs[0]; x.Name != "x" || x.ElemType != c.elem || x.Dims[1] != 4 {
			t.Errorf("ConvInteger, unsigned %v: x %+v", c.unsigned, x)
		}
		if x, y := q.Inputs[0], q.Outputs[0]; x.ElemType != c.elem || y.ElemType != c.elem || x.Dims[3] != 4 || y.Dims[3] != 2 {
			t.Errorf("QLinearConv, unsigned %v: x %+v, y %+v", c.unsigned, x, y)
		}
	}
}
