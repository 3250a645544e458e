// Package priorcorpus generates the prior-carriage vectors of
// vectors/prior: native artifacts, their canonical file in each wire form
// package prior reads, negative controls, and every vector's outcome
// (CorpusFiles). Only the corpus tooling (`waiops vectors gen|check`)
// imports it; it lives outside prior so that a decoder does not link it.
package priorcorpus

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/prior"
	"github.com/waiops/waiops/refusal"
)

// The corpus of vectors/prior (§14): native artifacts, their canonical
// files in the three forms, and negative controls, with vectors.jsonl
// naming each vector's outcome. Everything is a function of the code below:
// CorpusFiles gives the same bytes every time.

// rng is splitmix64, a fixed generator for the corpus's values.
type rng uint64

func (s *rng) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// ints returns n values in [lo, hi], the first two lo and hi themselves
// when n allows, so each tensor reaches its range's ends.
func (s *rng) ints(n int, lo, hi int64) []int64 {
	out := make([]int64, n)
	span := uint64(hi) - uint64(lo) + 1 // 0 for the whole i64 range
	for i := range out {
		switch {
		case i == 0:
			out[i] = lo
		case i == 1:
			out[i] = hi
		case span == 0:
			out[i] = int64(s.next())
		default:
			out[i] = lo + int64(s.next()%span)
		}
	}
	return out
}

const i31 = 1<<31 - 1 // ±(2^31 − 1): the widest NNR_PT_INT values

// whmSpec is a layer of a generated WHM1: its tag and kind fields.
type whmSpec struct {
	tag  byte
	kind []int64
}

// genWHM1 lays out a WHM1 (docs/READINGS.md D-D) with values drawn from seed; wide
// draws mult and bias from the whole i64 range.
func genWHM1(seed uint64, header [3]int64, layers []whmSpec, wide bool) []byte {
	s := rng(seed)
	lo, hi := int64(-i31), int64(i31)
	if wide {
		lo, hi = -1<<63, 1<<63-1
	}
	out := appendInts([]byte("WHM1"), 4, header[:]...)
	out = appendInts(out, 4, int64(len(layers)))
	for _, l := range layers {
		out = append(out, l.tag)
		switch l.tag {
		case 0, 1:
			out = appendInts(out, 4, l.kind...)
			in, o, k := l.kind[0], l.kind[1], l.kind[2]
			out = appendInts(out, 2, s.ints(int(in*o*k*k), -1<<15, 1<<15-1)...)
			out = appendInts(out, 8, s.ints(int(o), lo, hi)...)
			out = appendInts(out, 8, s.ints(int(o), lo, hi)...)
		case 2:
			c := l.kind[0]
			out = appendInts(out, 4, c)
			out = appendInts(out, 4, s.ints(int(c*c), -i31, i31)...)
			out = appendInts(out, 8, s.ints(int(c), lo, hi)...)
		case 4:
			out = appendInts(out, 8, l.kind[0])
			out = appendInts(out, 4, l.kind[1])
		}
	}
	return out
}

// wsrSpec is a layer of a generated WSR1: cout, k and shift.
type wsrSpec struct{ cout, k, shift int64 }

// genWSR1 lays out a WSR1 (D-D); biasLo is the least bias drawn.
func genWSR1(seed uint64, actHi int64, layers []wsrSpec, biasLo int64) []byte {
	s := rng(seed)
	out := appendInts([]byte("WSR1"), 2, actHi)
	out = append(out, byte(len(layers)))
	cin := int64(wsrCin0)
	for _, l := range layers {
		out = append(out, byte(l.cout), byte(l.k), byte(l.shift))
		out = appendInts(out, 1, s.ints(int(l.cout*cin*l.k*l.k), -128, 127)...)
		out = appendInts(out, 4, s.ints(int(l.cout), biasLo, i31)...)
		out = appendInts(out, 2, s.ints(int(l.cout), 1, 65535)...)
		cin = l.cout
	}
	return out
}

