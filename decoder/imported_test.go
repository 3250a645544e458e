package decoder

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/importer"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/tensor"
)

// tinycodec imports examples/tinycodec's synthesis at the given width and
// returns the graph and a held-out latent.
func tinycodec(t *testing.T, acts int) ([]byte, *tensor.T) {
	t.Helper()
	dir := filepath.Join("..", "examples", "tinycodec")
	model, err := os.ReadFile(filepath.Join(dir, "synthesis.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := importer.ReadLatents(filepath.Join(dir, "calib"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := importer.Import(model, cal, importer.Options{Acts: acts, Weights: 8, Profile: certify.Acc32})
	if err != nil {
		t.Fatal(err)
	}
	lt, err := importer.ReadLatent(filepath.Join(dir, "heldout", "chelsea.npy"))
	if err != nil {
		t.Fatal(err)
	}
	return r.Graph, lt
}

// TestImported decodes the imported example through the decoder, to a
// tensor and to a picture, and gets the CPU reference's integers.
func TestImported(t *testing.T) {
	graph, lt := tinycodec(t, 16)
	m, err := open(t, fabric.CPU).LoadImported(graph)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	got, err := m.Decode(lt)
	if err != nil {
		t.Fatal(err)
	}
	prog, _, err := cpuref.LoadBytes(graph)
	if err != nil {
		t.Fatal(err)
	}
	want, err := prog.Decode([]*tensor.T{lt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Shape != want[0].Shape || !slices.Equal(got.Data, want[0].Data) {
		t.Fatal("the decoder's tensor differs from the CPU reference's")
	}
	img, err := m.DecodeImage(lt)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 8*lt.Shape.W || b.Dy() != 8*lt.Shape.H {
		t.Fatalf("picture %v for a latent %v", b, lt.Shape)
	}
	r, g, bl, _ := img.At(5, 7).RGBA()
	hw := got.Shape.H * got.Shape.W
	if int64(r>>8) != got.Data[7*got.Shape.W+5] || int64(g>>8) != got.Data[hw+7*got.Shape.W+5] || int64(bl>>8) != got.Data[2*hw+7*got.Shape.W+5] {
		t.Fatal("the picture's pixel is not the tensor's samples")
	}
	if m.Fabric() != fabric.CPU || len(m.Certificate()) == 0 {
		t.Fatalf("fabric %s, certificate %d bytes", m.Fabric(), len(m.Certificate()))
	}
	if _, err := open(t, fabric.CPU).LoadImported([]byte("WHG1")); err == nil {
		t.Fatal("junk loaded")
	}
}

// TestImportedFabricsAgree: the imported example (acc32) decodes to the
// same picture on the GL fabric as on the CPU, at i8 and i16, the GL
// fabric's crossing as bytes (tally.Widened).
func TestImportedFabricsAgree(t *testing.T) {
	gputest.Device(t)
	for _, acts := range []int{8, 16} {
		graph, lt := tinycodec(t, acts)
		var pics [][]byte
		for _, f := range []fabric.Choice{fabric.CPU, fabric.GPU} {
			m, err := open(t, f).LoadImported(graph)
			if err != nil {
				t.Fatal(err)
			}
			before := tally.Take()
			img, err := m.DecodeImage(lt)
			if err != nil {
				t.Fatal(err)
			}
			if n := before.Since().Widened; n != 0 {
				t.Errorf("i%d on %s: %d outputs widened to int64", acts, f, n)
			}
			if m.Fabric() != f {
				t.Fatalf("under %s the graph ran on %s", f, m.Fabric())
			}
			pics = append(pics, img.RGB())
		}
		if !bytes.Equal(pics[0], pics[1]) {
			t.Errorf("i%d: cpu and gpu pictures differ", acts)
		}
	}
}
