package decoder

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// handSynth is drivers' TestDecodeSynthByHand set, worked there from §13.1:
// one latent 7 gives the 2×2 HWC bytes handRGB.
func handSynth() ([]byte, []byte) {
	return drivers.EncodeSynth([]drivers.SynthLayer{{InCh: 1, OutCh: 3, K: 2, Stride: 2, Shift: 1, Relu: true,
		W: []int64{1, 2, 3, -1, 40, 0, -5, 10, 100, 2, 0, 1}, Bias: []int64{0, 1, 3}}}), drivers.SynthPayloadBytes(2, 2, 1, 1, []int8{7})
}

var handRGB = []byte{3, 140, 255, 7, 0, 8, 10, 0, 1, 0, 35, 5}

func open(t *testing.T, f fabric.Choice) *Decoder {
	t.Helper()
	d, err := Open(fabric.Options{Fabric: f})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func demo(t testing.TB) (set, payload []byte) {
	t.Helper()
	set, err := os.ReadFile("../examples/demo/int_synth.json")
	if err != nil {
		t.Fatal(err)
	}
	payload, err = os.ReadFile("../examples/demo/payload.bin")
	if err != nil {
		t.Fatal(err)
	}
	return set, payload
}

// TestSynthByHand: the frame's bytes, its pixels as an image.Image, and
// its PNG are the hand-worked values.
func TestSynthByHand(t *testing.T) {
	set, payload := handSynth()
	s, err := open(t, fabric.CPU).LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fabric() != "cpu" || f.Width() != 2 || f.Height() != 2 || !bytes.Equal(f.RGB(), handRGB) {
		t.Fatalf("%s %dx%d %v", s.Fabric(), f.Width(), f.Height(), f.RGB())
	}
	if c := f.At(1, 0); c != (color.RGBA{7, 0, 8, 255}) {
		t.Errorf("At(1, 0) = %v, want (7, 0, 8) opaque", c)
	}
	if c := f.At(2, 0); c != (color.RGBA{}) {
		t.Errorf("At outside = %v", c)
	}
	p, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, a := img.At(0, 1).RGBA(); r>>8 != 10 || g>>8 != 0 || b>>8 != 1 || a>>8 != 255 {
		t.Errorf("PNG (0, 1) = %d %d %d %d, want 10 0 1 255", r>>8, g>>8, b>>8, a>>8)
	}
	if len(s.Certificate()) == 0 {
		t.Error("no certificate")
	}
}

// TestConcurrentDecodes: one loaded set decodes the demo from 8 goroutines
// at once (run under -race), every frame equal.
func TestConcurrentDecodes(t *testing.T) {
	set, payload := demo(t)
	s, err := open(t, fabric.Auto).LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			f, err := s.Decode(payload)
			if err == nil && !bytes.Equal(f.RGB(), first.RGB()) {
				err = errors.New("a different frame")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// tinyWorld is drivers' hand-worked pair: C = 1, A = 1, afrac 8; T gives
// z + 256·move clamped to ±256, g_s (z, 2z, −z) then the RGB8 step.
func tinyWorld() (t, gs []byte) {
	conv := func(in, out uint32, w []int64) drivers.Layer {
		return drivers.Layer{Tag: drivers.TagConv, In: in, Out: out, K: 1, Stride: 1, W: w,
			Mult: make([]int64, out), Bias: make([]int64, out)}
	}
	tl, gl := conv(2, 1, []int64{1, 1}), conv(1, 3, []int64{1, 2, -1})
	tl.Mult[0] = 1
	gl.Mult[0], gl.Mult[1], gl.Mult[2] = 1, 1, 1
	return drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{tl}}),
		drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{gl}})
}

// TestWorldByHand: z0 = 100 gives (100, 199, 0); move −1 gives z −156 and
// (0, 0, 155); move 2 gives z 356 → 256 and (255, 255, 0) (drivers'
// TestRenderWorldByHand works them); Render and a stepped Clip agree, and a
// row of the wrong length is refused and leaves the clip where it was.
func TestWorldByHand(t *testing.T) {
	tb, gb := tinyWorld()
	w, err := open(t, fabric.CPU).LoadWorld(tb, gb)
	if err != nil {
		t.Fatal(err)
	}
	z0 := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{100}}
	want := [][]byte{{100, 199, 0}, {0, 0, 155}, {255, 255, 0}}
	frames, err := w.Render(z0, [][]int64{{-1}, {2}})
	if err != nil || len(frames) != 3 || w.Actions() != 1 {
		t.Fatalf("%v, %d frames, A %d", err, len(frames), w.Actions())
	}
	c, err := w.Start(z0)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range [][]int64{nil, {-1}, {2}} {
		if i > 0 {
			if _, err := c.Step([]int64{1, 1}); !isCode(err, refusal.ModelMismatch) {
				t.Errorf("a row of 2: %v", err)
			}
			if _, err := c.Step(row); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(frames[i].RGB(), want[i]) || !bytes.Equal(c.Frame().RGB(), want[i]) {
			t.Errorf("frame %d: %v and %v, want %v", i, frames[i].RGB(), c.Frame().RGB(), want[i])
		}
	}
}

