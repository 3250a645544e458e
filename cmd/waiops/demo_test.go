package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
)

// The demo set and the picture the README shows.
var (
	demoSet     = filepath.Join("..", "..", "examples", "demo", "int_synth.json")
	demoPayload = filepath.Join("..", "..", "examples", "demo", "payload.bin")
	demoPNG     = filepath.Join("..", "..", "docs", "demo.png")
)

// decodePNG reads a PNG's pixels as NRGBA.
func decodePNG(t *testing.T, b []byte) *image.NRGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := img.(*image.NRGBA)
	if !ok {
		// An opaque RGB PNG decodes as RGBA; its pixels are the same bytes.
		r, ok := img.(*image.RGBA)
		if !ok {
			t.Fatalf("a %T", img)
		}
		n = &image.NRGBA{Pix: r.Pix, Stride: r.Stride, Rect: r.Rect}
	}
	return n
}

// TestDemoDecodes: `waiops decode int_synth` on the demo set writes the
// PNG the README shows (the same pixels as docs/demo.png, 204×204), and
// writes byte-equal PNGs on the cpu and gpu fabrics. Without a GL context
// the gpu half is left out (gputest.Have).
func TestDemoDecodes(t *testing.T) {
	tmp := t.TempDir()
	fabrics := []string{"cpu"}
	if _, err := fabric.OpenGPU(); gputest.Have(t, err) {
		fabrics = append(fabrics, "gpu")
	}
	var pngs [][]byte
	for _, f := range fabrics {
		out := filepath.Join(tmp, f+".png")
		so, se, rc := run("decode", "int_synth", "--set", demoSet, "--payload", demoPayload, "--out", out, "--fabric", f)
		if rc != 0 || !strings.Contains(se, "fabric: "+f+"\n") {
			t.Fatalf("%s: rc %d: %s%s", f, rc, so, se)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		pngs = append(pngs, b)
	}
	for i := 1; i < len(pngs); i++ {
		if !bytes.Equal(pngs[0], pngs[i]) {
			t.Errorf("the %s PNG differs from the cpu's", fabrics[i])
		}
	}
	committed, err := os.ReadFile(demoPNG)
	if err != nil {
		t.Fatal(err)
	}
	got, want := decodePNG(t, pngs[0]), decodePNG(t, committed)
	if got.Rect != image.Rect(0, 0, 204, 204) || got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
		t.Errorf("the decode (%v) is not docs/demo.png (%v): regenerate it with the README's command", got.Rect, want.Rect)
	}
}