// corpusNatives are the corpus's native artifacts: name → bytes.
func corpusNatives() []struct {
	name   string
	native []byte
} {
	convRelu := genWHM1(1, [3]int64{16, 8, 24}, []whmSpec{
		{1, []int64{3, 4, 3, 2, 1}}, {3, nil}, {1, []int64{4, 2, 1, 1, 0}},
	}, false)
	allTags := genWHM1(2, [3]int64{0, 12, i31}, []whmSpec{
		{1, []int64{2, 3, 3, 1, 1}}, {2, []int64{3}}, {4, []int64{-5, 4}},
		{0, []int64{3, 2, 3, 2, 1, 1}}, {3, nil},
	}, false)
	relus := make([]whmSpec, maxWHMLayers+1)
	for i := range relus {
		relus[i].tag = 3
	}
	badTag := genWHM1(3, [3]int64{1, 2, 3}, []whmSpec{{3, nil}}, false)
	badTag[len(badTag)-1] = 7
	wsrThree := genWSR1(5, 32767, []wsrSpec{{8, 5, 0}, {16, 1, 31}, {12, 3, 7}}, -i31)
	return []struct {
		name   string
		native []byte
	}{
		// Priors every form carries.
		{"whm1_conv_relu.whm1", convRelu},
		{"whm1_all_tags.whm1", allTags},
		{"whm1_no_layers.whm1", genWHM1(4, [3]int64{7, 0, 31}, nil, false)},
		{"wsr1_one_layer.wsr1", genWSR1(6, 255, []wsrSpec{{12, 3, 12}}, -i31)},
		{"wsr1_three_layers.wsr1", wsrThree},
		// Priors NNC cannot carry: values past ±(2^31 − 1) (§12.3).
		{"whm1_wide.whm1", genWHM1(7, [3]int64{u32Max, 1, 2}, []whmSpec{{1, []int64{1, 2, 1, 0, 0}}}, true)},
		{"wsr1_bias_min.wsr1", genWSR1(8, 1, []wsrSpec{{12, 1, 0}}, -1<<31)},
		// Native artifacts that do not read, or have no tensor form.
		{"whm1_truncated.whm1", convRelu[:len(convRelu)-1]},
		{"whm1_bad_tag.whm1", badTag},
		{"whm1_zero_dim.whm1", genWHM1(9, [3]int64{1, 1, 1}, []whmSpec{{1, []int64{2, 0, 3, 1, 1}}}, false)},
		{"whm1_1001_layers.whm1", genWHM1(10, [3]int64{1, 1, 1}, relus, false)},
		{"wsr1_trailing.wsr1", append(append([]byte{}, wsrThree...), 0)},
		{"wsr1_last_cout.wsr1", genWSR1(11, 100, []wsrSpec{{8, 3, 1}}, -5)},
		{"wsr1_shift_32.wsr1", genWSR1(12, 100, []wsrSpec{{12, 3, 32}}, -5)},
		{"not_native.bin", []byte("WAM1")},
	}
}

// control is one negative control: a file, its form, and the code its
// load refuses with.
type control struct {
	name string
	form prior.Form
	file []byte
	code refusal.Code
}

// stFile writes a safetensors file whose header is hdr as it stands and
// whose data is data.
func stFile(hdr string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	return append(append(out, hdr...), data...)
}

// unitBytes frames a unit of typ around a small body (prior-carriage
// §12.3): the 15-bit size of the whole unit, then the type with
// independently_decodable_flag 1, no partial data counter.
func unitBytes(typ int, body []byte) []byte {
	out := binary.BigEndian.AppendUint16(nil, uint16(3+len(body)))
	return append(append(out, byte(typ<<2|1<<1)), body...)
}

