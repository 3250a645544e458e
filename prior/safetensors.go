package prior

import (
	"encoding/binary"
	"sort"
	"strconv"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// maxDepth is §9.1 step 3's nesting limit; the outermost value is level 1
// (docs/READINGS.md D-F). NNC topologies (§12.2) are read under it too.
const maxDepth = 64

// maxHeader is §9.1 step 2's cap on the header's length N.
const maxHeader = 100_000_000

// readSafetensors applies §9.1's rules in order; the first broken is the one
// reported.
func readSafetensors(b []byte) (*File, error) {
	// §9.1 step 1: the 8-byte length N.
	if len(b) < 8 {
		return nil, refusal.New(HeaderTruncated, "safetensors: %d bytes, fewer than the 8 of the header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	// §9.1 step 2: N capped, then inside the file.
	if n > maxHeader {
		return nil, refusal.New(HeaderTooLarge, "safetensors: header length %d is past %d", n, maxHeader)
	}
	if n > uint64(len(b)-8) {
		return nil, refusal.New(HeaderTruncated, "safetensors: header of %d bytes runs past the file's %d", n, len(b)-8)
	}
	// §9.1 step 3: one JSON object, no name twice, at most 64 levels.
	root, err := strictjson.Parse(b[8:8+n], maxDepth)
	if err != nil {
		return nil, refusal.New(HeaderMalformed, "safetensors: header: %v", err)
	}
	if root.Kind != strictjson.Object {
		return nil, refusal.New(HeaderMalformed, "safetensors: the header is not a JSON object")
	}
	data := b[8+n:]
	type span struct{ begin, end uint64 }
	f := &File{Meta: map[string]string{}}
	spans := make([]span, 0, len(root.Members))
	// §9.1: steps 4 to 6 in the order the header writes its members.
	for _, m := range root.Members {
		if m.Name == "__metadata__" {
			// §9.1 step 4: an object of strings.
			if m.Value.Kind != strictjson.Object {
				return nil, refusal.New(HeaderMalformed, "safetensors: __metadata__ is not an object")
			}
			for _, kv := range m.Value.Members {
				if kv.Value.Kind != strictjson.String {
					return nil, refusal.New(HeaderMalformed, "safetensors: __metadata__ member %q is not a string", kv.Name)
				}
				f.Meta[kv.Name] = kv.Value.Str
			}
			continue
		}
		t, begin, end, err := stTensor(m)
		if err != nil {
			return nil, err
		}
		f.Tensors = append(f.Tensors, t)
		spans = append(spans, span{begin, end})
	}
	// §9.1 step 7: ordered by begin, the tensors tile the data exactly.
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, c := spans[order[i]], spans[order[j]]
		return a.begin < c.begin || a.begin == c.begin && a.end < c.end
	})
	at := uint64(0)
	for _, i := range order {
		if spans[i].begin != at {
			return nil, refusal.New(OffsetMismatch, "safetensors: tensor %q begins at %d, not at %d where the one before ends", f.Tensors[i].Name, spans[i].begin, at)
		}
		at = spans[i].end
	}
	if at != uint64(len(data)) {
		return nil, refusal.New(OffsetMismatch, "safetensors: the tensors end at %d, the data at %d", at, len(data))
	}
	for i := range f.Tensors {
		f.Tensors[i].Data = data[spans[i].begin:spans[i].end]
	}
	sortTensors(f.Tensors)
	return f, nil
}

// stTensor applies §9.1 steps 5 and 6 to one member.
func stTensor(m strictjson.Member) (Tensor, uint64, uint64, error) {
	bad := func(format string, args ...any) (Tensor, uint64, uint64, error) {
		return Tensor{}, 0, 0, refusal.New(TensorMalformed, "safetensors: tensor %q: "+format, append([]any{m.Name}, args...)...)
	}
	// §9.1 step 5, in its order.
	if m.Name == "" {
		return bad("the name is empty")
	}
	v := m.Value
	if v.Kind != strictjson.Object || len(v.Members) != 3 {
		return bad("not an object of exactly dtype, shape and data_offsets")
	}
	fields := map[string]strictjson.Value{}
	for _, f := range v.Members {
		fields[f.Name] = f.Value
	}
	dt, okD := fields["dtype"]
	shape, okS := fields["shape"]
	offs, okO := fields["data_offsets"]
	if !okD || !okS || !okO {
		return bad("not an object of exactly dtype, shape and data_offsets")
	}
	if dt.Kind != strictjson.String {
		return bad("dtype is not a string")
	}
	size, known := elemSize[DType(dt.Str)]
	if !known {
		return Tensor{}, 0, 0, refusal.New(DTypeUnknown, "safetensors: tensor %q: dtype %q is not in §9.1's table", m.Name, dt.Str)
	}
	ints := func(v strictjson.Value) ([]uint64, bool) {
		if v.Kind != strictjson.Array {
			return nil, false
		}
		out := make([]uint64, len(v.Elems))
		for i, e := range v.Elems {
			x, ok := plainUint(e)
			if !ok {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	}
	dims, ok := ints(shape)
	if !ok {
		return bad("shape is not a list of integers")
	}
	be, ok := ints(offs)
	if !ok || len(be) != 2 || be[0] > be[1] {
		return bad("data_offsets is not two integers [begin, end] with begin at most end")
	}
	// §9.1 step 6: the count and the size fit 64 bits; end − begin is the size.
	n, ok := count(dims)
	if !ok {
		return bad("the element count passes 2^64 - 1")
	}
	bytes, ok := mul64(n, size)
	if !ok {
		return bad("the size in bytes passes 2^64 - 1")
	}
	if be[1]-be[0] != bytes {
		return Tensor{}, 0, 0, refusal.New(OffsetMismatch, "safetensors: tensor %q: data_offsets span %d bytes, its shape %d", m.Name, be[1]-be[0], bytes)
	}
	return Tensor{Name: m.Name, DType: DType(dt.Str), Shape: dims}, be[0], be[1], nil
}

// plainUint reads an integer as §9.1 step 5 admits it: plain decimal, no
// sign, fraction, exponent or leading zero, at most 2^64 − 1.
func plainUint(v strictjson.Value) (uint64, bool) {
	s := v.Str
	if v.Kind != strictjson.Number || s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	x, err := strconv.ParseUint(s, 10, 64)
	return x, err == nil
}

// writeSafetensors writes f as §11.1 states: the canonical header, padded
// with spaces to a multiple of 8, then the tensors' bytes contiguous in
// ascending byte order of names.
func writeSafetensors(f *File) ([]byte, error) {
	ts, err := writable(f, func(dt DType) bool { _, ok := elemSize[dt]; return ok && dt != "Q8_0" }, "safetensors")
	if err != nil {
		return nil, err
	}
	h := []byte{'{'}
	if len(f.Meta) > 0 {
		h = appendJSONString(h, "__metadata__")
		h = append(h, ':')
		h = appendJSONMeta(h, f.Meta)
	}
	at := uint64(0)
	for i, t := range ts {
		if i > 0 || len(f.Meta) > 0 {
			h = append(h, ',')
		}
		h = appendJSONString(h, t.Name)
		h = append(h, `:{"dtype":`...)
		h = appendJSONString(h, string(t.DType))
		h = append(h, `,"shape":[`...)
		for j, d := range t.Shape {
			if j > 0 {
				h = append(h, ',')
			}
			h = strconv.AppendUint(h, d, 10)
		}
		h = append(h, `],"data_offsets":[`...)
		h = strconv.AppendUint(h, at, 10)
		h = append(h, ',')
		at += uint64(len(t.Data))
		h = strconv.AppendUint(h, at, 10)
		h = append(h, "]}"...)
	}
	h = append(h, '}')
	for (8+len(h))%8 != 0 {
		h = append(h, ' ')
	}
	if len(h) > maxHeader {
		return nil, refusal.New(HeaderTooLarge, "safetensors: the header would be %d bytes, past %d", len(h), maxHeader)
	}
	out := make([]byte, 8, 8+uint64(len(h))+at)
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	for _, t := range ts {
		out = append(out, t.Data...)
	}
	return out, nil
}

// writable checks f's tensors for a writer of form: names non-empty and
// distinct, each dtype one the form names (dtype_unknown, §13), each data
// the size of its shape. It returns them in ascending byte order of names.
func writable(f *File, named func(DType) bool, form string) ([]Tensor, error) {
	ts := append([]Tensor(nil), f.Tensors...)
	sortTensors(ts)
	for i, t := range ts {
		if t.Name == "" || t.Name == "__metadata__" && form == "safetensors" || i > 0 && ts[i-1].Name == t.Name {
			return nil, refusal.New(TensorMalformed, "%s: no tensor may be named %q here", form, t.Name)
		}
		if !named(t.DType) {
			return nil, refusal.New(DTypeUnknown, "%s: tensor %q: the form has no name for %q", form, t.Name, t.DType)
		}
		if n, ok := byteSize(t.DType, t.Shape); !ok || n != uint64(len(t.Data)) {
			return nil, refusal.New(TensorMalformed, "%s: tensor %q: %d bytes do not match shape %v", form, t.Name, len(t.Data), t.Shape)
		}
	}
	return ts, nil
}
