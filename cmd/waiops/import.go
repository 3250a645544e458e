package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/importer"
	"github.com/waiops/waiops/onnx"
)

func init() {
	commands["import"] = command{summary: "import a float codec transform from ONNX as a certified WHG1 graph, calibrated on latents", run: runImport}
}

// runImport is `waiops import MODEL.onnx --calib DIR [--held DIR] [--out
// G.whg1] [--report DIR] [--acts i8|i16] [--weights i8|i16] [--profile
// acc32|acc64]`. It writes the graph and its set certificate (G.cert.json)
// only once the graph is certified, and prints their paths and the verdict.
func runImport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import", stderr)
	setUsage(fs, "MODEL.onnx --calib DIR [--held DIR] [--out G.whg1] [--report DIR] [--acts i8|i16] [--weights i8|i16] [--profile acc32|acc64]")
	calib := fs.String("calib", "", "the directory of calibration latents (.npy or §14.1 tensor .json)")
	held := fs.String("held", "", "the directory of held-out latents the report measures on (default: the calibration latents)")
	out := fs.String("out", "", "the graph to write (default MODEL.whg1 beside the model); the certificate goes to G.cert.json")
	report := fs.String("report", "", "write report.md, report.json and layers.png into this directory")
	acts := fs.String("acts", fmt.Sprintf("i%d", importer.Defaults.Acts), "activation width: i8 or i16")
	weights := fs.String("weights", "", "weight width: i8 or i16 (default: the activations')")
	profile := fs.String("profile", string(importer.Defaults.Profile), "the profile the certificate must meet: acc32 or acc64")
	pos, ok := positionals(fs, args, 1, func() bool { return *calib != "" })
	if !ok {
		return 2
	}
	opts := importer.Options{Profile: certify.Profile(*profile)}
	if *weights == "" {
		// i16 weights cost an i16-activation graph no speed (its products
		// are 16-bit either way) and bring it to 8-bit output rounding's
		// floor; i8 weights keep an i8 graph on the 8-bit kernels.
		*weights = *acts
	}
	for _, w := range []struct {
		flag string
		v    *int
	}{{*acts, &opts.Acts}, {*weights, &opts.Weights}} {
		switch w.flag {
		case "i8":
			*w.v = 8
		case "i16":
			*w.v = 16
		default:
			fmt.Fprintf(stderr, "waiops import: a width is i8 or i16, not %q\n", w.flag)
			return 2
		}
	}
	if !opts.Profile.Valid() {
		fmt.Fprintf(stderr, "waiops import: --profile is acc32 or acc64, not %q\n", *profile)
		return 2
	}
	model := pos[0]
	if *out == "" {
		*out = strings.TrimSuffix(model, filepath.Ext(model)) + ".whg1"
	}
	// One byte past the cap, so that the reader refuses an oversized model.
	b, err := readAtMost(model, onnx.DefaultCaps.FileBytes+1)
	if err != nil {
		return fail(err, stderr)
	}
	cal, err := importer.ReadLatents(*calib)
	if err != nil {
		return fail(err, stderr)
	}
	start := time.Now()
	res, err := importer.Import(b, cal, opts)
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stderr, "imported %s in %.2f s: %d layers, %d calibration latents\n", model, time.Since(start).Seconds(), len(res.Layers), len(cal))
	cert := importer.CertificatePath(*out)
	if err := writeOutputs([]output{{cert, res.Certificate}, {*out, res.Graph}}, stdout); err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "graph %s\ncertificate %s\nacc32 %v\nacc64 %v\n", *out, cert, res.Cert.Verdict.Acc32, res.Cert.Verdict.Acc64)
	if *report == "" {
		return 0
	}
	heldOut, heldIsCal := cal, true
	if *held != "" {
		if heldOut, err = importer.ReadLatents(*held); err != nil {
			return fail(err, stderr)
		}
		heldIsCal = false
	}
	oe, le, err := res.Measure(heldOut)
	if err != nil {
		return fail(err, stderr)
	}
	rep := importer.NewReport(res, filepath.Base(model), cal, heldOut, heldIsCal, oe, le)
	if err := rep.Write(*report); err != nil {
		return fail(err, stderr)
	}
	for _, o := range oe {
		fmt.Fprintf(stdout, "output %s psnr_db %.2f max_abs_error %.4g share_differing %.4f\n", o.Name, o.PSNR, o.MaxAbs, o.Differ)
	}
	fmt.Fprintf(stdout, "report %s\n", *report)
	return 0
}
