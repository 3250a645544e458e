//go:build cgo

package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// TestIntervalThen: a clamp after a clamp, by hand.
func TestIntervalThen(t *testing.T) {
	relu := interval{0, math.MaxInt32}
	for _, c := range []struct{ a, b, want interval }{
		{interval{-100, 40}, relu, interval{0, 40}},           // they meet
		{interval{-100, -5}, relu, interval{0, 0}},            // a below b: all 0
		{interval{60, 90}, interval{3, 50}, interval{50, 50}}, // a above b: all 50
		{interval{-5, 5}, interval{3, 50}, interval{3, 5}},
		{anyI32, interval{-7, 7}, interval{-7, 7}},
		{interval{-7, 7}, anyI32, interval{-7, 7}},
	} {
		if got := c.a.then(c.b); got != c.want {
			t.Errorf("%v then %v = %v, want %v", c.a, c.b, got, c.want)
		}
		// By value: clamp(clamp(v, a), b) = clamp(v, a then b).
		for _, v := range []int{math.MinInt32, -101, -100, -6, -5, 0, 3, 4, 5, 40, 41, 50, 60, 90, 91, math.MaxInt32} {
			two := min(max(min(max(v, c.a.lo), c.a.hi), c.b.lo), c.b.hi)
			one := min(max(v, c.want.lo), c.want.hi)
			if two != one {
				t.Errorf("%v then %v at %d: %d, one clamp %d", c.a, c.b, v, two, one)
			}
		}
	}
}

// TestFolds: a relu or clamp whose input only it reads, made by an
// operator, runs in that operator's store; the decode equals cpuref's and
// takes one dispatch fewer for each. Where the input is a graph input, a
// graph output or read twice, the operator runs on its own.
func TestFolds(t *testing.T) { forEachForm(t, testFolds) }

func testFolds(t *testing.T) {
	d := openDevice(t)
	x := in{2, -1000, 1000, 3, 5}
	derived := func(g *whg1.Graph) uint32 {
		g.Tensors = append(g.Tensors, whg1.Tensor{Channels: 2, Exponent: whg1.NoExponent})
		return uint32(len(g.Tensors) - 1)
	}
	for _, c := range []struct {
		name   string
		build  func() *whg1.Graph
		skip   []bool
		shader []string
	}{
		{"add relu clamp", func() *whg1.Graph {
			g := oneOp(whg1.OpAdd, nil, []in{x, x}, 2)
			// add's output clamped to [-300, 900], then relu, then clamp
			// to [3, 500], into an output clamped to [-9, 400].
			g.Tensors[2].Policy, g.Tensors[2].Lo, g.Tensors[2].Hi = whg1.Clamp, -300, 900
			r := derived(g)
			k := derived(g)
			g.Tensors[k].Policy, g.Tensors[k].Lo, g.Tensors[k].Hi = whg1.Clamp, -9, 400
			g.Ops = append(g.Ops,
				whg1.Op{Code: whg1.OpRelu, In: []uint32{2}, Out: []uint32{r}},
				whg1.Op{Code: whg1.OpClamp, Params: &whg1.ClampParams{Lo: 3, Hi: 500}, In: []uint32{r}, Out: []uint32{k}})
			g.Outputs = []uint32{k}
			return g
		}, []bool{false, true, true}, []string{"add"}},
		{"add relu", func() *whg1.Graph {
			g := oneOp(whg1.OpAdd, nil, []in{x, x}, 2)
			r := derived(g)
			g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpRelu, In: []uint32{2}, Out: []uint32{r}})
			g.Outputs = []uint32{r}
			return g
		}, []bool{false, true}, []string{"add"}},
		{"relu of an input", func() *whg1.Graph {
			return oneOp(whg1.OpRelu, nil, []in{x}, 2)
		}, []bool{false}, []string{"relu"}},
		{"relu of an output", func() *whg1.Graph {
			g := oneOp(whg1.OpAdd, nil, []in{x, x}, 2)
			r := derived(g)
			g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpRelu, In: []uint32{2}, Out: []uint32{r}})
			g.Outputs = []uint32{2, r}
			return g
		}, []bool{false, false}, []string{"add", "relu"}},
		{"relu of a tensor read twice", func() *whg1.Graph {
			g := oneOp(whg1.OpAdd, nil, []in{x, x}, 2)
			r, s := derived(g), derived(g)
			g.Ops = append(g.Ops,
				whg1.Op{Code: whg1.OpRelu, In: []uint32{2}, Out: []uint32{r}},
				whg1.Op{Code: whg1.OpAdd, In: []uint32{2, r}, Out: []uint32{s}})
			g.Outputs = []uint32{s}
			return g
		}, []bool{false, false, false}, []string{"add", "relu"}},
	} {
		g := c.build()
		skip, _ := folds(g)
		if !slices.Equal(skip, c.skip) {
			t.Errorf("%s: folds %v, want %v", c.name, skip, c.skip)
		}
		ins := []in{x, x}[:len(g.Inputs)]
		inputs := feed(rand.New(rand.NewPCG(5, 9)), ins)
		same(t, d, c.name, g, inputs, nil)
		p, err := d.Load(whg1.Encode(g))
		if err != nil {
			t.Fatal(err)
		}
		_, s, err := p.DecodeSplit(inputs, nil)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sh := range s.Shaders {
			if sh.Shader != "wire" {
				got = append(got, sh.Shader)
			}
		}
		if !slices.Equal(got, c.shader) {
			t.Errorf("%s: shaders %v, want %v", c.name, got, c.shader)
		}
	}
}
