package prior

import (
	"fmt"
	"slices"
	"strings"

	"github.com/waiops/waiops/refusal"
)

// whm1 is the binding whm1/1 (§10.2): the WHM1 model of docs/READINGS.md D-D.
type whm1 struct{}

// The WHM1 layer tags (D-D) and their kind tensors (§10.2).
var whmKind = [5]string{"convt", "conv", "igdn", "relu", "leaky"}

const maxWHMLayers = 1000

// whmLayer is one layer: its tag and its kind tensor's values (conv: in,
// out, k, stride, pad; convt: those and opad; igdn: c; relu: 0; leaky:
// slope_q, slope_frac).
type whmLayer struct {
	tag  int
	kind []int64
}

// kindSlot is the slot of layer i's kind tensor for tag (§10.2's table).
func kindSlot(tag, i int) slot {
	name := fmt.Sprintf("layer.%03d.%s", i, whmKind[tag])
	m := int64(u32Max)
	switch tag {
	case 0:
		return slot{name, "I64", []uint64{6}, []int64{1, 1, 1, 0, 0, 0}, []int64{m, m, m, m, m, m}}
	case 1:
		return slot{name, "I64", []uint64{5}, []int64{1, 1, 1, 0, 0}, []int64{m, m, m, m, m}}
	case 2:
		return slot{name, "I64", []uint64{1}, []int64{1}, []int64{m}}
	case 3:
		return slot{name, "I8", []uint64{1}, []int64{0}, []int64{0}}
	}
	return slot{name, "I64", []uint64{2}, []int64{-1 << 63, 0}, []int64{1<<63 - 1, m}}
}

// slots gives layer i's tensors in §10.3 step 5's order: the kind tensor,
// then weight, mult, bias or gamma, beta.
func (l whmLayer) slots(i int) []slot {
	p := fmt.Sprintf("layer.%03d.", i)
	s := []slot{kindSlot(l.tag, i)}
	switch l.tag {
	case 0, 1:
		in, out, k := uint64(l.kind[0]), uint64(l.kind[1]), uint64(l.kind[2])
		w := []uint64{out, in, k, k}
		if l.tag == 0 {
			w = []uint64{in, out, k, k}
		}
		s = append(s,
			slot{p + "weight", "I16", w, anyLo, anyHi},
			slot{p + "mult", "I64", []uint64{out}, anyLo, anyHi},
			slot{p + "bias", "I64", []uint64{out}, anyLo, anyHi})
	case 2:
		c := uint64(l.kind[0])
		s = append(s,
			slot{p + "gamma", "I32", []uint64{c, c}, anyLo, anyHi},
			slot{p + "beta", "I64", []uint64{c}, anyLo, anyHi})
	}
	return s
}

func whmSlots(layers []whmLayer) []slot {
	s := []slot{{"header", "I64", []uint64{3}, []int64{0}, []int64{u32Max}}}
	for i, l := range layers {
		s = append(s, l.slots(i)...)
	}
	return s
}

func (whm1) fromNative(native []byte) ([]slot, [][]int64, error) {
	r := &le{b: native, kind: "WHM1"}
	magic, err := r.take(4, "the magic")
	if err != nil {
		return nil, nil, err
	}
	if string(magic) != "WHM1" {
		return nil, nil, refusal.New(NativeMalformed, "WHM1: magic %q", magic)
	}
	header, err := r.ints(3, 4, false, "afrac, gf, shift")
	if err != nil {
		return nil, nil, err
	}
	n, err := r.one(4, false, "n_layers")
	if err != nil {
		return nil, nil, err
	}
	vals := [][]int64{header}
	var layers []whmLayer
	// Each layer is at least its tag byte, so the loop ends with the bytes.
	for i := int64(0); i < n; i++ {
		tag, err := r.one(1, false, "a layer's tag")
		if err != nil {
			return nil, nil, err
		}
		l := whmLayer{tag: int(tag)}
		switch tag {
		case 0, 1: // convt: in, out, k, stride, pad, opad; conv: no opad
			if l.kind, err = r.ints(uint64(6-tag), 4, false, "a convolution's fields"); err != nil {
				return nil, nil, err
			}
			in, out, k := uint64(l.kind[0]), uint64(l.kind[1]), uint64(l.kind[2])
			nw, ok := count([]uint64{in, out, k, k})
			if !ok {
				return nil, nil, refusal.New(NativeMalformed, "WHM1: layer %d's weights pass any file", i)
			}
			w, err := r.ints(nw, 2, true, "a weight")
			if err != nil {
				return nil, nil, err
			}
			mult, err := r.ints(out, 8, true, "mult")
			if err != nil {
				return nil, nil, err
			}
			bias, err := r.ints(out, 8, true, "bias")
			if err != nil {
				return nil, nil, err
			}
			vals = append(vals, l.kind, w, mult, bias)
		case 2: // igdn: c, gamma[c][c], beta[c]
			if l.kind, err = r.ints(1, 4, false, "igdn's c"); err != nil {
				return nil, nil, err
			}
			c := uint64(l.kind[0])
			gamma, err := r.ints(c*c, 4, true, "gamma") // c < 2^32: c·c fits
			if err != nil {
				return nil, nil, err
			}
			beta, err := r.ints(c, 8, true, "beta")
			if err != nil {
				return nil, nil, err
			}
			vals = append(vals, l.kind, gamma, beta)
		case 3: // relu: nothing
			l.kind = []int64{0}
			vals = append(vals, l.kind)
		case 4: // leaky: i64 slope_q, u32 slope_frac
			q, err := r.one(8, true, "slope_q")
			if err != nil {
				return nil, nil, err
			}
			frac, err := r.one(4, false, "slope_frac")
			if err != nil {
				return nil, nil, err
			}
			l.kind = []int64{q, frac}
			vals = append(vals, l.kind)
		default:
			return nil, nil, refusal.New(NativeMalformed, "WHM1: layer %d has tag %d", i, tag)
		}
		layers = append(layers, l)
	}
	if err := r.end(); err != nil {
		return nil, nil, err
	}
	// §10.2: more than 1000 layers, or a dimension of 0, has no tensor form.
	if n > maxWHMLayers {
		return nil, nil, refusal.New(BindingMismatch, "WHM1: %d layers, past %d", n, maxWHMLayers)
	}
	for i, l := range layers {
		if l.tag <= 2 && slices.Contains(l.kind[:min(3, len(l.kind))], 0) {
			return nil, nil, refusal.New(BindingMismatch, "WHM1: layer %d has a dimension of 0", i)
		}
	}
	return whmSlots(layers), vals, nil
}

