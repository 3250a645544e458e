package drivers_test

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Fuzz targets for the native readers (WHM1, WAM1, WMB1), the JSON source
// forms (int_synth.json, the jpegai-int/1 members, the world/1 inputs) and
// each §13 lowering end to end: lower, certify, load at acc64 and decode on
// the CPU reference. Seeds are the §14.3 corpus's sets (setcorpus.Sets,
// the sets CorpusFiles writes to vectors/certificates).

// corpusFiles returns the files of every corpus set of lowering.
func corpusFiles(lowering string) [][]drivers.File {
	var out [][]drivers.File
	for _, cs := range setcorpus.Sets() {
		if cs.Lowering == lowering {
			out = append(out, cs.Files)
		}
	}
	return out
}

// FuzzWHM reads WHM1 and WAM1 networks (docs/READINGS.md D-D). A refusal is
// model_mismatch; a network that reads writes back to the same bytes.
func FuzzWHM(f *testing.F) {
	for _, l := range []string{drivers.WHM1, drivers.WAM1, drivers.World} {
		for _, fs := range corpusFiles(l) {
			for _, file := range fs {
				f.Add(file.Data, l == drivers.WAM1)
			}
		}
	}
	f.Add([]byte("WHM1\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x03"), false)
	f.Fuzz(func(t *testing.T, b []byte, oneD bool) {
		var n *drivers.Network
		var err error
		// A layer costs its Layer (under 256 bytes) for at least its tag
		// byte, and an element 8 bytes for at least 2 of the file's.
		if a := spectest.Allocated(func() { n, err = drivers.ParseWHM(b, oneD) }); a > 256*uint64(len(b))+1<<16 {
			t.Fatalf("%d bytes allocated reading %d", a, len(b))
		}
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch)
			return
		}
		if c := drivers.EncodeWHM(n); !bytes.Equal(c, b) {
			t.Fatalf("written back as\n%x\nfrom\n%x", c, b)
		}
	})
}

// FuzzWMB reads WMB1 bundles: model_mismatch, or the same bytes written
// back.
func FuzzWMB(f *testing.F) {
	for _, fs := range corpusFiles(drivers.WMB1) {
		f.Add(fs[0].Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		bd, err := drivers.ParseWMB(b)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch)
			return
		}
		if c := drivers.EncodeWMB(bd); !bytes.Equal(c, b) {
			t.Fatalf("written back as\n%x\nfrom\n%x", c, b)
		}
	})
}

// lowerEndToEnd lowers files, and checks what comes back: a refusal with
// one of codes; or a set that lowers to the same bytes again, whose graphs
// re-encode to their own bytes and, when the certificate meets acc64, load
// through the certifier and decode on the CPU at a small size. It returns
// the set when it lowered and met acc64.
func lowerEndToEnd(t *testing.T, lowering string, files []drivers.File, codes ...refusal.Code) *drivers.Set {
	t.Helper()
	s, err := drivers.Lower(lowering, nil, files)
	if err != nil {
		spectest.Refusal(t, err, codes...)
		if s != nil && s.Acc64 {
			t.Fatalf("a set meeting acc64 came back refused: %v", err)
		}
		return nil
	}
	again, err := drivers.Lower(lowering, nil, files)
	if err != nil || !bytes.Equal(again.Certificate, s.Certificate) || len(again.Roles) != len(s.Roles) {
		t.Fatalf("a second lowering differs: %v", err)
	}
	for i, r := range s.Roles {
		if !bytes.Equal(again.Roles[i].Bytes, r.Bytes) {
			t.Fatalf("role %s lowers to other bytes the second time", r.Name)
		}
		g, err := whg1.Parse(r.Bytes)
		if err != nil {
			t.Fatalf("role %s does not parse: %v", r.Name, err)
		}
		if !bytes.Equal(whg1.Encode(g), r.Bytes) {
			t.Fatalf("role %s re-encodes to other bytes", r.Name)
		}
		dec, g, err := cpu.Load(r.Bytes)
		if err != nil {
			t.Fatalf("role %s of a set meeting acc64 does not load: %v", r.Name, err)
		}
		in, scalars := smallDecode(g)
		shapes := make([]tensor.Shape, len(in))
		for i, x := range in {
			shapes[i] = x.Shape
		}
		if !cheap(g, shapes, scalars) {
			continue
		}
		if _, err := whg1.NewSequence(g, dec).Decode(in, scalars); err != nil {
			spectest.Refusal(t, err)
		}
	}
	return s
}

