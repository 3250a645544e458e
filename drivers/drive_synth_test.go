package drivers_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// cpu is the CPU reference, the fabric the drivers' tests load on.
var cpu = fabric.NewCPU()

// hwc lays a [3, H, W] frame out as HWC bytes (every value a byte).
func hwc(t *tensor.T) []byte {
	n := t.Shape.H * t.Shape.W
	out := make([]byte, 3*n)
	for c := range 3 {
		for i, v := range t.Data[c*n : (c+1)*n] {
			out[3*i+c] = byte(v)
		}
	}
	return out
}

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
	set := drivers.EncodeSynth([]drivers.SynthLayer{{InCh: 1, OutCh: 3, K: 2, Stride: 2, Shift: 1, Relu: true,
		W:    []int64{1, 2, 3, -1, 40, 0, -5, 10, 100, 2, 0, 1},
		Bias: []int64{0, 1, 3}}})
	out, err := drivers.DecodeSynth(cpu, set, drivers.SynthPayloadBytes(2, 2, 1, 1, []int8{7}))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{3, 140, 255, 7, 0, 8, 10, 0, 1, 0, 35, 5}
	if out.Shape != (tensor.Shape{C: 3, H: 2, W: 2}) || !bytes.Equal(hwc(out), want) {
		t.Fatalf("got %v %v, want [3, 2, 2] %v", out.Shape, hwc(out), want)
	}
}

// TestDecodeSynthRefusals: every refusal of the int_synth decode is
// payload_malformed (§4), payload checks and run-time plan alike.
func TestDecodeSynthRefusals(t *testing.T) {
	set := drivers.EncodeSynth(setcorpus.SynthSmall()) // [2, S, S] → [3, 2S, 2S]
	lat := make([]int8, 2*3*3)
	if _, err := drivers.DecodeSynth(cpu, set, drivers.SynthPayloadBytes(6, 6, 2, 3, lat)); err != nil {
		t.Fatalf("the well-formed payload is refused: %v", err)
	}
	huge := setcorpus.SynthSmall()
	huge[0].Stride = 1 << 25 // (S − 1)·2^25 + 3 + 1 passes 2^26 at S = 3 (§5.3)
	cases := []struct {
		name         string
		set, payload []byte
	}{
		{"short header", set, []byte{1, 0, 1, 0, 2, 0}},
		{"reserved byte", set, append(drivers.SynthPayloadBytes(6, 6, 2, 3, lat)[:8], append([]byte{1}, make([]byte, 18)...)...)},
		{"latent count", set, drivers.SynthPayloadBytes(6, 6, 2, 3, lat[:17])},
		{"channels against the set", set, drivers.SynthPayloadBytes(6, 6, 1, 3, lat[:9])},
		{"output shape", set, drivers.SynthPayloadBytes(6, 7, 2, 3, lat)},
		{"zero side", set, drivers.SynthPayloadBytes(0, 6, 2, 3, lat)},
		{"a size past the cap", drivers.EncodeSynth(huge), drivers.SynthPayloadBytes(6, 6, 2, 3, lat)},
	}
	for _, c := range cases {
		_, err := drivers.DecodeSynth(cpu, c.set, c.payload)
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != refusal.PayloadMalformed {
			t.Errorf("%s: got %v, want payload_malformed", c.name, err)
		}
	}
}