// layout is §10.3 step 4 for whm1/1.
func (whm1) layout(f *File, nnc bool) ([]slot, error) {
	type kindT struct {
		tag int
		t   *Tensor
	}
	// Every index a name layer.NNN.… gives has exactly one kind tensor, and
	// the indices are 000 to n − 1.
	kinds := map[int]kindT{}
	indices := map[int]bool{}
	for i := range f.Tensors {
		t := &f.Tensors[i]
		rest, ok := strings.CutPrefix(t.Name, "layer.")
		if !ok || len(rest) < 5 || rest[3] != '.' || !digits(rest[:3]) {
			continue
		}
		idx := int(rest[0]-'0')*100 + int(rest[1]-'0')*10 + int(rest[2]-'0')
		indices[idx] = true
		tag := slices.Index(whmKind[:], rest[4:])
		if tag < 0 {
			continue
		}
		if _, twice := kinds[idx]; twice {
			return nil, refusal.New(BindingMismatch, "whm1/1: layer %03d has two kind tensors", idx)
		}
		kinds[idx] = kindT{tag, t}
	}
	layers := make([]whmLayer, len(indices))
	for i := range layers {
		if !indices[i] {
			return nil, refusal.New(BindingMismatch, "whm1/1: %d layer indices, but none is %03d", len(indices), i)
		}
		if _, ok := kinds[i]; !ok {
			return nil, refusal.New(BindingMismatch, "whm1/1: layer %03d has no kind tensor", i)
		}
	}
	for i := range layers {
		k := kinds[i]
		l := whmLayer{tag: k.tag, kind: []int64{0}}
		if k.tag != 3 { // "but relu's": its type and shape come with the rest
			s := kindSlot(k.tag, i)
			if err := typeShape(k.t, &s, nnc); err != nil {
				return nil, err
			}
			l.kind = make([]int64, s.shape[0])
			for j := range l.kind {
				l.kind[j] = value(k.t, uint64(j))
			}
			// in, out and k, or c, from 1 to 2^32 − 1.
			for j := 0; j < len(l.kind) && j < 3 && k.tag <= 2; j++ {
				if l.kind[j] < 1 || l.kind[j] > u32Max {
					return nil, refusal.New(ValueOutOfRange, "whm1/1: %s element %d is %d, not 1 to 2^32 - 1", k.t.Name, j, l.kind[j])
				}
			}
		}
		layers[i] = l
	}
	return whmSlots(layers), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// native writes the WHM1 artifact (D-D) from the slots' values.
func (whm1) native(slots []slot, vals [][]int64) []byte {
	out := appendInts([]byte("WHM1"), 4, vals[0]...)
	nLayers := 0
	for _, s := range slots {
		if kindTag(s.name) >= 0 {
			nLayers++
		}
	}
	out = appendInts(out, 4, int64(nLayers))
	for i := 1; i < len(slots); i++ {
		tag := kindTag(slots[i].name)
		if tag < 0 {
			continue
		}
		out = append(out, byte(tag))
		switch tag {
		case 0, 1:
			out = appendInts(out, 4, vals[i]...)
			out = appendInts(out, 2, vals[i+1]...)
			out = appendInts(out, 8, vals[i+2]...)
			out = appendInts(out, 8, vals[i+3]...)
		case 2:
			out = appendInts(out, 4, vals[i]...)
			out = appendInts(out, 4, vals[i+1]...)
			out = appendInts(out, 8, vals[i+2]...)
		case 4:
			out = appendInts(out, 8, vals[i][0])
			out = appendInts(out, 4, vals[i][1])
		}
	}
	return out
}

// kindTag returns the tag of the kind a slot's name ends in, or −1.
func kindTag(name string) int {
	return slices.Index(whmKind[:], name[strings.LastIndexByte(name, '.')+1:])
}