// cheap says whether a decode of g on shapes is worth making in a fuzz
// run: it plans, and forms at most 2^16 elements in all. A decode that does
// not plan is cheap (it is refused before any operator runs).
func cheap(g *whg1.Graph, shapes []tensor.Shape, scalars []int64) bool {
	p, err := g.PlanRun(shapes, scalars)
	if err != nil {
		return true
	}
	n := 0
	for _, s := range p.Shapes {
		if n += s.Elems(); n > 1<<16 {
			return false
		}
	}
	return true
}

// smallDecode gives each data input a small shape (its declared one when
// it declares one, 2 × 2 otherwise, capped at 4096 elements) filled with its
// range's low end, and each scalar its range's low end.
func smallDecode(g *whg1.Graph) ([]*tensor.T, []int64) {
	var in []*tensor.T
	for _, r := range g.Inputs {
		if r.Kind != whg1.DataInput {
			continue
		}
		rec := g.Tensors[r.Tensor]
		h, w := uint64(max(r.MaxH, 1)), uint64(max(r.MaxW, 1))
		if r.MaxH == 0 {
			h, w = 2, 2
		}
		for uint64(rec.Channels)*h*w > 4096 && (h > 1 || w > 1) {
			h, w = max(h/2, 1), max(w/2, 1)
		}
		s := tensor.Shape{C: int(rec.Channels), H: int(h), W: int(w)}
		if s.Elems() > 4096 {
			s = tensor.Shape{C: 1, H: 1, W: 1} // refused at run step 1
		}
		x := tensor.New(s)
		for i := range x.Data {
			x.Data[i] = rec.Lo
		}
		in = append(in, x)
	}
	scalars := make([]int64, len(g.Scalars))
	for i, s := range g.Scalars {
		scalars[i] = s.Lo
	}
	return in, scalars
}

// loadCodes are a load's codes (§4 refusal point 1): model_mismatch, or
// too_large for a size.
var loadCodes = []refusal.Code{refusal.ModelMismatch, refusal.TooLarge}

// FuzzLowerIntSynth: int_synth/1 (§13.1) end to end, then a decode of a
// fuzzed payload through DecodeSynth. Every refusal is payload_malformed
// (§4).
func FuzzLowerIntSynth(f *testing.F) {
	for _, fs := range corpusFiles(drivers.IntSynth) {
		f.Add(fs[0].Data, drivers.SynthPayloadBytes(2, 2, 2, 1, []int8{-128, 127}))
	}
	f.Fuzz(func(t *testing.T, set, payload []byte) {
		if lowerEndToEnd(t, drivers.IntSynth, []drivers.File{{"int_synth.json", set}}, refusal.PayloadMalformed) == nil {
			return
		}
		p, err := drivers.ParseSynthPayload(payload)
		if err != nil {
			spectest.Refusal(t, err, refusal.PayloadMalformed)
			return
		}
		s, _ := drivers.Lower(drivers.IntSynth, nil, []drivers.File{{"int_synth.json", set}})
		if g, err := whg1.Parse(s.Graph("synth")); err != nil || !cheap(g, []tensor.Shape{p.Latents.Shape}, nil) {
			return
		}
		if _, err := drivers.DecodeSynth(cpu, set, payload); err != nil {
			spectest.Refusal(t, err, refusal.PayloadMalformed)
		}
	})
}

// FuzzLowerWHM1: whm1/1 (§13.2), g_s alone or h_s and g_s.
func FuzzLowerWHM1(f *testing.F) {
	for _, fs := range corpusFiles(drivers.WHM1) {
		if len(fs) == 1 {
			f.Add([]byte(nil), fs[0].Data, false)
		} else {
			f.Add(fs[0].Data, fs[1].Data, true)
		}
	}
	f.Fuzz(func(t *testing.T, hs, gs []byte, two bool) {
		files := []drivers.File{{"g_s.whm", gs}}
		if two {
			files = []drivers.File{{"h_s.whm", hs}, {"g_s.whm", gs}}
		}
		lowerEndToEnd(t, drivers.WHM1, files, loadCodes...)
	})
}

// FuzzLowerWAM1: wam1/1 (§13.3).
func FuzzLowerWAM1(f *testing.F) {
	for _, fs := range corpusFiles(drivers.WAM1) {
		f.Add(fs[0].Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lowerEndToEnd(t, drivers.WAM1, []drivers.File{{"model.wam", b}}, loadCodes...)
	})
}

// FuzzLowerWMB1: wmb1/1 (§13.4).
func FuzzLowerWMB1(f *testing.F) {
	for _, fs := range corpusFiles(drivers.WMB1) {
		f.Add(fs[0].Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lowerEndToEnd(t, drivers.WMB1, []drivers.File{{"model.wmb", b}}, loadCodes...)
	})
}