// corpusControls builds one negative control per code of §13 that a load
// reaches (native_malformed is reached by encodes), from the corpus's
// canonical files.
func corpusControls(canon map[string][]byte) ([]control, error) {
	wsrTensors := func(form prior.Form, edit func(f *prior.File)) ([]byte, error) {
		f, err := prior.Read(form, canon["wsr1_one_layer."+string(form)])
		if err != nil {
			return nil, err
		}
		edit(f)
		return prior.Write(form, f)
	}
	st := canon["whm1_conv_relu.safetensors"]
	n := binary.LittleEndian.Uint64(st)
	spaced := binary.LittleEndian.AppendUint64(nil, n+8)
	spaced = append(append(append(spaced, st[8:8+n]...), "        "...), st[8+n:]...)
	gg := canon["whm1_conv_relu.gguf"]
	v2 := append([]byte("GGUF\x02\x00\x00\x00"), gg[8:]...)
	nnc := canon["wsr1_one_layer.nnc"]
	cs := []control{
		{"header_truncated.safetensors", prior.Safetensors, []byte{1, 0, 0, 0, 0}, prior.HeaderTruncated},
		{"header_too_large.safetensors", prior.Safetensors, binary.LittleEndian.AppendUint64(nil, maxHeader+1), prior.HeaderTooLarge},
		{"header_malformed.safetensors", prior.Safetensors, stFile(`{"__metadata__":{"wai.profile":"a","wai.\u0070rofile":"b"}}  `, nil), prior.HeaderMalformed},
		{"bad_magic.gguf", prior.GGUF, append([]byte("GGUX"), gg[4:]...), prior.BadMagic},
		{"version_unsupported.gguf", prior.GGUF, v2, prior.VersionUnsupported},
		{"tensor_malformed.safetensors", prior.Safetensors, stFile(`{"a":{"dtype":"I8","shape":[1.0],"data_offsets":[0,1]}}`, []byte{0}), prior.TensorMalformed},
		{"dtype_unknown.safetensors", prior.Safetensors, stFile(`{"a":{"dtype":"I4","shape":[2],"data_offsets":[0,1]}}`, []byte{0}), prior.DTypeUnknown},
		{"offset_mismatch.safetensors", prior.Safetensors, stFile(`{"a":{"dtype":"I8","shape":[1],"data_offsets":[1,2]}}`, []byte{0, 0}), prior.OffsetMismatch},
		{"header_not_canonical.safetensors", prior.Safetensors, spaced, prior.HeaderNotCanonical},
		{"nnc_truncated.nnc", prior.NNC, nnc[:len(nnc)-1], prior.NNCTruncated},
		{"nnc_malformed.nnc", prior.NNC, append(append([]byte{}, nnc...), unitBytes(unitSTR, []byte{0})...), prior.NNCMalformed},
		{"nnc_not_read.nnc", prior.NNC, append(append([]byte{}, nnc...), unitBytes(2, nil)...), prior.NNCNotRead},
	}
	edits := []struct {
		name string
		form prior.Form
		edit func(f *prior.File)
		code refusal.Code
	}{
		{"profile_absent.safetensors", prior.Safetensors, func(f *prior.File) { f.Meta["wai.profile"] = "wai-int/2" }, prior.ProfileAbsent},
		{"binding_unknown.gguf", prior.GGUF, func(f *prior.File) { f.Meta["wai.binding"] = "wsr2/1" }, prior.BindingUnknown},
		{"dtype_not_integer.nnc", prior.NNC, func(f *prior.File) {
			f.Tensors = append(f.Tensors, prior.Tensor{Name: "scale", DType: "F32", Shape: []uint64{1}, Data: []byte{0, 0, 0x80, 0x3f}})
		}, prior.DTypeNotInteger},
		{"binding_mismatch.safetensors", prior.Safetensors, func(f *prior.File) {
			f.Tensors = slices.DeleteFunc(f.Tensors, func(t prior.Tensor) bool { return t.Name == "layer.0.shift" })
		}, prior.BindingMismatch},
		{"value_out_of_range.gguf", prior.GGUF, func(f *prior.File) {
			for i := range f.Tensors {
				if f.Tensors[i].Name == "layer.0.mult" {
					d := append([]byte{}, f.Tensors[i].Data...)
					binary.LittleEndian.PutUint32(d, 65536) // §10.2: mult is 1 to 65535
					f.Tensors[i].Data = d
				}
			}
		}, prior.ValueOutOfRange},
	}
	for _, e := range edits {
		b, err := wsrTensors(e.form, e.edit)
		if err != nil {
			return nil, err
		}
		cs = append(cs, control{e.name, e.form, b, e.code})
	}
	return cs, nil
}

