package drivers

import (
	"bytes"
	"errors"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// TestDecodeSynthByHand decodes a one-layer set whose output is worked by
// hand from §13.1 and §5.3. One latent v = 7 ([1, 1, 1]); conv_transpose
// k = 2, stride 2, pad 0, so out[o][i][j] = rq_o(W[0][o][i][j]·7) with
// rq_o(a) = ⌊(a + bias[o]) / 2⌋ (shift 1, pre bias, floor); then relu, then
// clamp(0, 255).
//
//	o = 0: W = 1, 2, 3, −1;   bias 0: 7, 14, 21, −7  → 3, 7, 10, −4 → 3, 7, 10, 0
//	o = 1: W = 40, 0, −5, 10; bias 1: 281, 1, −34, 71 → 140, 0, −17, 35 → 140, 0, 0, 35
//	o = 2: W = 100, 2, 0, 1;  bias 3: 703, 17, 3, 10 → 351, 8, 1, 5 → clamp: 255, 8, 1, 5
//
// HWC: (0,0) = 3, 140, 255; (0,1) = 7, 0, 8; (1,0) = 10, 0, 1; (1,1) = 0, 35, 5.
func TestDecodeSynthByHand(t *testing.T) {
	set := EncodeSynth([]SynthLayer{{InCh: 1, OutCh: 3, K: 2, Stride: 2, Shift: 1, Relu: true,
		W:    []int64{1, 2, 3, -1, 40, 0, -5, 10, 100, 2, 0, 1},
		Bias: []int64{0, 1, 3}}})
	f, fabric, err := DecodeSynth(CPU, set, SynthPayloadBytes(2, 2, 1, 1, []int8{7}))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{3, 140, 255, 7, 0, 8, 10, 0, 1, 0, 35, 5}
	if fabric != "cpu" || f.H != 2 || f.W != 2 || !bytes.Equal(f.RGB, want) {
		t.Fatalf("got %s %dx%d %v, want cpu 2x2 %v", fabric, f.H, f.W, f.RGB, want)
	}
}

// TestDecodeSynthRefusals: every refusal of the int_synth decode is
// payload_malformed (§4), payload checks and run-time plan alike.
func TestDecodeSynthRefusals(t *testing.T) {
	set := EncodeSynth(synthSmall()) // [2, S, S] → [3, 2S, 2S]
	lat := make([]int8, 2*3*3)
	if _, _, err := DecodeSynth(CPU, set, SynthPayloadBytes(6, 6, 2, 3, lat)); err != nil {
		t.Fatalf("the well-formed payload is refused: %v", err)
	}
	huge := synthSmall()
	huge[0].Stride = 1 << 25 // (S − 1)·2^25 + 3 + 1 passes 2^26 at S = 3 (§5.3)
	cases := []struct {
		name         string
		set, payload []byte
	}{
		{"short header", set, []byte{1, 0, 1, 0, 2, 0}},
		{"reserved byte", set, append(SynthPayloadBytes(6, 6, 2, 3, lat)[:8], append([]byte{1}, make([]byte, 18)...)...)},
		{"latent count", set, SynthPayloadBytes(6, 6, 2, 3, lat[:17])},
		{"channels against the set", set, SynthPayloadBytes(6, 6, 1, 3, lat[:9])},
		{"output shape", set, SynthPayloadBytes(6, 7, 2, 3, lat)},
		{"zero side", set, SynthPayloadBytes(0, 6, 2, 3, lat)},
		{"a size past the cap", EncodeSynth(huge), SynthPayloadBytes(6, 6, 2, 3, lat)},
	}
	for _, c := range cases {
		_, _, err := DecodeSynth(CPU, c.set, c.payload)
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != refusal.PayloadMalformed {
			t.Errorf("%s: got %v, want payload_malformed", c.name, err)
		}
	}
}
