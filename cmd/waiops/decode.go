package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/decoder"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
)

func init() {
	commands["decode int_synth"] = command{summary: "decode a wai.neural.int_synth payload to a PNG (integer-operators §13.1)", run: runDecodeSynth}
	commands["decode world"] = command{summary: "render wai.world.model frames through world/1 (integer-operators §13.5, informative)", run: runDecodeWorld}
	commands["decode jpegai"] = command{summary: "run the jpegai-int/1 scale path and its entropy decodes (integer-operators §13.6.1)", run: runDecodeJPEGAI}
}

// openDecoder opens the decoder API for a --fabric choice; any note on
// why a fabric is not used goes to stderr.
func openDecoder(choice string, stderr io.Writer) (*decoder.Decoder, error) {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.Choice(choice), Notes: stderr})
	if err != nil {
		return nil, err
	}
	if n := d.Note(); n != "" {
		fmt.Fprintln(stderr, "note:", n)
	}
	return d, nil
}

// readFiles reads each named file, in order.
func readFiles(names ...string) ([][]byte, error) {
	out := make([][]byte, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// output is one file a decode writes once it has succeeded.
type output struct {
	path string
	data []byte
}

// writeOutputs writes every output, each whole or not at all (writeBytes;
// a path "-" is stdout); it runs only after the decode is done, so a
// refused decode writes nothing.
func writeOutputs(outs []output, stdout io.Writer) error {
	for _, o := range outs {
		if o.path != "-" {
			if err := os.MkdirAll(filepath.Dir(o.path), 0o755); err != nil {
				return err
			}
		}
		if err := writeBytes(o.path, stdout, o.data); err != nil {
			return err
		}
	}
	return nil
}

// runDecodeSynth is `waiops decode int_synth --set int_synth.json --payload P
// --out out.png [--raw out.rgb] [--fabric auto|cpu|gpu|hybrid]`.
func runDecodeSynth(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("decode int_synth", stderr)
	setUsage(fs, "--set int_synth.json --payload P --out out.png [--raw out.rgb] "+fabricUsage(graphFabrics))
	set := fs.String("set", "", "the set's int_synth.json")
	payload := fs.String("payload", "", "the int_synth payload: u16 H, W, C, S, a zero byte, then the i8 latents [C][S][S], little-endian (docs/READINGS.md)")
	out := fs.String("out", "", "the PNG to write (- for stdout)")
	raw := fs.String("raw", "", "also write the frame as HWC RGB8 bytes (- for stdout)")
	fab := fabricFlag(fs, "auto", graphFabrics)
	if _, ok := positionals(fs, args, 0, func() bool { return *set != "" && *payload != "" && *out != "" }); !ok {
		return 2
	}
	in, err := readFiles(*set, *payload)
	if err != nil {
		return fail(err, stderr)
	}
	d, err := openDecoder(*fab, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	defer d.Close()
	s, err := d.LoadSynth(in[0])
	if err != nil {
		return fail(err, stderr)
	}
	f, err := s.Decode(in[1])
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stderr, "fabric:", s.Fabric())
	p, err := f.PNG()
	if err != nil {
		return fail(err, stderr)
	}
	outs := []output{{*out, p}}
	if *raw != "" {
		outs = append(outs, output{*raw, f.RGB()})
	}
	if err := writeOutputs(outs, stdout); err != nil {
		return fail(err, stderr)
	}
	return 0
}

// runDecodeWorld is `waiops decode world --T T.whm --gs g_s.whm --z0 Z.json
// --rows R.json --out DIR [--raw FILE] [--fabric auto|cpu|gpu|hybrid]`: frame 0
// is g_s(z0), then one frame per action row, as DIR/frame_NNNN.png.
func runDecodeWorld(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("decode world", stderr)
	setUsage(fs, "--T T.whm --gs g_s.whm --z0 Z.json --rows R.json --out DIR [--raw FILE] "+fabricUsage(graphFabrics))
	tPath := fs.String("T", "", "the transition network T.whm")
	gsPath := fs.String("gs", "", "the synthesis network g_s.whm")
	z0Path := fs.String("z0", "", "the initial latent, an integer-operators §14.1 tensor")
	rowsPath := fs.String("rows", "", "the action rows: a JSON array of rows of A plane values")
	out := fs.String("out", "", "the directory for the frames")
	raw := fs.String("raw", "", "also write every frame, concatenated, as HWC RGB8 bytes (- for stdout)")
	fab := fabricFlag(fs, "auto", graphFabrics)
	if _, ok := positionals(fs, args, 0, func() bool {
		return *tPath != "" && *gsPath != "" && *z0Path != "" && *rowsPath != "" && *out != ""
	}); !ok {
		return 2
	}
	in, err := readFiles(*tPath, *gsPath, *z0Path, *rowsPath)
	if err != nil {
		return fail(err, stderr)
	}
	z0, err := decoder.ParseLatent(in[2])
	if err != nil {
		return fail(err, stderr)
	}
	rows, err := decoder.ParseRows(in[3])
	if err != nil {
		return fail(err, stderr)
	}
	d, err := openDecoder(*fab, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	defer d.Close()
	w, err := d.LoadWorld(in[0], in[1])
	if err != nil {
		return fail(err, stderr)
	}
	frames, err := w.Render(z0, rows)
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stderr, "fabric:", worldFabric(w))
	var outs []output
	var all []byte
	for i, f := range frames {
		p, err := f.PNG()
		if err != nil {
			return fail(err, stderr)
		}
		outs = append(outs, output{filepath.Join(*out, fmt.Sprintf("frame_%04d.png", i)), p})
		all = append(all, f.RGB()...)
	}
	if *raw != "" {
		outs = append(outs, output{*raw, all})
	}
	if err := writeOutputs(outs, stdout); err != nil {
		return fail(err, stderr)
	}
	return 0
}

// runDecodeJPEGAI is `waiops decode jpegai --hs-y hs_y.json --hs-uv
// hs_uv.json --norm norm.json --soz F --sorp F --sors F --grfs G.json --out
// DIR [--fabric auto|cpu|gpu|hybrid]`. The segment files hold each segment's
// payload; G.json is {"y": [160 flags], "uv": [96 flags]} (true/false or
// 0/1). It writes DIR/<plane>/<name>.json for z, v, mask, likely,
// sigma_idx and y_q, each a §14.1 tensor in canonical JSON.
func runDecodeJPEGAI(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("decode jpegai", stderr)
	setUsage(fs, "--hs-y hs_y.json --hs-uv hs_uv.json --norm norm.json --soz F --sorp F --sors F --grfs G.json --out DIR "+fabricUsage(graphFabrics))
	paths := map[string]*string{}
	for _, f := range []struct{ name, help string }{
		{"hs-y", "the luma hyper-synthesis set, hs_y.json (integer-operators §13.6.1)"},
		{"hs-uv", "the chroma hyper-synthesis set, hs_uv.json"},
		{"norm", "the normalisation set, norm.json"},
		{"soz", "the segment file holding the SOZ segment's payload"},
		{"sorp", "the segment file holding the SORP segment's payload"},
		{"sors", "the segment file holding the SORS segment's payload"},
		{"grfs", `the GRFS flags, G.json: {"y": [160 flags], "uv": [96 flags]}, each true/false or 0/1`},
		{"out", "the directory for <plane>/<name>.json, each an integer-operators §14.1 tensor in canonical JSON"},
	} {
		paths[f.name] = fs.String(f.name, "", f.help)
	}
	fab := fabricFlag(fs, "auto", graphFabrics)
	if _, ok := positionals(fs, args, 0, func() bool {
		for _, p := range paths {
			if *p == "" {
				return false
			}
		}
		return true
	}); !ok {
		return 2
	}
	in, err := readFiles(*paths["hs-y"], *paths["hs-uv"], *paths["norm"], *paths["soz"], *paths["sorp"], *paths["sors"], *paths["grfs"])
	if err != nil {
		return fail(err, stderr)
	}
	seg := decoder.ScaleSegments{SOZ: in[3], SORP: in[4], SORS: in[5]}
	if seg.GRFSY, seg.GRFSUV, err = decoder.ParseGRFS(in[6]); err != nil {
		return fail(err, stderr)
	}
	d, err := openDecoder(*fab, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	defer d.Close()
	res, err := d.DecodeJPEGAIScale(in[0], in[1], in[2], seg)
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stderr, "fabric:", res.Fabric)
	var outs []output
	for _, pl := range []struct {
		name string
		p    *decoder.ScalePlane
	}{{"y", res.Y}, {"uv", res.UV}} {
		for _, t := range []struct {
			name string
			t    *tensor.T
		}{{"z", pl.p.Z}, {"v", pl.p.V}, {"mask", pl.p.Mask}, {"likely", pl.p.Likely}, {"sigma_idx", pl.p.SigmaIdx}, {"y_q", pl.p.YQ}} {
			b, err := cjson.Marshal(t.t.JSON())
			if err != nil {
				return fail(err, stderr)
			}
			outs = append(outs, output{filepath.Join(*paths["out"], pl.name, t.name+".json"), b})
		}
	}
	if err := writeOutputs(outs, stdout); err != nil {
		return fail(err, stderr)
	}
	return 0
}

// worldFabric names where a world pair runs: one fabric, or each graph's
// when T and g_s run on different ones.
func worldFabric(w *decoder.World) string {
	if t, gs := w.TransitionFabric(), w.Fabric(); t != gs {
		return fmt.Sprintf("T %s, g_s %s", t, gs)
	}
	return string(w.Fabric())
}
