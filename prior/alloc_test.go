package prior

import (
	"encoding/binary"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// Allocation bounds: a small file that declares a huge
// size or count is refused with its code, and reading it allocates less
// than 1 MiB beyond the file.

func TestAllocBoundsPrior(t *testing.T) {
	le64 := binary.LittleEndian.AppendUint64
	le32 := binary.LittleEndian.AppendUint32
	// A WHM1 igdn layer of 2^32 − 1 channels (the most a u32 holds):
	// gamma alone would be 2^66 bytes.
	igdn := le32(le32(append([]byte("WHM1"), make([]byte, 12)...), 1), 0)
	igdn = le32(append(igdn, 2), 1<<32-1)
	// A conv of 2^32 − 1 by 2^32 − 1 channels, k 1.
	conv := le32(append([]byte("WHM1"), make([]byte, 12)...), 1)
	conv = append(conv, 1)
	for _, v := range []uint32{1<<32 - 1, 1<<32 - 1, 1, 1, 0} {
		conv = le32(conv, v)
	}
	for _, c := range []struct {
		name string
		b    []byte
		code refusal.Code
		read func(b []byte) error
	}{
		{"safetensors header of 100 000 000 bytes in 16", append(le64(nil, 100_000_000), "{}      "...), HeaderTruncated, readIn(Safetensors)},
		{"safetensors header of 100 000 001 bytes", append(le64(nil, 100_000_001), "{}      "...), HeaderTooLarge, readIn(Safetensors)},
		{"GGUF of 2^60 tensors", le64(le64(le32([]byte("GGUF"), 3), 1<<60), 0), HeaderTruncated, readIn(GGUF)},
		{"GGUF of 2^60 key-value pairs", le64(le64(le32([]byte("GGUF"), 3), 0), 1<<60), HeaderTruncated, readIn(GGUF)},
		// flag 1, then the 31-bit size 2^31 − 1, the most it holds.
		{"NNC unit of 2^31 - 1 bytes", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, NNCTruncated, readIn(NNC)},
		{"WHM1 igdn of 2^32 - 1 channels", igdn, NativeMalformed, encodeIn(Safetensors)},
		{"WHM1 conv of 2^32 - 1 channels", conv, NativeMalformed, encodeIn(GGUF)},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := spectest.Bounded(t, len(c.b), c.code, func() error { return c.read(c.b) })
			t.Logf("%d bytes allocated for %d", n, len(c.b))
		})
	}
}

func readIn(form Form) func([]byte) error {
	return func(b []byte) error { _, err := Read(form, b); return err }
}

func encodeIn(form Form) func([]byte) error {
	return func(b []byte) error { _, _, err := Encode(form, b); return err }
}

// TestNNCBudget: a data unit of 2^28 elements (§12.1's most) over a
// payload of a few bytes is refused past a caller's budget before it is
// decoded, and a budget of exactly 4 bytes an element reads it.
func TestNNCBudget(t *testing.T) {
	huge := cat(strUnit, mpsUnit, ndu{name: "t", dims: []uint64{1 << 14, 1 << 14}, payload: make([]byte, 16)}.bytes())
	n := spectest.Bounded(t, len(huge), NNCNotRead, func() error { _, err := ReadNNCWithin(huge, 1<<20); return err })
	t.Logf("2^28 elements past a 1 MiB budget: %d bytes allocated for %d", n, len(huge))

	p, err := encodeInts([]int64{3, -4, 0}, 11)
	if err != nil {
		t.Fatal(err)
	}
	one, err := encodeInts([]int64{7}, 11)
	if err != nil {
		t.Fatal(err)
	}
	// Two tensors of 3 and 1 elements: 12 + 4 = 16 bytes decoded.
	two := cat(strUnit, mpsUnit, ndu{name: "a", dims: []uint64{3}, payload: p}.bytes(), ndu{name: "b", dims: []uint64{1}, payload: one}.bytes())
	if _, err := ReadNNCWithin(two, 16); err != nil {
		t.Fatalf("a budget of 16 bytes for 16: %v", err)
	}
	_, err = ReadNNCWithin(two, 15)
	spectest.Refusal(t, err, NNCNotRead)
	f, err := Read(NNC, two)
	if err != nil || len(f.Tensors) != 2 {
		t.Fatalf("Read without a budget: %v", err)
	}
}
