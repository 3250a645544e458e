// Package gen generates the project's committed conformance corpus
// (integer-operators §14.1, §14.2) and re-checks it: Generate builds the
// graph vectors, Parts lists every generator of committed data under
// vectors/, and Check recomputes any corpus from its graph bytes and inputs.
// It is what `waiops vectors gen|check` and the committed-corpus tests use;
// nothing at run time should import it.
package gen

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

// Generate builds the graph vectors in memory: ops/<operator>.jsonl for
// the 30 graph operators (§14.1) and graphs/<name>.jsonl (§14.2), by path
// relative to the corpus root. It is deterministic: every input comes from
// fixed cases or from PCG streams with fixed seeds, and every expectation,
// load outcome and profile list from Compute.
func Generate() (map[string][]byte, error) {
	g := &gen{files: map[string]*vectors.File{}}
	for _, family := range families {
		family(g)
		if g.err != nil {
			return nil, g.err
		}
	}
	out := map[string][]byte{}
	for name, f := range g.files {
		b, err := f.Marshal()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

// families are the generators, one per operator family (gen_*.go).
var families []func(*gen)

// gen collects vectors by file; the first error stops it.
type gen struct {
	files map[string]*vectors.File
	err   error
}

// add computes a vector's outcomes and appends it to file.
func (g *gen) add(file, id string, gr *whg1.Graph, decodes ...vectors.Decode) {
	g.addBytes(file, id, whg1.Encode(gr), decodes...)
}

// addBytes is add for a graph given as bytes (the load-check cases that
// no *whg1.Graph can express).
func (g *gen) addBytes(file, id string, b []byte, decodes ...vectors.Decode) {
	if g.err != nil {
		return
	}
	v := vectors.Vector{ID: id, Graph: b, Decodes: decodes}
	if err := Compute(&v); err != nil {
		g.err = err
		return
	}
	f := g.files[file]
	if f == nil {
		f = &vectors.File{}
		g.files[file] = f
	}
	for _, o := range f.Graph {
		if o.ID == id {
			g.err = fmt.Errorf("%s: id %q twice", file, id)
			return
		}
	}
	f.Graph = append(f.Graph, v)
}

// op is the file of an operator's vectors.
func op(code whg1.Opcode) string { return "ops/" + code.String() + ".jsonl" }

// dec is one decode's inputs and scalars.
func dec(scalars []int64, ins ...*tensor.T) vectors.Decode {
	return vectors.Decode{Inputs: ins, Scalars: scalars}
}

// ten is a [c, h, w] tensor with the data given, or every element data[0]
// when one value is given.
func ten(c, h, w int, data ...int64) *tensor.T {
	t := tensor.New(tensor.Shape{C: c, H: h, W: w})
	if len(data) == 1 {
		for i := range t.Data {
			t.Data[i] = data[0]
		}
		return t
	}
	if len(data) != len(t.Data) {
		panic(fmt.Sprintf("vectors: %d values for %v", len(data), t.Shape)) // a generator bug
	}
	copy(t.Data, data)
	return t
}

// rnd is a [c, h, w] tensor of values drawn uniformly from [lo, hi].
func rnd(r *rand.Rand, c, h, w int, lo, hi int64) *tensor.T {
	t := tensor.New(tensor.Shape{C: c, H: h, W: w})
	span := uint64(hi - lo)
	for i := range t.Data {
		if span == ^uint64(0) {
			t.Data[i] = int64(r.Uint64())
		} else {
			t.Data[i] = lo + int64(r.Uint64N(span+1))
		}
	}
	return t
}

// pcg is the generator's random stream for one family.
func pcg(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7761692d6f707331)) }

// Tensor records (§10.2). A graph input has check or clamp (§3).
func chk(c uint32, lo, hi int64) whg1.Tensor {
	return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: lo, Hi: hi}
}

func clp(c uint32, lo, hi int64) whg1.Tensor {
	return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: lo, Hi: hi}
}

func der(c uint32) whg1.Tensor {
	return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Derived}
}

// one is a graph of one operator: its inputs are the graph's data inputs
// (tensors 0..), declaring sizes h×w when h and w are not 0; its outputs
// are the graph's outputs (the tensors after them).
func one(code whg1.Opcode, params any, ins, outs []whg1.Tensor, h, w uint32) *whg1.Graph {
	g := &whg1.Graph{Tensors: append(append([]whg1.Tensor{}, ins...), outs...)}
	o := whg1.Op{Code: code, Params: params}
	for i := range ins {
		g.Inputs = append(g.Inputs, whg1.Input{Tensor: uint32(i), MaxH: h, MaxW: w})
		o.In = append(o.In, uint32(i))
	}
	for i := range outs {
		t := uint32(len(ins) + i)
		o.Out = append(o.Out, t)
		g.Outputs = append(g.Outputs, t)
	}
	g.Ops = []whg1.Op{o}
	return g
}

// ints is a compact id fragment for a list of integers ("m1_2").
func ints(v ...int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "_")
}

// Names lists a corpus map's paths in sorted order.
func Names(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
