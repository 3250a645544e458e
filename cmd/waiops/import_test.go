package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/tensor"
)

// importModel is a two-layer synthesis: ConvTranspose(2→4, 3, s2) + Relu,
// then Conv(4→3, 1×1) to a picture.
func importModel(t *testing.T, extra string) []byte {
	b := onnx.NewBuilder("cli", 13)
	b.Input("y", onnx.Float, 1, 2, -1, -1)
	w := make([]float32, 2*4*9)
	for i := range w {
		w[i] = float32(i%7-3) / 10
	}
	x := b.Op("ConvTranspose", []string{"y", b.Floats(w, 2, 4, 3, 3)}, onnx.IntsAttr("strides", 2, 2),
		onnx.IntsAttr("pads", 1, 1, 1, 1), onnx.IntsAttr("output_padding", 1, 1))
	x = b.Op("Relu", []string{x})
	if extra != "" {
		x = b.Op(extra, []string{x})
	}
	b.Node("Conv", []string{x, b.Floats([]float32{0.1, 0.05, 0, 0.02, 0, 0.1, 0.05, 0, 0.02, 0, 0.1, 0.05}, 3, 4, 1, 1),
		b.Floats([]float32{0.5, 0.4, 0.3}, 3)}, []string{"x_hat"})
	b.Output("x_hat", onnx.Float, 1, 3, -1, -1)
	m, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeLatentJSON writes a §14.1 tensor [2, 2, len/4] into dir.
func writeLatentJSON(t *testing.T, dir, name string, vals []int64) {
	lt := tensor.New(tensor.Shape{C: 2, H: 2, W: len(vals) / 4})
	copy(lt.Data, vals)
	b, err := cjson.Marshal(lt.JSON())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImportCommand(t *testing.T) {
	tmp := t.TempDir()
	model := filepath.Join(tmp, "m.onnx")
	os.WriteFile(model, importModel(t, ""), 0o644)
	cal := filepath.Join(tmp, "cal")
	writeLatentJSON(t, cal, "a.json", []int64{3, -2, 1, 0, 5, -4, 2, 1, -1, 0, 4, -3, 2, 2, -5, 1})
	writeLatentJSON(t, cal, "b.json", []int64{-3, 2, -1, 4, -5, 4, 0, 1, 1, 3, -4, 3, 2, -2, 5, 0})
	rep := filepath.Join(tmp, "rep")
	// Flags after the positional, as well as before it.
	so, se, rc := run("import", model, "--calib", cal, "--report", rep, "--acts", "i16")
	if rc != 0 {
		t.Fatalf("rc %d: %s %s", rc, so, se)
	}
	for _, want := range []string{"graph " + filepath.Join(tmp, "m.whg1"), "acc32 true", "output x_hat psnr_db"} {
		if !strings.Contains(so, want) {
			t.Errorf("stdout %q lacks %q", so, want)
		}
	}
	g, err := os.ReadFile(filepath.Join(tmp, "m.whg1"))
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := os.ReadFile(filepath.Join(tmp, "m.cert.json"))
	if _, c, err := certify.Graph(g); err != nil || string(c.Bytes()) == "" || len(cert) == 0 {
		t.Fatalf("graph %v, certificate %d bytes", err, len(cert))
	}
	for _, f := range []string{"report.md", "report.json", "layers.png"} {
		if st, err := os.Stat(filepath.Join(rep, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	// A model with an op the importer does not map is refused, naming the
	// node, and leaves no graph.
	bad := filepath.Join(tmp, "bad.onnx")
	os.WriteFile(bad, importModel(t, "Tanh"), 0o644)
	so, se, rc = run("import", "--calib", cal, bad)
	if rc != 3 || !strings.Contains(se, "refuse model_mismatch: node #2 (Tanh): ") || so != "" {
		t.Fatalf("rc %d, stdout %q, stderr %q", rc, so, se)
	}
	if _, err := os.Stat(filepath.Join(tmp, "bad.whg1")); !os.IsNotExist(err) {
		t.Fatalf("a refused import left a graph: %v", err)
	}
}
