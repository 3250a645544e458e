package prior

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"

	"github.com/waiops/waiops/refusal"
)

// Form is a tensor-file form of §9 and §12.
type Form string

// The three forms a prior of the profile travels in.
const (
	Safetensors Form = "safetensors"
	GGUF        Form = "gguf"
	NNC         Form = "nnc"
)

// Forms lists the three forms in the order the corpus writes them.
var Forms = []Form{Safetensors, GGUF, NNC}

// DType is an element type, named as safetensors names it (§9.1) or, for
// GGUF's Q8_0, as GGUF does (§9.2).
type DType string

// Tensor is one named tensor of a file (§9.3): its shape outermost first and
// its bytes, the elements in row-major order, each little-endian. A reader's
// Data aliases the file's bytes where it can.
type Tensor struct {
	Name  string
	DType DType
	Shape []uint64
	Data  []byte
}

// File is what a reader obtains (§9.3): the metadata and the tensors in
// ascending byte order of their names.
type File struct {
	Meta    map[string]string
	Tensors []Tensor
}

// elemSize is the size in bytes of one element of each safetensors dtype
// (§9.1's table) and of the GGUF types of §9.2 but Q8_0, sized per block.
var elemSize = map[DType]uint64{
	"BOOL": 1, "U8": 1, "I8": 1, "U16": 2, "I16": 2, "F16": 2, "BF16": 2,
	"U32": 4, "I32": 4, "F32": 4, "U64": 8, "I64": 8, "F64": 8,
	"F8_E5M2": 1, "F8_E4M3": 1,
}

// intRange is the value range of each integer dtype; the profile's types
// (§10.1) are I8 to I64.
var intRange = map[DType][2]int64{
	"I8": {-1 << 7, 1<<7 - 1}, "I16": {-1 << 15, 1<<15 - 1},
	"I32": {-1 << 31, 1<<31 - 1}, "I64": {-1 << 63, 1<<63 - 1},
}

// count returns the element count of shape (1 for an empty shape) and
// whether it fits in 64 bits.
func count(shape []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range shape {
		hi, lo := bits.Mul64(n, d)
		if hi != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// mul64 returns a·b and whether it fits in 64 bits.
func mul64(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0
}

// byteSize returns the size in bytes of a tensor of dtype dt and shape, and
// whether it is known and fits in 64 bits.
func byteSize(dt DType, shape []uint64) (uint64, bool) {
	n, ok := count(shape)
	if !ok {
		return 0, false
	}
	if dt == "Q8_0" {
		return mul64(n/32, 34) // §9.2: blocks of 32 elements, 34 bytes a block
	}
	s, known := elemSize[dt]
	if !known {
		return 0, false
	}
	return mul64(n, s)
}

// value returns element i of an integer tensor of the profile's types.
func value(t *Tensor, i uint64) int64 {
	switch t.DType {
	case "I8":
		return int64(int8(t.Data[i]))
	case "I16":
		return int64(int16(binary.LittleEndian.Uint16(t.Data[2*i:])))
	case "I32":
		return int64(int32(binary.LittleEndian.Uint32(t.Data[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
}

// sortTensors orders ts in ascending byte order of names (§9.3); Go
// compares strings bytewise.
func sortTensors(ts []Tensor) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}

// sortedKeys returns m's keys in ascending byte order.
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Read reads b in form, applying every rule of the form's section in order.
func Read(form Form, b []byte) (*File, error) {
	switch form {
	case Safetensors:
		return readSafetensors(b)
	case GGUF:
		return readGGUF(b)
	case NNC:
		return readNNC(b)
	}
	return nil, fmt.Errorf("prior: no form %q", form)
}

// Write writes f canonically in form (§11).
func Write(form Form, f *File) ([]byte, error) {
	switch form {
	case Safetensors:
		return writeSafetensors(f)
	case GGUF:
		return writeGGUF(f)
	case NNC:
		return writeNNC(f)
	}
	return nil, fmt.Errorf("prior: no form %q", form)
}

// ReadCanonical reads b in form and requires it canonical (§10.3 steps 1
// and 2): the file is the bytes its canonical writer makes of what it holds.
func ReadCanonical(form Form, b []byte) (*File, error) {
	f, err := Read(form, b)
	if err != nil {
		return nil, err
	}
	c, err := Write(form, f)
	if err != nil || !bytes.Equal(c, b) {
		return nil, refusal.New(HeaderNotCanonical, "the %s file reads but is not its canonical form (§11)", form)
	}
	return f, nil
}