// CorpusFiles is vectors/prior's corpus by file name: each native
// artifact, its canonical file in each form, the negative controls,
// vectors.jsonl with every vector's outcome (§14), and README.md saying
// what each file is. The bytes are the same on every run; `waiops vectors
// gen` writes them.
func CorpusFiles() (map[string][]byte, error) {
	files := map[string][]byte{"README.md": []byte(corpusReadme)}
	var lines []byte
	vector := func(v map[string]any) error {
		b, err := cjson.Marshal(v)
		if err != nil {
			return err
		}
		lines = append(append(lines, b...), '\n')
		return nil
	}
	canon := map[string][]byte{}
	for _, nv := range corpusNatives() {
		files[nv.name] = nv.native
		stem := nv.name[:len(nv.name)-len(filepath.Ext(nv.name))]
		for _, form := range prior.Forms {
			file, binding, err := prior.Encode(form, nv.native)
			id := stem + "." + string(form)
			expect := map[string]any{}
			var r *refusal.Error
			switch {
			case errors.As(err, &r):
				expect["refuse"] = string(r.Code)
			case err != nil:
				return nil, err
			default:
				canon[id] = file
				expect["file"] = id
				expect["sha256"] = sha(file)
				files[id] = file
			}
			if err := vector(map[string]any{"expect": expect, "form": string(form), "id": "encode." + id, "kind": "encode", "native": nv.name}); err != nil {
				return nil, err
			}
			if file == nil {
				continue
			}
			if err := vector(map[string]any{
				"expect": map[string]any{"binding": binding, "native": nv.name, "sha256": sha(nv.native)},
				"file":   id, "form": string(form), "id": "load." + id, "kind": "load",
			}); err != nil {
				return nil, err
			}
		}
	}
	controls, err := corpusControls(canon)
	if err != nil {
		return nil, err
	}
	for _, c := range controls {
		files[c.name] = c.file
		if err := vector(map[string]any{
			"expect": map[string]any{"refuse": string(c.code)},
			"file":   c.name, "form": string(c.form), "id": "load." + c.name, "kind": "load",
		}); err != nil {
			return nil, err
		}
	}
	files["vectors.jsonl"] = lines
	return files, nil
}

// corpusReadme is vectors/prior/README.md.
const corpusReadme = "Generated by priorcorpus.CorpusFiles (`waiops vectors gen --out vectors`); do not edit.\n" +
	"prior-carriage §14.\n" +
	"\n" +
	"- `*.whm1`, `*.wsr1`, `not_native.bin`: native artifacts (D-D).\n" +
	"- `<stem>.safetensors|.gguf|.nnc`: a native artifact's canonical file in each\n" +
	"  form (§11), where it has one.\n" +
	"- Every other file is a negative control, named after the code its load\n" +
	"  refuses with (§13).\n" +
	"- `vectors.jsonl`: one canonical JSON line per vector. `kind` \"encode\" (a\n" +
	"  native artifact to a file of `form`) or \"load\" (§10.3 over `file` read as\n" +
	"  `form`); `expect` is `{\"file\", \"sha256\"}` (encode), `{\"binding\", \"native\",\n" +
	"  \"sha256\"}` (load) or `{\"refuse\": code}`.\n"

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// The corpus writes its native files and controls from the specification's
// own values, not the reader's constants, so that a reader constant gone
// wrong fails the committed corpus instead of moving with it.
const (
	u32Max       = 1<<32 - 1   // the widest u32 field
	maxHeader    = 100_000_000 // a safetensors header's cap (prior-carriage §9.1)
	maxWHMLayers = 1000        // WHM1's layer cap (prior-carriage §10.2)
	wsrCin0      = 3           // WSR1's layer 0 reads 3 channels (prior-carriage §10.2)
	unitSTR      = 0           // NNR_STR, the NNC start unit's type (prior-carriage §12.2)
)

// appendInts appends vals little-endian, size bytes each (the native forms'
// integer fields, prior-carriage §10.2).
func appendInts(out []byte, size int, vals ...int64) []byte {
	var b [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		out = append(out, b[:size]...)
	}
	return out
}
