package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/drivers"
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
	so, _, rc := run("decode", "int_synth", "--set", set, "--payload", payload, "--out", out2, "--fabric", "cpu")
	if _, err := os.Stat(out2); rc != 3 || !strings.HasPrefix(so, "refuse payload_malformed: ") || err == nil {
		t.Errorf("rc %d, %q, written: %v", rc, so, err == nil)
	}
}

// TestDecodeWorldCommand: C = 1, A = 1; T adds the plane value, g_s gives
// (z, 2z, −z) then the RGB8 step (afrac 8). Frames worked by hand in
// drivers' TestRenderWorldByHand: z0 = 100 → 100, 199, 0; row 50 → 149,
// 255, 0.
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
		"r.json":   []byte(`[[50]]`),
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
	if got, _ := os.ReadFile(raw); !bytes.Equal(got, []byte{100, 199, 0, 149, 255, 0}) {
		t.Errorf("raw frames %v", got)
	}
	if pngs, _ := filepath.Glob(filepath.Join(out, "frame_*.png")); len(pngs) != 2 {
		t.Errorf("%d PNGs, want 2", len(pngs))
	}
	so, _, rc := run("decode", "world", "--T", p("T.whm"), "--gs", p("g_s.whm"), "--z0", p("z.json"), "--rows", p("bad.json"),
		"--out", p("frames2"), "--fabric", "cpu")
	if _, err := os.Stat(p("frames2")); rc != 3 || !strings.HasPrefix(so, "refuse model_mismatch: ") || err == nil {
		t.Errorf("rc %d, %q, written: %v", rc, so, err == nil)
	}
}
