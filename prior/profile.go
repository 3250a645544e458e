package prior

import (
	"encoding/binary"
	"slices"

	"github.com/waiops/waiops/refusal"
)

// Profile is the integer-quantised profile of §10.
const Profile = "wai-int/1"

// slot is one tensor a binding gives (§10.2): its name, type, shape and the
// range of its values, lo[i]..hi[i] for element i, or lo[0]..hi[0] for
// every element when one range is given.
type slot struct {
	name   string
	dtype  DType
	shape  []uint64
	lo, hi []int64
}

func (s *slot) bounds(i int) (int64, int64) {
	r := intRange[s.dtype] // §10.3 step 5: within its type, then the binding's range
	if len(s.lo) == 1 {
		i = 0
	}
	return max(r[0], s.lo[i]), min(r[1], s.hi[i])
}

const u32Max = 1<<32 - 1

// anyValue is the range of a tensor whose values are "any" (§10.2).
var anyLo, anyHi = []int64{-1 << 63}, []int64{1<<63 - 1}

// binding maps a native artifact to named tensors and back (§10.2).
type binding interface {
	// fromNative reads a native artifact into its tensors' slots and
	// values: native_malformed when it does not read under its format,
	// binding_mismatch when it has no tensor form.
	fromNative(native []byte) ([]slot, [][]int64, error)
	// layout applies §10.3 step 4 up to the names: from the file's
	// structure, the slots of the tensors it must hold, in step 5's order.
	// Under NNC every integer tensor is I32 (§10.1).
	layout(f *File, nnc bool) ([]slot, error)
	// native writes the artifact from the slots' values (§10.3 step 6).
	native(slots []slot, vals [][]int64) []byte
}

// bindings are §10.2's registered bindings, by name.
var bindings = map[string]binding{"whm1/1": whm1{}, "wsr1/1": wsr1{}}

// metadata is §10.1's metadata of a file of form holding binding.
func metadata(form Form, binding string) map[string]string {
	m := map[string]string{"wai.binding": binding, "wai.profile": Profile}
	if form == GGUF {
		m["general.architecture"] = "wai"
	}
	return m
}

// Load loads a tensor file of the profile into its native artifact, the
// steps of §10.3 in order, and returns the binding's name and the native
// bytes.
func Load(form Form, file []byte) (string, []byte, error) {
	// §10.3 steps 1 and 2: read, and canonical.
	f, err := ReadCanonical(form, file)
	if err != nil {
		return "", nil, err
	}
	// §10.3 step 3: the metadata exactly (the key set too, docs/READINGS.md D-F),
	// the binding registered, every tensor of a profile integer type.
	name := f.Meta["wai.binding"]
	want := metadata(form, name)
	if len(f.Meta) != len(want) {
		return "", nil, refusal.New(ProfileAbsent, "%s: the metadata has %d keys, §10.1 gives %d", form, len(f.Meta), len(want))
	}
	for _, k := range sortedKeys(want) {
		if got, ok := f.Meta[k]; !ok || got != want[k] {
			return "", nil, refusal.New(ProfileAbsent, "%s: metadata %q is %q, §10.1 gives %q", form, k, got, want[k])
		}
	}
	b, ok := bindings[name]
	if !ok {
		return "", nil, refusal.New(BindingUnknown, "binding %q is not registered (§10.2)", name)
	}
	nnc := form == NNC
	for _, t := range f.Tensors {
		if _, isInt := intRange[t.DType]; !isInt || nnc && t.DType != "I32" {
			return "", nil, refusal.New(DTypeNotInteger, "tensor %q is %s, not a profile integer type", t.Name, t.DType)
		}
	}
	// §10.3 step 4: the structure, then the names, then types and shapes.
	slots, err := b.layout(f, nnc)
	if err != nil {
		return "", nil, err
	}
	byName := make(map[string]*Tensor, len(f.Tensors))
	for i := range f.Tensors {
		byName[f.Tensors[i].Name] = &f.Tensors[i]
	}
	if len(f.Tensors) != len(slots) {
		return "", nil, refusal.New(BindingMismatch, "%s: %d tensors, the binding gives %d", name, len(f.Tensors), len(slots))
	}
	for _, s := range slots {
		if byName[s.name] == nil {
			return "", nil, refusal.New(BindingMismatch, "%s: no tensor %q", name, s.name)
		}
	}
	for _, s := range slots {
		if err := typeShape(byName[s.name], &s, nnc); err != nil {
			return "", nil, err
		}
	}
	// §10.3 step 5: every value within its type and range, in order.
	vals := make([][]int64, len(slots))
	for i := range slots {
		t := byName[slots[i].name]
		vals[i] = make([]int64, len(t.Data)/int(elemSize[t.DType]))
		for j := range vals[i] {
			vals[i][j] = value(t, uint64(j))
		}
	}
	if err := checkValues(slots, vals); err != nil {
		return "", nil, err
	}
	// §10.3 step 6.
	return name, b.native(slots, vals), nil
}