// FuzzLowerWorld: world/1 (§13.5) end to end, then a render of fuzzed z_0
// and rows through the reference renderer, whose refusals carry codes.
func FuzzLowerWorld(f *testing.F) {
	for _, fs := range corpusFiles(drivers.World) {
		f.Add(fs[0].Data, fs[1].Data, []byte(`{"data":["0","1","2","3","4","5","6","7"],"shape":["2","2","2"]}`), []byte(`[["1","-1","0"]]`))
		// A shape of 2^26 values over no data (ParseLatent once made the
		// tensor first).
		f.Add(fs[0].Data, fs[1].Data, []byte(`{"data":[],"shape":["1","8192","8192"]}`), []byte(`[]`))
	}
	f.Fuzz(func(t *testing.T, tb, gs, z0, rows []byte) {
		if lowerEndToEnd(t, drivers.World, []drivers.File{{"T.whm", tb}, {"g_s.whm", gs}}, loadCodes...) == nil {
			return
		}
		var z *tensor.T
		var err error
		n := spectest.Allocated(func() { z, err = drivers.ParseLatent(z0) })
		// The JSON tree costs at most a few hundred bytes a byte of text;
		// a shape alone allocates nothing of its size.
		if limit := 512*uint64(len(z0)) + 1<<16; n > limit {
			t.Fatalf("ParseLatent: %d bytes allocated reading %d (limit %d)", n, len(z0), limit)
		}
		if err != nil {
			spectest.Refusal(t, err, refusal.GeometryMismatch, refusal.FieldRange, refusal.TooLarge)
			return
		}
		rs, err := drivers.ParseRows(rows)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch, refusal.FieldRange)
			return
		}
		s, _ := drivers.Lower(drivers.World, nil, []drivers.File{{"T.whm", tb}, {"g_s.whm", gs}})
		g, err := whg1.Parse(s.Graph("g_s"))
		if err != nil || len(rs) > 4 || !cheap(g, []tensor.Shape{z.Shape}, nil) {
			return
		}
		if _, err := drivers.RenderWorld(cpu, tb, gs, z, rs); err != nil {
			spectest.Refusal(t, err)
		}
	})
}

// FuzzLowerJPEGAI: jpegai-int/1 (§13.6.1) end to end: the two weight files
// and norm.json.
func FuzzLowerJPEGAI(f *testing.F) {
	for _, fs := range corpusFiles(drivers.JPEGAI) {
		f.Add(fs[0].Data, fs[1].Data, fs[2].Data)
	}
	f.Fuzz(func(t *testing.T, hsY, hsUV, norm []byte) {
		lowerEndToEnd(t, drivers.JPEGAI, []drivers.File{{"hs_y.json", hsY}, {"hs_uv.json", hsUV}, {"norm.json", norm}}, refusal.ModelMismatch)
	})
}

// FuzzJPEGAIInputs runs the scale path and both entropy decodes (§13.6.1)
// of the corpus bundle on fuzzed segments and GRFS flags: a refusal is
// model_mismatch (a flag list) or stream_exhausted (E8); a decode gives
// every plane's tensors.
func FuzzJPEGAIInputs(f *testing.F) {
	fs := corpusFiles(drivers.JPEGAI)[0]
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 1}, []byte(`{"uv":[],"y":[]}`))
	f.Fuzz(func(t *testing.T, soz, sorp, sors, grfs []byte) {
		y, uv, err := drivers.ParseGRFS(grfs)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch)
			y, uv = make([]bool, drivers.ScaleChannelsY), make([]bool, drivers.ScaleChannelsUV)
		}
		seg := drivers.ScaleSegments{SOZ: soz, SORP: sorp, SORS: sors, GRFSY: y, GRFSUV: uv}
		py, puv, err := drivers.DecodeScale(cpu, fs[0].Data, fs[1].Data, fs[2].Data, seg)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch, "stream_exhausted")
			return
		}
		if py == nil || puv == nil || py.YQ == nil || puv.YQ == nil {
			t.Fatal("a decode without its planes")
		}
	})
}

// FuzzNorm reads norm.json alone (§13.6.1's load checks): model_mismatch.
func FuzzNorm(f *testing.F) {
	for _, fs := range corpusFiles(drivers.JPEGAI) {
		f.Add(fs[2].Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := drivers.ParseNorm(b)
		if err != nil {
			spectest.Refusal(t, err, refusal.ModelMismatch)
			return
		}
		// What reads writes a file that reads to the same tables.
		m, err := drivers.ParseNorm(drivers.EncodeNorm(n))
		if err != nil || len(m.PMF) != len(n.PMF) || len(m.Bounds) != len(n.Bounds) {
			t.Fatalf("the written norm.json does not read back: %v", err)
		}
	})
}