func isCode(err error, c refusal.Code) bool {
	var r *refusal.Error
	return errors.As(err, &r) && r.Code == c
}

// TestLoadAnyLowering: the demo loaded by its lowering's name decodes the
// same frame through its synth graph as LoadSynth's, with the same
// certificate.
func TestLoadAnyLowering(t *testing.T) {
	set, payload := demo(t)
	d := open(t, fabric.CPU)
	s, err := d.Load(IntSynth, LoadOptions{}, File{Name: "int_synth.json", Data: set})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Roles(); len(r) != 1 || r[0] != "synth" || s.Graph("g_s") != nil {
		t.Fatalf("roles %v", r)
	}
	p, err := drivers.ParseSynthPayload(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Graph("synth").Decode([]*tensor.T{p.Latents}, nil)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := d.LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	f, err := typed.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	n := f.Width() * f.Height()
	for i := range n {
		for c := range 3 {
			if int64(f.RGB()[3*i+c]) != out[0].Data[c*n+i] {
				t.Fatalf("pixel %d channel %d differs", i, c)
			}
		}
	}
	if !bytes.Equal(s.Certificate(), typed.Certificate()) {
		t.Error("certificates differ")
	}
	if _, err := d.Load("int_synth/9", LoadOptions{}); err == nil {
		t.Error("an unknown lowering loads")
	}
}

// TestPCM: −1, 256 and 32767 are ff ff, 00 01 and ff 7f; a value past
// 16 bits or a shape not [1, 1, T] is an error.
func TestPCM(t *testing.T) {
	b, err := PCM(&tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 3}, Data: []int64{-1, 256, 32767}})
	if err != nil || !bytes.Equal(b, []byte{0xff, 0xff, 0x00, 0x01, 0xff, 0x7f}) {
		t.Errorf("%x %v", b, err)
	}
	if _, err := PCM(&tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{32768}}); err == nil {
		t.Error("32768 is a sample")
	}
	if _, err := PCM(&tensor.T{Shape: tensor.Shape{C: 2, H: 1, W: 1}, Data: []int64{0, 0}}); !isCode(err, refusal.ModelMismatch) {
		t.Errorf("[2, 1, 1]: %v", err)
	}
}

// TestClose: after Close a loaded set decodes to ErrClosed.
func TestClose(t *testing.T) {
	set, payload := handSynth()
	d, err := Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decode(payload); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := Open(fabric.Options{Fabric: "tpu"}); err == nil {
		t.Error("fabric tpu opens")
	}
}

// TestFabricsAgree: the demo decodes to the same bytes on the GL fabric as
// on the CPU (exact integers, §4), the GL fabric's crossing as bytes
// (tally.Widened); under Auto on a software rasteriser the
// decoder stays on the CPU and says why. Without a GL context it skips
// (gputest.Need).
func TestFabricsAgree(t *testing.T) {
	set, payload := demo(t)
	dev := gputest.Device(t)
	g, err := Open(fabric.Options{Fabric: fabric.GPU})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var frames [][]byte
	for _, d := range []*Decoder{open(t, fabric.CPU), g} {
		s, err := d.LoadSynth(set)
		if err != nil {
			t.Fatal(err)
		}
		before := tally.Take()
		f, err := s.Decode(payload)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f.RGB())
		if d == g && s.Fabric() != "gpu" {
			t.Errorf("under GPU the set ran on %s", s.Fabric())
		}
		// On the GL fabric the picture crosses as bytes, never int64.
		if n := before.Since().Widened; n != 0 {
			t.Errorf("on %s the decode widened %d outputs to int64", s.Fabric(), n)
		}
	}
	if !bytes.Equal(frames[0], frames[1]) {
		t.Error("cpu and gpu frames differ")
	}
	if dev.Identity().Software() {
		if n := open(t, fabric.Auto).Note(); !strings.Contains(n, "software rasteriser") {
			t.Errorf("auto on %s: note %q", dev.Identity().Renderer, n)
		}
	}
}
