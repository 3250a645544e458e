package drivers

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// tinyWorld is C = 1, A = 1, afrac 8: T's conv gives z + a (weights 1, 1,
// multiplier 1, shift 0, no bias), g_s's conv gives (z, 2z, −z).
func tinyWorld() (t, gs []byte) {
	conv := func(in, out uint32, w []int64) Layer {
		return Layer{Tag: TagConv, In: in, Out: out, K: 1, Stride: 1, W: w, Mult: fill(int(out), 1), Bias: fill(int(out), 0)}
	}
	t = EncodeWHM(&Network{Afrac: 8, Layers: []Layer{conv(2, 1, []int64{1, 1})}})
	gs = EncodeWHM(&Network{Afrac: 8, Layers: []Layer{conv(1, 3, []int64{1, 2, -1})}})
	return t, gs
}

// TestRenderWorldByHand: frames worked from §13.5 and the RGB8 step
// (clamp(0, 256), then ⌊(v·255 + 128) / 256⌋):
//
//	z0 = 100:         (100, 200, −100) → (100, 200, 0)  → 100, 199, 0
//	row 50:  z = 150: (150, 300, −150) → (150, 256, 0)  → 149, 255, 0
//	row −200: z = −50: (−50, −100, 50)  → (0, 0, 50)     → 0, 0, 50
func TestRenderWorldByHand(t *testing.T) {
	tb, gb := tinyWorld()
	z0, err := ParseLatent([]byte(`{"data":["100"],"shape":["1","1","1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	frames, fabric, err := RenderWorld(CPU, tb, gb, z0, [][]int64{{50}, {-200}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{{100, 199, 0}, {149, 255, 0}, {0, 0, 50}}
	if fabric != "cpu" || len(frames) != 3 {
		t.Fatalf("got %d frames on %s", len(frames), fabric)
	}
	for i, f := range frames {
		if f.H != 1 || f.W != 1 || !bytes.Equal(f.RGB, want[i]) {
			t.Errorf("frame %d: %v, want %v", i, f.RGB, want[i])
		}
	}
}

func TestRenderWorldRefusals(t *testing.T) {
	tb, gb := tinyWorld()
	z0, _ := ParseLatent([]byte(`{"data":["1"],"shape":["1","1","1"]}`))
	if _, _, err := RenderWorld(CPU, tb, gb, z0, [][]int64{{1, 2}}); codeOf(err) != refusal.ModelMismatch {
		t.Errorf("a row of 2 entries with A = 1: %v", err)
	}
	z2, _ := ParseLatent([]byte(`{"data":["1","2"],"shape":["2","1","1"]}`))
	if _, _, err := RenderWorld(CPU, tb, gb, z2, nil); codeOf(err) != refusal.ModelMismatch {
		t.Errorf("a latent of 2 channels with C = 1: %v", err)
	}
	for text, want := range map[string]refusal.Code{
		`{"data":[],"shape":["1","0","0"]}`:        refusal.FieldRange,
		`{"data":["1"],"shape":["1","2","2"]}`:     refusal.GeometryMismatch,
		`{"data":["1","2"],"shape":["1","1","2"]}`: refusal.GeometryMismatch,
		`{"data":[],"shape":["1","8193","8193"]}`:  refusal.TooLarge,
		`{"data":["1"],"shape":["1","1"]}`:         refusal.GeometryMismatch,
	} {
		if _, err := ParseLatent([]byte(text)); codeOf(err) != want {
			t.Errorf("%s: %v, want %s", text, err, want)
		}
	}
	if _, err := ParseRows([]byte(`[["1"],[9223372036854775808]]`)); codeOf(err) != refusal.FieldRange {
		t.Errorf("a plane value past i64: %v", err)
	}
}
