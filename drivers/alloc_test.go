package drivers_test

import (
	"encoding/binary"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// Allocation bounds: a small input that declares a huge
// size is refused with its code, allocating less than 1 MiB beyond itself.
func TestAllocBoundsDrivers(t *testing.T) {
	le32 := binary.LittleEndian.AppendUint32
	header := func(magic string, layers uint32) []byte {
		return le32(append([]byte(magic), make([]byte, 12)...), layers)
	}
	igdn := le32(append(header("WHM1", 1), drivers.TagIGDN), 1<<32-1)
	conv := append(header("WAM1", 1), drivers.TagConv)
	for _, v := range []uint32{1<<32 - 1, 1<<32 - 1, 1<<32 - 1, 1, 0} {
		conv = le32(conv, v)
	}
	bigSynth := []byte(`{"layers":[{"in_ch":67108864,"out_ch":67108864,"k":65536,"stride":1,"pad":0,"weight":[],"bias":[]}]}`)
	for _, c := range []struct {
		name string
		b    []byte
		code refusal.Code
		read func([]byte) error
	}{
		{"WHM1 igdn of 2^32 - 1 channels", igdn, refusal.ModelMismatch, func(b []byte) error { _, err := drivers.ParseWHM(b, false); return err }},
		{"WAM1 conv of 2^32 - 1 channels and k", conv, refusal.ModelMismatch, func(b []byte) error { _, err := drivers.ParseWHM(b, true); return err }},
		{"WHM1 of 2^32 - 1 layers", header("WHM1", 1<<32-1), refusal.ModelMismatch, func(b []byte) error { _, err := drivers.ParseWHM(b, false); return err }},
		{"WMB1 member of 2^32 - 1 bytes", le32([]byte("WMB1"), 1<<32-1), refusal.ModelMismatch, func(b []byte) error { _, err := drivers.ParseWMB(b); return err }},
		{"int_synth layer of 2^26 channels and k 2^16", bigSynth, refusal.PayloadMalformed, func(b []byte) error {
			_, err := drivers.Lower(drivers.IntSynth, nil, []drivers.File{{"int_synth.json", b}})
			return err
		}},
		{"z0 of 2^26 values and no data", []byte(`{"data":[],"shape":["1","8192","8192"]}`), refusal.GeometryMismatch, func(b []byte) error { _, err := drivers.ParseLatent(b); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := spectest.Bounded(t, len(c.b), c.code, func() error { return c.read(c.b) })
			t.Logf("%d bytes allocated for %d", n, len(c.b))
		})
	}
}
