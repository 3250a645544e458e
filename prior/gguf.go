package prior

import (
	"encoding/binary"
	"sort"
	"unicode/utf8"

	"github.com/waiops/waiops/refusal"
)

// ggufType is §9.2's table: the GGUF type numbers this reader reads.
var ggufType = map[uint32]DType{
	0: "F32", 1: "F16", 8: "Q8_0", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64", 30: "BF16",
}

// ggufNumber is ggufType reversed, for the writer.
var ggufNumber = func() map[DType]uint32 {
	m := map[DType]uint32{}
	for n, d := range ggufType {
		m[d] = n
	}
	return m
}()

// ggufValueSize is the size of a fixed-size GGUF value type (§9.2 step 5);
// a string (8) is at least its 8-byte length.
var ggufValueSize = [13]uint64{1, 1, 2, 2, 4, 4, 4, 1, 8, 0, 8, 8, 8}

const (
	ggufString    = 8
	ggufArray     = 9
	ggufAlignment = 32 // §9.2 step 5: the alignment without general.alignment
)

// cursor reads a GGUF file's fields; one due past the end is
// header_truncated (§9.2).
type cursor struct {
	b []byte
	p uint64
}

func (c *cursor) left() uint64 { return uint64(len(c.b)) - c.p }

func (c *cursor) take(n uint64, what string) ([]byte, error) {
	if n > c.left() {
		return nil, refusal.New(HeaderTruncated, "gguf: %s (%d bytes at %d) runs past the end of the file", what, n, c.p)
	}
	s := c.b[c.p : c.p+n]
	c.p += n
	return s, nil
}

func (c *cursor) u32(what string) (uint32, error) {
	s, err := c.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(s), nil
}

func (c *cursor) u64(what string) (uint64, error) {
	s, err := c.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(s), nil
}

// str reads §9.2 step 4's string: a u64 length and that many UTF-8 bytes.
func (c *cursor) str(what string) (string, error) {
	n, err := c.u64(what + "'s length")
	if err != nil {
		return "", err
	}
	s, err := c.take(n, what)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(s) {
		return "", refusal.New(HeaderMalformed, "gguf: %s is not UTF-8", what)
	}
	return string(s), nil
}

// validKey is §9.2 step 5's key rule: '.'-separated non-empty segments of
// a-z, 0-9 and '_', at most 65 535 bytes.
func validKey(k string) bool {
	if len(k) == 0 || len(k) > 65535 {
		return false
	}
	seg := 0
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c == '.':
			if seg == 0 {
				return false
			}
			seg = 0
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_':
			seg++
		default:
			return false
		}
	}
	return seg > 0
}

