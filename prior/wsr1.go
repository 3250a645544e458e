package prior

import (
	"strconv"
	"strings"

	"github.com/waiops/waiops/refusal"
)

// wsr1 is the binding wsr1/1 (§10.2): the WSR1 prior of docs/READINGS.md D-D.
type wsr1 struct{}

const (
	maxWSRLayers = 8
	wsrCin0      = 3  // §10.2: cin is 3 in layer 0
	wsrCoutLast  = 12 // and the last layer's cout is 12
)

// wsrLayer is one layer's structure: cout and k.
type wsrLayer struct{ cout, k uint64 }

// wsrStructure is §10.2's table's structural rule (binding_mismatch): n
// from 1 to 8, each cout 1 to 64 and k 1, 3 or 5, the last cout 12.
func wsrStructure(layers []wsrLayer) error {
	if len(layers) < 1 || len(layers) > maxWSRLayers {
		return refusal.New(BindingMismatch, "wsr1/1: %d layers, not 1 to %d", len(layers), maxWSRLayers)
	}
	for i, l := range layers {
		if l.cout < 1 || l.cout > 64 || l.k != 1 && l.k != 3 && l.k != 5 || i == len(layers)-1 && l.cout != wsrCoutLast {
			return refusal.New(BindingMismatch, "wsr1/1: layer %d has cout %d and k %d, which the table does not admit", i, l.cout, l.k)
		}
	}
	return nil
}

// wsrSlots gives the tensors in §10.3 step 5's order: act_hi, then layer by
// layer weight, bias, mult and shift.
func wsrSlots(layers []wsrLayer) []slot {
	s := []slot{{"act_hi", "I16", []uint64{1}, []int64{1}, []int64{32767}}}
	cin := uint64(wsrCin0)
	for i, l := range layers {
		p := "layer." + strconv.Itoa(i) + "."
		s = append(s,
			slot{p + "weight", "I8", []uint64{l.cout, cin, l.k, l.k}, anyLo, anyHi},
			slot{p + "bias", "I32", []uint64{l.cout}, anyLo, anyHi},
			slot{p + "mult", "I32", []uint64{l.cout}, []int64{1}, []int64{65535}},
			slot{p + "shift", "I8", []uint64{1}, []int64{0}, []int64{31}})
		cin = l.cout
	}
	return s
}

func (wsr1) fromNative(native []byte) ([]slot, [][]int64, error) {
	r := &le{b: native, kind: "WSR1"}
	magic, err := r.take(4, "the magic")
	if err != nil {
		return nil, nil, err
	}
	if string(magic) != "WSR1" {
		return nil, nil, refusal.New(NativeMalformed, "WSR1: magic %q", magic)
	}
	actHi, err := r.ints(1, 2, true, "act_hi")
	if err != nil {
		return nil, nil, err
	}
	n, err := r.one(1, false, "n")
	if err != nil {
		return nil, nil, err
	}
	vals := [][]int64{actHi}
	var layers []wsrLayer
	cin := uint64(wsrCin0)
	for i := int64(0); i < n; i++ {
		f, err := r.ints(3, 1, false, "a layer's cout, k and shift")
		if err != nil {
			return nil, nil, err
		}
		cout, k := uint64(f[0]), uint64(f[1])
		w, err := r.ints(cout*cin*k*k, 1, true, "a weight") // each under 2^8: fits
		if err != nil {
			return nil, nil, err
		}
		bias, err := r.ints(cout, 4, true, "bias")
		if err != nil {
			return nil, nil, err
		}
		mult, err := r.ints(cout, 2, false, "mult")
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, w, bias, mult, f[2:])
		layers = append(layers, wsrLayer{cout, k})
		cin = cout
	}
	if err := r.end(); err != nil {
		return nil, nil, err
	}
	if err := wsrStructure(layers); err != nil {
		return nil, nil, err
	}
	return wsrSlots(layers), vals, nil
}

// layout is §10.3 step 4 for wsr1/1.
func (wsr1) layout(f *File, _ bool) ([]slot, error) {
	weights := map[string]*Tensor{}
	for i := range f.Tensors {
		t := &f.Tensors[i]
		rest, ok := strings.CutPrefix(t.Name, "layer.")
		idx, ok2 := strings.CutSuffix(rest, ".weight")
		if ok && ok2 && digits(idx) && (idx == "0" || idx[0] != '0') {
			weights[idx] = t
		}
	}
	n := len(weights)
	if n < 1 || n > maxWSRLayers {
		return nil, refusal.New(BindingMismatch, "wsr1/1: %d weight tensors, not 1 to %d", n, maxWSRLayers)
	}
	layers := make([]wsrLayer, n)
	for i := range layers {
		t := weights[strconv.Itoa(i)]
		if t == nil {
			return nil, refusal.New(BindingMismatch, "wsr1/1: %d weight tensors, but no layer.%d.weight", n, i)
		}
		if len(t.Shape) == 0 {
			return nil, refusal.New(BindingMismatch, "wsr1/1: %s has no dimensions", t.Name)
		}
		layers[i] = wsrLayer{t.Shape[0], t.Shape[len(t.Shape)-1]}
	}
	if err := wsrStructure(layers); err != nil {
		return nil, err
	}
	return wsrSlots(layers), nil
}

// native writes the WSR1 artifact (D-D) from the slots' values.
func (wsr1) native(slots []slot, vals [][]int64) []byte {
	out := appendInts([]byte("WSR1"), 2, vals[0]...)
	n := (len(slots) - 1) / 4
	out = append(out, byte(n))
	for i := range n {
		w, bias, mult, shift := vals[1+4*i], vals[2+4*i], vals[3+4*i], vals[4+4*i]
		out = append(out, byte(slots[1+4*i].shape[0]), byte(slots[1+4*i].shape[3]), byte(shift[0]))
		out = appendInts(out, 1, w...)
		out = appendInts(out, 4, bias...)
		out = appendInts(out, 2, mult...)
	}
	return out
}
