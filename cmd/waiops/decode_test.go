package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
)

// TestDecodeSynthCommand decodes the one-layer set of drivers'
// TestDecodeSynthByHand (worked there from §13.1) through the command, and
// checks the raw bytes and the PNG's pixels.
func TestDecodeSynthCommand(t *testing.T) {
	tmp := t.TempDir()
	set := filepath.Join(tmp, "int_synth.json")
	os.WriteFile(set, drivers.EncodeSynth([]drivers.SynthLayer{{InCh: 1, OutCh: 3, K: 2, Stride: 2, Shift: 1, Relu: true,
		W: []int64{1, 2, 3, -1, 40, 0, -5, 10, 100, 2, 0, 1}, Bias: []int64{0, 1, 3}}}), 0o644)
	payload := filepath.Join(tmp, "p")
	os.WriteFile(payload, []byte{2, 0, 2, 0, 1, 0, 1, 0, 0, 7}, 0o644)
	out, raw := filepath.Join(tmp, "o.png"), filepath.Join(tmp, "o.rgb")
	_, se, rc := run("decode", "int_synth", "--set", set, "--payload", payload, "--out", out, "--raw", raw, "--fabric", "cpu")
	if rc != 0 || !strings.Contains(se, "fabric: cpu\n") {
		t.Fatalf("rc %d: %s", rc, se)
	}
	want := []byte{3, 140, 255, 7, 0, 8, 10, 0, 1, 0, 35, 5}
	if got, _ := os.ReadFile(raw); !bytes.Equal(got, want) {
		t.Errorf("raw %v, want %v", got, want)
	}
	f, _ := os.Open(out)
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, a := img.At(1, 0).RGBA() // (y 0, x 1) = 7, 0, 8
	if r>>8 != 7 || g>>8 != 0 || b>>8 != 8 || a>>8 != 255 {
		t.Errorf("pixel (0, 1) = %d %d %d %d", r>>8, g>>8, b>>8, a>>8)
	}
	// A refused decode writes no output file.
	os.WriteFile(payload, []byte{2, 0, 2, 0, 1, 0, 1, 0, 0}, 0o644)
	out2 := filepath.Join(tmp, "refused.png")
	so, se, rc := run("decode", "int_synth", "--set", set, "--payload", payload, "--out", out2, "--fabric", "cpu")
	if _, err := os.Stat(out2); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse payload_malformed: ") || err == nil {
		t.Errorf("rc %d, %q %q, written: %v", rc, so, se, err == nil)
	}
}

// TestDecodeWorldCommand: C = 1, A = 1; T adds the plane value 256·move,
// g_s gives (z, 2z, −z) then the RGB8 step (afrac 8). Frames worked by hand
// in drivers' TestRenderWorldByHand: z0 = 100 → 100, 199, 0; move −1 → 0,
// 0, 155.
func TestDecodeWorldCommand(t *testing.T) {
	tmp := t.TempDir()
	conv := func(in, out uint32, w []int64) drivers.Layer {
		return drivers.Layer{Tag: drivers.TagConv, In: in, Out: out, K: 1, Stride: 1, W: w,
			Mult: []int64{1, 1, 1}[:out], Bias: make([]int64, out)}
	}
	files := map[string][]byte{
		"T.whm":    drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{conv(2, 1, []int64{1, 1})}}),
		"g_s.whm":  drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{conv(1, 3, []int64{1, 2, -1})}}),
		"z.json":   []byte(`{"data":["100"],"shape":["1","1","1"]}`),
		"r.json":   []byte(`[[-1]]`),
		"bad.json": []byte(`[[50, 1]]`),
	}
	for n, b := range files {
		os.WriteFile(filepath.Join(tmp, n), b, 0o644)
	}
	p := func(n string) string { return filepath.Join(tmp, n) }
	out, raw := p("frames"), p("all.rgb")
	if _, se, rc := run("decode", "world", "--T", p("T.whm"), "--gs", p("g_s.whm"), "--z0", p("z.json"), "--rows", p("r.json"),
		"--out", out, "--raw", raw, "--fabric", "cpu"); rc != 0 {
		t.Fatalf("rc %d: %s", rc, se)
	}
	if got, _ := os.ReadFile(raw); !bytes.Equal(got, []byte{100, 199, 0, 0, 0, 155}) {
		t.Errorf("raw frames %v", got)
	}
	if pngs, _ := filepath.Glob(filepath.Join(out, "frame_*.png")); len(pngs) != 2 {
		t.Errorf("%d PNGs, want 2", len(pngs))
	}
	so, se, rc := run("decode", "world", "--T", p("T.whm"), "--gs", p("g_s.whm"), "--z0", p("z.json"), "--rows", p("bad.json"),
		"--out", p("frames2"), "--fabric", "cpu")
	if _, err := os.Stat(p("frames2")); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse model_mismatch: ") || err == nil {
		t.Errorf("rc %d, %q %q, written: %v", rc, so, se, err == nil)
	}
}