// readGGUF applies §9.2's rules in order.
func readGGUF(b []byte) (*File, error) {
	c := &cursor{b: b}
	// §9.2 step 1: the magic.
	magic, err := c.take(4, "the magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != "GGUF" {
		return nil, refusal.New(BadMagic, "gguf: magic %q is not \"GGUF\"", magic)
	}
	// §9.2 step 2: version 3.
	v, err := c.u32("the version")
	if err != nil {
		return nil, err
	}
	if v != 3 {
		return nil, refusal.New(VersionUnsupported, "gguf: version %d is not 3", v)
	}
	// §9.2 step 3: the counts, each refused when its least size is past
	// the file's length (the whole file's, as the text says; step 5 bounds
	// an array's count by the bytes left instead), before anything is
	// reserved.
	nt, err := c.u64("tensor_count")
	if err != nil {
		return nil, err
	}
	nkv, err := c.u64("metadata_kv_count")
	if err != nil {
		return nil, err
	}
	if nt > uint64(len(b))/28 {
		return nil, refusal.New(HeaderTruncated, "gguf: %d tensor descriptions of at least 28 bytes are past the file's %d bytes", nt, len(b))
	}
	if nkv > uint64(len(b))/12 {
		return nil, refusal.New(HeaderTruncated, "gguf: %d key-value pairs of at least 12 bytes are past the file's %d bytes", nkv, len(b))
	}
	f := &File{Meta: map[string]string{}}
	seen := map[string]bool{}
	align := uint64(ggufAlignment)
	// §9.2 step 5: the key-value pairs.
	for i := uint64(0); i < nkv; i++ {
		key, err := c.str("a key")
		if err != nil {
			return nil, err
		}
		if !validKey(key) || seen[key] {
			return nil, refusal.New(HeaderMalformed, "gguf: key %q is malformed or named twice", key)
		}
		seen[key] = true
		typ, err := c.u32("a value type")
		if err != nil {
			return nil, err
		}
		if typ > 12 {
			return nil, refusal.New(HeaderMalformed, "gguf: key %q: value type %d is not 0 to 12", key, typ)
		}
		start := c.p
		s, err := ggufValue(c, key, typ)
		if err != nil {
			return nil, err
		}
		switch {
		case key == "general.alignment":
			if typ != 4 {
				return nil, refusal.New(HeaderMalformed, "gguf: general.alignment is of type %d, not u32 (4)", typ)
			}
			align = uint64(binary.LittleEndian.Uint32(b[start:]))
			if align == 0 || align%8 != 0 {
				return nil, refusal.New(HeaderMalformed, "gguf: general.alignment %d is not a non-zero multiple of 8", align)
			}
		case typ == ggufString:
			f.Meta[key] = s
		}
	}
	// §9.2 step 6: the tensor descriptions.
	type desc struct {
		t           Tensor
		off, nbytes uint64
	}
	descs := make([]desc, 0, nt)
	names := map[string]bool{}
	for i := uint64(0); i < nt; i++ {
		name, err := c.str("a tensor name")
		if err != nil {
			return nil, err
		}
		if len(name) < 1 || len(name) > 64 || names[name] {
			return nil, refusal.New(TensorMalformed, "gguf: tensor name %q is not 1 to 64 bytes or is named twice", name)
		}
		names[name] = true
		nd, err := c.u32("n_dimensions")
		if err != nil {
			return nil, err
		}
		if nd < 1 || nd > 4 {
			return nil, refusal.New(TensorMalformed, "gguf: tensor %q: %d dimensions, not 1 to 4", name, nd)
		}
		shape := make([]uint64, nd)
		for j := range shape {
			d, err := c.u64("a dimension")
			if err != nil {
				return nil, err
			}
			if d == 0 {
				return nil, refusal.New(TensorMalformed, "gguf: tensor %q: dimension %d is 0", name, j)
			}
			shape[int(nd)-1-j] = d // innermost first on the wire, outermost first here
		}
		typ, err := c.u32("a tensor type")
		if err != nil {
			return nil, err
		}
		dt, known := ggufType[typ]
		if !known {
			return nil, refusal.New(DTypeUnknown, "gguf: tensor %q: type %d is not in §9.2's table", name, typ)
		}
		off, err := c.u64("a tensor offset")
		if err != nil {
			return nil, err
		}
		if off%align != 0 {
			return nil, refusal.New(OffsetMismatch, "gguf: tensor %q: offset %d is not a multiple of the alignment %d", name, off, align)
		}
		if dt == "Q8_0" && shape[nd-1]%32 != 0 {
			return nil, refusal.New(TensorMalformed, "gguf: Q8_0 tensor %q: innermost dimension %d is not a multiple of 32", name, shape[nd-1])
		}
		nb, ok := byteSize(dt, shape)
		if !ok {
			return nil, refusal.New(TensorMalformed, "gguf: tensor %q: element count or size passes 2^64 - 1", name)
		}
		descs = append(descs, desc{Tensor{Name: name, DType: dt, Shape: shape}, off, nb})
	}
	// §9.2 step 7: zero padding to the aligned data start, then the tensors.
	start := alignUp(c.p, align)
	for i := c.p; i < start && i < uint64(len(b)); i++ {
		if b[i] != 0 {
			return nil, refusal.New(HeaderMalformed, "gguf: padding byte at %d is 0x%02x, not 0", i, b[i])
		}
	}
	if start > uint64(len(b)) {
		return nil, refusal.New(HeaderTruncated, "gguf: the file ends before the tensor data begins at %d", start)
	}
	data := b[start:]
	for _, d := range descs {
		if d.off > uint64(len(data)) || d.nbytes > uint64(len(data))-d.off {
			return nil, refusal.New(OffsetMismatch, "gguf: tensor %q runs past the end of the file", d.t.Name)
		}
	}
	sort.Slice(descs, func(i, j int) bool { return descs[i].off < descs[j].off })
	for i := 1; i < len(descs); i++ {
		if descs[i-1].off+descs[i-1].nbytes > descs[i].off {
			return nil, refusal.New(OffsetMismatch, "gguf: tensors %q and %q overlap", descs[i-1].t.Name, descs[i].t.Name)
		}
	}
	for _, d := range descs {
		d.t.Data = data[d.off : d.off+d.nbytes]
		f.Tensors = append(f.Tensors, d.t)
	}
	sortTensors(f.Tensors)
	return f, nil
}

