package drivers_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// tinyWorld is C = 1, A = 1, afrac 8: T's conv gives z + a (weights 1, 1,
// multiplier 1, shift 0, no bias), g_s's conv gives (z, 2z, −z).
func tinyWorld() (t, gs []byte) {
	conv := func(in, out uint32, w []int64) drivers.Layer {
		return drivers.Layer{Tag: drivers.TagConv, In: in, Out: out, K: 1, Stride: 1, W: w, Mult: slices.Repeat([]int64{1}, int(out)), Bias: slices.Repeat([]int64{0}, int(out))}
	}
	t = drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{conv(2, 1, []int64{1, 1})}})
	gs = drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{conv(1, 3, []int64{1, 2, -1})}})
	return t, gs
}

// TestRenderWorldByHand: frames worked from §13.5 and the RGB8 step
// (clamp(0, 256), then ⌊(v·255 + 128) / 256⌋). A move m is the plane value
// dequantize(m, 8, 0) = 256·m; T gives clamp(z + 256·m, −256, 256):
//
//	z0 = 100:               (100, 200, −100) → (100, 200, 0) → 100, 199, 0
//	move −1: z = −156:      (−156, −312, 156) → (0, 0, 156)  → 0, 0, 155
//	move 2:  z = 356 → 256: (256, 512, −256) → (256, 256, 0) → 255, 255, 0
func TestRenderWorldByHand(t *testing.T) {
	tb, gb := tinyWorld()
	z0, err := drivers.ParseLatent([]byte(`{"data":["100"],"shape":["1","1","1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := drivers.RenderWorld(cpu, tb, gb, z0, [][]int64{{-1}, {2}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{{100, 199, 0}, {0, 0, 155}, {255, 255, 0}}
	if len(frames) != 3 {
		t.Fatalf("got %d frames", len(frames))
	}
	for i, f := range frames {
		if f.Shape != (tensor.Shape{C: 3, H: 1, W: 1}) || !bytes.Equal(hwc(f), want[i]) {
			t.Errorf("frame %d: %v %v, want %v", i, f.Shape, hwc(f), want[i])
		}
	}
}

func TestRenderWorldRefusals(t *testing.T) {
	tb, gb := tinyWorld()
	z0, _ := drivers.ParseLatent([]byte(`{"data":["1"],"shape":["1","1","1"]}`))
	if _, err := drivers.RenderWorld(cpu, tb, gb, z0, [][]int64{{1, 2}}); codeOf(err) != refusal.ModelMismatch {
		t.Errorf("a row of 2 entries with A = 1: %v", err)
	}
	// 2^55·2^8 = 2^63 leaves i64 (refused by the dequantize, before any
	// frame); −2^55·2^8 = −2^63 does not, and T's input check refuses it.
	_, err := drivers.RenderWorld(cpu, tb, gb, z0, [][]int64{{1<<55 - 1}, {1 << 55}})
	if codeOf(err) != refusal.FieldRange || !strings.Contains(err.Error(), "row 1, plane 0") {
		t.Errorf("a move whose plane value leaves i64: %v", err)
	}
	_, err = drivers.RenderWorld(cpu, tb, gb, z0, [][]int64{{-1 << 55}})
	if codeOf(err) != refusal.FieldRange || !strings.Contains(err.Error(), "transition 0") {
		t.Errorf("a plane value of −2^63: %v", err)
	}
	z2, _ := drivers.ParseLatent([]byte(`{"data":["1","2"],"shape":["2","1","1"]}`))
	if _, err := drivers.RenderWorld(cpu, tb, gb, z2, nil); codeOf(err) != refusal.ModelMismatch {
		t.Errorf("a latent of 2 channels with C = 1: %v", err)
	}
	for text, want := range map[string]refusal.Code{
		`{"data":[],"shape":["1","0","0"]}`:        refusal.FieldRange,
		`{"data":["1"],"shape":["1","2","2"]}`:     refusal.GeometryMismatch,
		`{"data":["1","2"],"shape":["1","1","2"]}`: refusal.GeometryMismatch,
		`{"data":[],"shape":["1","8193","8193"]}`:  refusal.TooLarge,
		`{"data":["1"],"shape":["1","1"]}`:         refusal.GeometryMismatch,
	} {
		if _, err := drivers.ParseLatent([]byte(text)); codeOf(err) != want {
			t.Errorf("%s: %v, want %s", text, err, want)
		}
	}
	if _, err := drivers.ParseRows([]byte(`[["1"],[9223372036854775808]]`)); codeOf(err) != refusal.FieldRange {
		t.Errorf("a plane value past i64: %v", err)
	}
}