// typeShape is §10.3 step 4's check of one tensor against its slot: the
// slot's type (I32 under NNC) and shape.
func typeShape(t *Tensor, s *slot, nnc bool) error {
	dt := s.dtype
	if nnc {
		dt = "I32"
	}
	if t.DType != dt || !slices.Equal(t.Shape, s.shape) {
		return refusal.New(BindingMismatch, "tensor %q is %s %v, the binding gives %s %v", t.Name, t.DType, t.Shape, dt, s.shape)
	}
	return nil
}

// checkValues is §10.3 step 5 over values in slot order.
func checkValues(slots []slot, vals [][]int64) error {
	for i := range slots {
		for j, v := range vals[i] {
			if lo, hi := slots[i].bounds(j); v < lo || v > hi {
				return refusal.New(ValueOutOfRange, "tensor %q element %d is %d, outside %d to %d", slots[i].name, j, v, lo, hi)
			}
		}
	}
	return nil
}

// Encode reads a native artifact (WHM1 or WSR1, told by its magic) into
// its binding's tensors, adds §10.1's metadata and writes the file
// canonically in form (§10.3, Encoding). It returns the binding's name.
func Encode(form Form, native []byte) ([]byte, string, error) {
	name := ""
	if len(native) >= 4 {
		switch string(native[:4]) {
		case "WHM1":
			name = "whm1/1"
		case "WSR1":
			name = "wsr1/1"
		}
	}
	if name == "" {
		return nil, "", refusal.New(NativeMalformed, "the native artifact opens with neither WHM1 nor WSR1")
	}
	slots, vals, err := bindings[name].fromNative(native)
	if err != nil {
		return nil, name, err
	}
	if err := checkValues(slots, vals); err != nil {
		return nil, name, err
	}
	f := &File{Meta: metadata(form, name), Tensors: make([]Tensor, len(slots))}
	for i, s := range slots {
		f.Tensors[i] = Tensor{Name: s.name, DType: s.dtype, Shape: s.shape, Data: pack(s.dtype, vals[i])}
	}
	out, err := Write(form, f)
	return out, name, err
}

// pack writes vals little-endian as elements of dt.
func pack(dt DType, vals []int64) []byte {
	size := int(elemSize[dt])
	return appendInts(make([]byte, 0, len(vals)*size), size, vals...)
}

// le is a little-endian reader of a native artifact; a field past its end
// is native_malformed (§10.2).
type le struct {
	b    []byte
	p    uint64
	kind string
}

func (r *le) take(n uint64, what string) ([]byte, error) {
	if n > uint64(len(r.b))-r.p {
		return nil, refusal.New(NativeMalformed, "%s: %s runs past the end at byte %d", r.kind, what, r.p)
	}
	s := r.b[r.p : r.p+n]
	r.p += n
	return s, nil
}

// ints reads n little-endian integers of size bytes each, signed or not.
func (r *le) ints(n, size uint64, signed bool, what string) ([]int64, error) {
	nb, ok := mul64(n, size)
	if !ok {
		return nil, refusal.New(NativeMalformed, "%s: %s of %d elements passes any file", r.kind, what, n)
	}
	s, err := r.take(nb, what)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		var x [8]byte
		copy(x[:], s[uint64(i)*size:uint64(i+1)*size])
		v := binary.LittleEndian.Uint64(x[:])
		if signed {
			v = uint64(int64(v<<(64-8*size)) >> (64 - 8*size))
		}
		out[i] = int64(v)
	}
	return out, nil
}

func (r *le) one(size uint64, signed bool, what string) (int64, error) {
	v, err := r.ints(1, size, signed, what)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (r *le) end() error {
	if r.p != uint64(len(r.b)) {
		return refusal.New(NativeMalformed, "%s: %d bytes follow the artifact's end", r.kind, uint64(len(r.b))-r.p)
	}
	return nil
}

// appendInts appends vals little-endian, size bytes each.
func appendInts(out []byte, size int, vals ...int64) []byte {
	for _, v := range vals {
		n := len(out)
		out = binary.LittleEndian.AppendUint64(out, uint64(v))[:n+size]
	}
	return out
}
