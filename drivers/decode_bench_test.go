package drivers

import "testing"

// synthBench is a 4-layer int_synth set: latents [8, 16, 16], each layer a
// k = 4, stride 2, pad 1 conv_transpose that doubles the side, so the
// output is [3, 256, 256].
func synthBench() ([]byte, []byte) {
	r := &prng{s: 0xbe7c4}
	chans := []int{8, 16, 16, 8, 3}
	var ls []SynthLayer
	for i := range 4 {
		in, out := chans[i], chans[i+1]
		ls = append(ls, SynthLayer{InCh: in, OutCh: out, K: 4, Stride: 2, Pad: 1, Shift: 8, Relu: i < 3,
			W: r.ints(in*out*16, -100, 100), Bias: r.ints(out, -1000, 1000)})
	}
	lat := make([]int8, 8*16*16)
	for i, v := range r.ints(len(lat), -128, 127) {
		lat[i] = int8(v)
	}
	return EncodeSynth(ls), synthPayload(256, 256, 8, 16, lat)
}

// BenchmarkDecodeSynth256 is one int_synth decode at 256×256 output on the
// CPU reference, lowering and certificate included (as a sink without a
// cache does it).
func BenchmarkDecodeSynth256(b *testing.B) {
	set, payload := synthBench()
	for b.Loop() {
		if _, _, err := DecodeSynth(CPU, set, payload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderWorld32 renders 32 frames of the corpus's world/1 set
// (C = 2, A = 3) at a 64×64 latent on the CPU reference.
func BenchmarkRenderWorld32(b *testing.B) {
	wt, wgs := worldNets()
	z0, err := ParseLatent([]byte(`{"data":[` + zeros(2*64*64) + `],"shape":["2","64","64"]}`))
	if err != nil {
		b.Fatal(err)
	}
	rows := make([][]int64, 31)
	for i := range rows {
		rows[i] = []int64{1, -1, 0} // moves (dx, dy, 0)
	}
	t, gs := EncodeWHM(wt), EncodeWHM(wgs)
	for b.Loop() {
		if _, _, err := RenderWorld(CPU, t, gs, z0, rows); err != nil {
			b.Fatal(err)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, 0, 4*n)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"0"`...)
	}
	return string(b)
}