// ggufValue reads one value of type typ (§9.2 step 5) and returns it when
// it is a string.
func ggufValue(c *cursor, key string, typ uint32) (string, error) {
	switch typ {
	case ggufString:
		return c.str("the value of " + key)
	case ggufArray:
		et, err := c.u32("an array's element type")
		if err != nil {
			return "", err
		}
		if et > 12 || et == ggufArray {
			return "", refusal.New(HeaderMalformed, "gguf: key %q: array element type %d is not read", key, et)
		}
		n, err := c.u64("an array's count")
		if err != nil {
			return "", err
		}
		if n > c.left()/ggufValueSize[et] {
			return "", refusal.New(HeaderTruncated, "gguf: key %q: %d elements cannot fit in %d bytes", key, n, c.left())
		}
		for i := uint64(0); i < n; i++ {
			if _, err := ggufValue(c, key, et); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	s, err := c.take(ggufValueSize[typ], "the value of "+key)
	if err != nil {
		return "", err
	}
	if typ == 7 && s[0] > 1 {
		return "", refusal.New(HeaderMalformed, "gguf: key %q: boolean %d is not 0 or 1", key, s[0])
	}
	return "", nil
}

// writeGGUF writes f as §11.2 states.
func writeGGUF(f *File) ([]byte, error) {
	ts, err := writable(f, func(dt DType) bool { _, ok := ggufNumber[dt]; return ok }, "gguf")
	if err != nil {
		return nil, err
	}
	out := []byte("GGUF")
	out = binary.LittleEndian.AppendUint32(out, 3)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(ts)))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(f.Meta)))
	appendStr := func(s string) {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(s)))
		out = append(out, s...)
	}
	for _, k := range sortedKeys(f.Meta) {
		if !validKey(k) || k == "general.alignment" || !utf8.ValidString(f.Meta[k]) {
			return nil, refusal.New(HeaderMalformed, "gguf: metadata key %q or its value has no canonical GGUF form", k)
		}
		appendStr(k)
		out = binary.LittleEndian.AppendUint32(out, ggufString)
		appendStr(f.Meta[k])
	}
	off := uint64(0)
	offs := make([]uint64, len(ts))
	for i, t := range ts {
		if len(t.Name) > 64 || !utf8.ValidString(t.Name) || len(t.Shape) < 1 || len(t.Shape) > 4 {
			return nil, refusal.New(TensorMalformed, "gguf: tensor %q of shape %v has no GGUF description", t.Name, t.Shape)
		}
		appendStr(t.Name)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(t.Shape)))
		for j := len(t.Shape) - 1; j >= 0; j-- {
			if t.Shape[j] == 0 || t.DType == "Q8_0" && j == len(t.Shape)-1 && t.Shape[j]%32 != 0 {
				return nil, refusal.New(TensorMalformed, "gguf: tensor %q of shape %v has no GGUF description", t.Name, t.Shape)
			}
			out = binary.LittleEndian.AppendUint64(out, t.Shape[j])
		}
		out = binary.LittleEndian.AppendUint32(out, ggufNumber[t.DType])
		out = binary.LittleEndian.AppendUint64(out, off)
		offs[i] = off
		off = alignUp(off+uint64(len(t.Data)), ggufAlignment)
	}
	base := alignUp(uint64(len(out)), ggufAlignment)
	out = append(out, make([]byte, base-uint64(len(out)))...)
	for i, t := range ts {
		out = append(out, make([]byte, base+offs[i]-uint64(len(out)))...)
		out = append(out, t.Data...)
	}
	return out, nil
}

func alignUp(x, a uint64) uint64 { return (x + a - 1) / a * a }
