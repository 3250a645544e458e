package cpuref

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// seedPool gives p's pool a free buffer of n elements full of garbage.
func seedPool(p *Program, n int) {
	d := make([]int64, n)
	for i := range d {
		d[i] = -0x5a5a5a5a5a5a5a5a + int64(i)
	}
	p.bufs.put(val{T: &tensor.T{Data: d}})
}

func TestBufPool(t *testing.T) {
	var b bufPool
	s := tensor.Shape{C: 1, H: 2, W: 3}
	x := b.get(s, true) // empty pool: a new zero tensor
	if !slices.Equal(x.Data, make([]int64, 6)) {
		t.Fatalf("new buffer %v, want zeros", x.Data)
	}
	for i := range x.Data {
		x.Data[i] = int64(i) + 1
	}
	d := x.Data
	b.put(val{T: x})
	if x.Data != nil {
		t.Errorf("put left the tensor its buffer")
	}
	y := b.get(s, true) // full: the buffer back as it was
	if &y.Data[0] != &d[0] || y.Data[5] != 6 {
		t.Errorf("full get: %v, want the freed buffer", y.Data)
	}
	if z := b.get(s, true); &z.Data[0] == &d[0] {
		t.Errorf("one buffer handed out twice")
	}
	b.put(val{T: y})
	if z := b.get(s, false); &z.Data[0] != &d[0] || !slices.Equal(z.Data, make([]int64, 6)) {
		t.Errorf("get: %v, want the freed buffer zeroed", z.Data)
	}
	if z := b.get(tensor.Shape{C: 2, H: 1, W: 2}, true); len(z.Data) != 4 {
		t.Errorf("other length: %d elements", len(z.Data))
	}
	for range bufKeep + 3 {
		b.put(val{T: tensor.New(s)})
	}
	if n := len(b.i64[6]); n != bufKeep {
		t.Errorf("%d free buffers kept, want at most %d", n, bufKeep)
	}
}

// TestPooledDecodesEqual decodes a synthesis-like chain (conv_transpose,
// igdn and relu twice, then a rescale) many times on one Program, the
// pool's buffers reused from decode to decode, against the same Program
// without a pool, on random inputs at the checked interval's ends too.
func TestPooledDecodesEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	const C = 4
	w := func(n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = r.Int64N(255) - 127
		}
		return v
	}
	gamma := make([]int64, C*C)
	for i := range gamma {
		gamma[i] = r.Int64N(16)
	}
	beta := slices.Repeat([]int64{1 << 12}, C)
	var ops []whg1.Op
	tensors := []whg1.Tensor{rec(C, whg1.Check, -127, 127)}
	add := func(op whg1.Op) {
		op.In = []uint32{uint32(len(tensors) - 1)}
		op.Out = []uint32{uint32(len(tensors))}
		tensors = append(tensors, derived(C))
		ops = append(ops, op)
	}
	for range 2 {
		add(whg1.Op{Code: whg1.OpConvTranspose, Params: &whg1.ConvT{Cout: C, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: w(C * C * 9)}})
		add(whg1.Op{Code: whg1.OpIGDN, Params: &whg1.IGDN{GF: 8, Frac: 6, Gamma: gamma, Beta: beta}})
		add(whg1.Op{Code: whg1.OpRelu})
	}
	add(shiftRescale(3, 1))
	g := &whg1.Graph{Inputs: []whg1.Input{{Tensor: 0, MaxH: 9, MaxW: 9}}, Outputs: []uint32{uint32(len(tensors) - 1)},
		Tensors: tensors, Ops: ops}
	_, p := load(t, g)
	_, ref := load(t, g)
	ref.bufs = nil
	n := 300
	if testing.Short() {
		n = 30
	}
	for i := range n {
		h, wd := 1+r.IntN(9), 1+r.IntN(9)
		if i%3 == 0 {
			h, wd = 9, 9 // the same lengths again: buffers reused
		}
		in := tensor.New(tensor.Shape{C: C, H: h, W: wd})
		for j := range in.Data {
			switch r.IntN(4) {
			case 0:
				in.Data[j] = -127
			case 1:
				in.Data[j] = 127
			default:
				in.Data[j] = r.Int64N(255) - 127
			}
		}
		got, err := p.Decode([]*tensor.T{in}, nil)
		noErr(t, "pooled decode", err)
		want, err := ref.Decode([]*tensor.T{in}, nil)
		noErr(t, "decode", err)
		if !slices.Equal(got[0].Data, want[0].Data) {
			t.Fatalf("decode %d (%d×%d): pooled and fresh buffers differ", i, h, wd)
		}
	}
	// Concurrent decodes on the one Program share its pool, never a buffer.
	in := tensor.New(tensor.Shape{C: C, H: 9, W: 9})
	for j := range in.Data {
		in.Data[j] = r.Int64N(255) - 127
	}
	want, err := ref.Decode([]*tensor.T{in}, nil)
	noErr(t, "decode", err)
	errs := make(chan string, 4)
	for range 4 {
		go func() {
			for range 10 {
				got, err := p.Decode([]*tensor.T{in}, nil)
				if err != nil || !slices.Equal(got[0].Data, want[0].Data) {
					errs <- fmt.Sprintf("concurrent decode: %v, or outputs differ", err)
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