// TestDecodeJPEGAICommand runs the scale path of the corpus's jpegai-int/1
// set over fixed segment bytes and checks that the twelve tensors are
// written as §14.1 JSON; a refused decode (GRFS flags of the wrong count)
// writes none.
func TestDecodeJPEGAICommand(t *testing.T) {
	set := corpusSet(t, "wai.image.jpegai", `"acc64":true`)
	tmp := t.TempDir()
	p := func(n string) string { return filepath.Join(tmp, n) }
	mem := func(n int, seed byte) []byte {
		b := make([]byte, n)
		x := uint32(seed)
		for i := range b {
			x = x*1664525 + 1013904223
			b[i] = byte(x >> 24)
		}
		b[n-1] |= 0x80 // mans_decode's sentinel bit
		return b
	}
	os.WriteFile(p("soz"), mem(1<<14, 1), 0o644)
	os.WriteFile(p("sorp"), mem(1<<17, 2), 0o644)
	os.WriteFile(p("sors"), mem(1<<17, 3), 0o644)
	flags := func(n int) string { return "[" + strings.Repeat("0,", n-1) + "1]" }
	os.WriteFile(p("grfs.json"), []byte(`{"y":`+flags(160)+`,"uv":`+flags(96)+`}`), 0o644)
	os.WriteFile(p("bad.json"), []byte(`{"y":`+flags(159)+`,"uv":`+flags(96)+`}`), 0o644)
	args := func(grfs, out string) []string {
		return []string{"decode", "jpegai", "--hs-y", filepath.Join(set, "set", "hs_y.json"),
			"--hs-uv", filepath.Join(set, "set", "hs_uv.json"), "--norm", filepath.Join(set, "set", "norm.json"),
			"--soz", p("soz"), "--sorp", p("sorp"), "--sors", p("sors"), "--grfs", grfs, "--out", out, "--fabric", "cpu"}
	}
	if so, se, rc := run(args(p("grfs.json"), p("out"))...); rc != 0 {
		t.Fatalf("rc %d: %s %s", rc, so, se)
	}
	for _, plane := range []string{"y", "uv"} {
		for _, n := range []string{"z", "v", "mask", "likely", "sigma_idx", "y_q"} {
			b, err := os.ReadFile(filepath.Join(p("out"), plane, n+".json"))
			if err != nil || !bytes.HasPrefix(b, []byte(`{"data":["`)) {
				t.Errorf("%s/%s.json: %v %.40q", plane, n, err, b)
			}
		}
	}
	so, se, rc := run(args(p("bad.json"), p("out2"))...)
	if _, err := os.Stat(p("out2")); rc != 3 || so != "" || !strings.HasPrefix(se, "refuse model_mismatch: ") || err == nil {
		t.Errorf("rc %d, %q %q, written: %v", rc, so, se, err == nil)
	}
}

// TestDecodeFabricsAgree decodes the corpus's acc32 int_synth set on the
// CPU, on the GL fabric and on the hybrid and requires the same bytes (§12). It skips
// without a GL fabric (gputest.Need).
func TestDecodeFabricsAgree(t *testing.T) {
	_, err := fabric.OpenGPU()
	gputest.Need(t, err)
	set := corpusSet(t, "wai.neural.int_synth", `"acc32":true`)
	tmp := t.TempDir()
	payload := filepath.Join(tmp, "p")
	lat := make([]byte, 2*5*5)
	for i := range lat {
		lat[i] = byte(i*37 + 11)
	}
	os.WriteFile(payload, append([]byte{10, 0, 10, 0, 2, 0, 5, 0, 0}, lat...), 0o644)
	var raws [][]byte
	for _, fabric := range []string{"cpu", "gpu", "hybrid"} {
		raw := filepath.Join(tmp, fabric+".rgb")
		so, se, rc := run("decode", "int_synth", "--set", filepath.Join(set, "set", "int_synth.json"), "--payload", payload,
			"--out", filepath.Join(tmp, fabric+".png"), "--raw", raw, "--fabric", fabric)
		if rc != 0 || !strings.Contains(se, "fabric: "+fabric+"\n") {
			t.Fatalf("%s: rc %d: %s%s", fabric, rc, so, se)
		}
		b, _ := os.ReadFile(raw)
		raws = append(raws, b)
	}
	if len(raws[0]) != 300 || !bytes.Equal(raws[0], raws[1]) || !bytes.Equal(raws[0], raws[2]) {
		t.Errorf("gpu equal %t, hybrid equal %t: a frame differs from the CPU's", bytes.Equal(raws[0], raws[1]), bytes.Equal(raws[0], raws[2]))
	}
}
