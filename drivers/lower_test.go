package drivers_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

func codeOf(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// TestLowerByteStable lowers every corpus set twice: the bytes are equal
// (§13.0: one byte sequence per set).
func TestLowerByteStable(t *testing.T) {
	for _, cs := range setcorpus.Sets() {
		c := cs.Capability
		a, errA := drivers.Lower(cs.Lowering, &c, cs.Files)
		b, errB := drivers.Lower(cs.Lowering, &c, cs.Files)
		if a == nil || b == nil || (errA == nil) != (errB == nil) {
			t.Fatalf("%s: %v / %v", cs.Note, errA, errB)
		}
		if !bytes.Equal(a.Certificate, b.Certificate) || len(a.Roles) != len(b.Roles) {
			t.Errorf("%s: certificates differ", cs.Note)
		}
		for i := range a.Roles {
			if !bytes.Equal(a.Roles[i].Bytes, b.Roles[i].Bytes) {
				t.Errorf("%s: role %s differs", cs.Note, a.Roles[i].Name)
			}
		}
	}
}

// synthWith is the small int_synth set with one change made to its JSON.
func synthWith(change func(ls []any)) []drivers.File {
	var m map[string]any
	_ = json.Unmarshal(drivers.EncodeSynth(setcorpus.SynthSmall()), &m)
	change(m["layers"].([]any))
	b, _ := json.Marshal(m)
	return []drivers.File{{"int_synth.json", b}}
}

func layer(ls []any, i int) map[string]any { return ls[i].(map[string]any) }

// whmWith is a whm1/1 g_s set (splat) with one change made to its network.
func whmWith(change func(n *drivers.Network)) []drivers.File {
	_, gs := setcorpus.HyperNets(0x5eed0007)
	change(gs)
	return []drivers.File{{"g_s.whm", drivers.EncodeWHM(gs)}}
}

func jpegaiWith(norm func(n *drivers.Norm), blocks func(b *[3]drivers.ScaleBlock)) []drivers.File {
	n := setcorpus.JPEGAINorm()
	norm(n)
	by := setcorpus.JPEGAIBlocks(0x5eed000a, drivers.ScaleChannelsY)
	blocks(&by)
	return []drivers.File{{"hs_y.json", drivers.EncodeScaleWeights(drivers.ScaleChannelsY, by)},
		{"hs_uv.json", drivers.EncodeScaleWeights(drivers.ScaleChannelsUV, setcorpus.JPEGAIBlocks(0x5eed000b, drivers.ScaleChannelsUV))}, {"norm.json", drivers.EncodeNorm(n)}}
}

func worldWith(change func(t, gs *drivers.Network)) []drivers.File {
	wt, wgs := setcorpus.WorldNets()
	change(wt, wgs)
	return []drivers.File{{"T.whm", drivers.EncodeWHM(wt)}, {"g_s.whm", drivers.EncodeWHM(wgs)}}
}

// wmbWith is the corpus's WMB1 bundle with its networks changed.
func wmbWith(change func(hs, ent, gs *drivers.Network)) []drivers.File {
	hs, ent := setcorpus.HyperNets(0x5eed0008)
	_, gs := setcorpus.HyperNets(0x5eed0009)
	change(hs, ent, gs)
	return []drivers.File{{"model.wmb", drivers.EncodeWMB(&drivers.Bundle{HS: drivers.EncodeWHM(hs), Entropy: drivers.EncodeWHM(ent), GS: drivers.EncodeWHM(gs), Tables: []byte("tables")})}}
}

// TestWMBAfracShared: §15.2, the three networks of a WMB1 bundle share one
// afrac. The corpus bundle (afrac 8 throughout) lowers; entropy or g_s at
// afrac 9, each valid alone under §13.2, is refused model_mismatch with no
// set; and each network's own §13.2 checks come first: g_s's shift 128 is
// the refusal of a bundle whose entropy also differs in afrac.
func TestWMBAfracShared(t *testing.T) {
	if s, err := drivers.Lower(drivers.WMB1, nil, wmbWith(func(_, _, _ *drivers.Network) {})); err != nil || len(s.Roles) != 3 {
		t.Fatalf("the corpus bundle: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(hs, ent, gs *drivers.Network)
		msg    string
	}{
		{"entropy afrac 9", func(_, ent, _ *drivers.Network) { ent.Afrac = 9 }, "wmb1/1: entropy's afrac 9 is not h_s's 8"},
		{"g_s afrac 9", func(_, _, gs *drivers.Network) { gs.Afrac = 9 }, "wmb1/1: g_s's afrac 9 is not h_s's 8"},
		{"h_s afrac 30", func(hs, _, _ *drivers.Network) { hs.Afrac = 30 }, "wmb1/1: entropy's afrac 8 is not h_s's 30"},
		{"g_s shift 128 before the afrac", func(_, ent, gs *drivers.Network) { ent.Afrac, gs.Shift = 9, 128 }, "g_s: shift 128 or gf 10 is not below 128"},
		{"g_s afrac 31 before the afrac", func(_, _, gs *drivers.Network) { gs.Afrac = 31 }, "g_s: afrac 31 is outside 1..=30"},
	} {
		s, err := drivers.Lower(drivers.WMB1, nil, wmbWith(c.change))
		var r *refusal.Error
		if s != nil || !errors.As(err, &r) || r.Code != refusal.ModelMismatch || r.Msg != c.msg {
			t.Errorf("%s: set %v, err %v; want model_mismatch %q", c.name, s != nil, err, c.msg)
		}
	}
}

// TestLoadChecks: every §13 load check refuses with its code.
func TestLoadChecks(t *testing.T) {
	pm, mm := refusal.PayloadMalformed, refusal.ModelMismatch
	nop := func(*drivers.Norm) {}
	nob := func(*[3]drivers.ScaleBlock) {}
	hugeWeights := setcorpus.SynthSmall()
	hugeWeights[0].Shift, hugeWeights[1].Shift = 0, 0
	hugeWeights[0].W = slices.Repeat([]int64{1<<31 - 1}, len(hugeWeights[0].W)) // layer 0 gives ±2^42 or so,
	hugeWeights[1].W = slices.Repeat([]int64{1<<31 - 1}, len(hugeWeights[1].W)) // and 2^42·2^31 passes i64
	cases := []struct {
		name     string
		lowering string
		files    []drivers.File
		want     refusal.Code
	}{
		// §13.1, all payload_malformed.
		{"synth: not JSON", drivers.IntSynth, []drivers.File{{"int_synth.json", []byte("{")}}, pm},
		{"synth: no layers", drivers.IntSynth, synthWith(func(ls []any) { ls = ls[:0] }), ""}, // placeholder replaced below
		{"synth: chain", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 1)["in_ch"] = 2 }), pm},
		{"synth: weight length", drivers.IntSynth, synthWith(func(ls []any) {
			w := layer(ls, 0)["weight"].([]any)
			layer(ls, 0)["weight"] = w[:1]
		}), pm},
		{"synth: bias length", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 0)["bias"] = []int{1, 2} }), pm},
		{"synth: bias not 32-bit", drivers.IntSynth, synthWith(func(ls []any) {
			layer(ls, 1)["bias"] = []int64{1 << 31, 0, 0}
		}), pm},
		{"synth: weight not 32-bit", drivers.IntSynth, synthWith(func(ls []any) {
			layer(ls, 0)["weight"].([]any)[0].([]any)[0].([]any)[1].([]any)[2] = int64(-1<<31 - 1)
		}), pm},
		{"synth: weight not an integer", drivers.IntSynth, synthWith(func(ls []any) {
			layer(ls, 1)["weight"].([]any)[0].([]any)[0].([]any)[0].([]any)[0] = 1.5
		}), pm},
		{"synth: pad not below 2^32", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 0)["pad"] = int64(1) << 32 }), pm},
		{"synth: out_pad not below 2^32", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 1)["out_pad"] = int64(1) << 32 }), pm},
		{"synth: stride 0", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 0)["stride"] = 0 }), pm},
		{"synth: shift 128", drivers.IntSynth, synthWith(func(ls []any) { layer(ls, 1)["shift"] = 128 }), pm},
		{"synth: in_ch 0", drivers.IntSynth, synthWith(func(ls []any) {
			layer(ls, 0)["in_ch"], layer(ls, 0)["weight"] = 0, []any{}
		}), pm},
		{"synth: certificate fails acc64", drivers.IntSynth, []drivers.File{{"int_synth.json", drivers.EncodeSynth(hugeWeights)}}, pm},
		// §13.2 and docs/READINGS.md D-D, model_mismatch.
		{"whm: magic", drivers.WHM1, []drivers.File{{"g_s.whm", []byte("WHM2")}}, mm},
		{"whm: truncated", drivers.WHM1, func() []drivers.File {
			f := whmWith(func(*drivers.Network) {})
			f[0].Data = f[0].Data[:len(f[0].Data)-1]
			return f
		}(), mm},
		{"whm: trailing byte", drivers.WHM1, func() []drivers.File {
			f := whmWith(func(*drivers.Network) {})
			f[0].Data = append(f[0].Data, 0)
			return f
		}(), mm},
		{"whm: unknown tag", drivers.WHM1, func() []drivers.File {
			b := drivers.EncodeWHM(&drivers.Network{Afrac: 8, Layers: []drivers.Layer{{Tag: drivers.TagRelu}}})
			b[len(b)-1] = 5
			return []drivers.File{{"g_s.whm", b}}
		}(), mm},
		{"whm: shift 128", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Shift = 128 }), mm},
		{"whm: gf 128", drivers.WHM1, whmWith(func(n *drivers.Network) { n.GF = 128 }), mm},
		{"whm: afrac 0", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Afrac = 0 }), mm},
		{"whm: afrac 31", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Afrac = 31 }), mm},
		{"whm: slope_frac 64", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Layers[2].SlopeFrac = 64 }), mm},
		{"whm: running channels", drivers.WHM1, whmWith(func(n *drivers.Network) {
			n.Layers[3] = setcorpus.WHMConv(setcorpus.NewRand(1), drivers.TagConv, 2, 3, 1, 1, 0, 0, 1)
		}), mm},
		{"whm: igdn channels", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Layers[1] = setcorpus.WHMIGDN(setcorpus.NewRand(1), 2) }), mm},
		{"whm: input of 0 channels", drivers.WHM1, whmWith(func(n *drivers.Network) {
			n.Layers[0] = drivers.Layer{Tag: drivers.TagConvT, Out: 3, K: 3, Stride: 2, Mult: slices.Repeat([]int64{1}, 3), Bias: slices.Repeat([]int64{0}, 3)}
		}), mm},
		{"whm: out 0", drivers.WHM1, whmWith(func(n *drivers.Network) {
			n.Layers = n.Layers[:1]
			n.Layers[0] = drivers.Layer{Tag: drivers.TagConv, In: 2, K: 1, Stride: 1}
		}), mm},
		{"whm: k 0", drivers.WHM1, whmWith(func(n *drivers.Network) {
			n.Layers = n.Layers[:1]
			n.Layers[0] = drivers.Layer{Tag: drivers.TagConv, In: 2, Out: 1, Stride: 1, Mult: slices.Repeat([]int64{1}, 1), Bias: slices.Repeat([]int64{0}, 1)}
		}), mm},
		{"whm: no tag 0, 1 or 2", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Layers = []drivers.Layer{{Tag: drivers.TagRelu}} }), mm},
		{"whm: P(0) fails", drivers.WHM1, whmWith(func(n *drivers.Network) { n.Layers[3].Bias[0] = 1<<63 - 1 }), mm},
		// §13.3.
		{"wam: WHM1 magic", drivers.WAM1, []drivers.File{{"model.wam", drivers.EncodeWHM(&drivers.Network{Afrac: 8})}}, mm},
		{"wam: afrac 31", drivers.WAM1, func() []drivers.File {
			n := setcorpus.AudioNet()
			n.Afrac = 31
			return []drivers.File{{"model.wam", drivers.EncodeWHM(n)}}
		}(), mm},
		// §13.4.
		{"wmb: magic", drivers.WMB1, []drivers.File{{"model.wmb", []byte("WMB2")}}, mm},
		{"wmb: trailing", drivers.WMB1, []drivers.File{{"model.wmb", append(drivers.EncodeWMB(&drivers.Bundle{}), 0)}}, mm},
		{"wmb: empty member", drivers.WMB1, []drivers.File{{"model.wmb", drivers.EncodeWMB(&drivers.Bundle{})}}, mm},
		// §13.5 world/1.
		{"world: afrac differ", drivers.World, worldWith(func(wt, _ *drivers.Network) { wt.Afrac = 9 }), mm},
		{"world: A < 1", drivers.World, worldWith(func(wt, _ *drivers.Network) {
			wt.Layers[0] = setcorpus.WHMConv(setcorpus.NewRand(1), drivers.TagConv, 2, 4, 3, 1, 1, 0, 9)
		}), mm},
		{"world: T gives other channels", drivers.World, worldWith(func(wt, _ *drivers.Network) {
			wt.Layers[2] = setcorpus.WHMConv(setcorpus.NewRand(1), drivers.TagConv, 4, 3, 1, 1, 0, 0, 1)
		}), mm},
		// §13.6.1, model_mismatch.
		{"jpegai: pmf rows", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.PMF = n.PMF[:31] }, nob), mm},
		{"jpegai: pmf sum", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.PMF[3][0]++ }, nob), mm},
		{"jpegai: pmf width", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.PMF[5] = []int64{128, 128} }, nob), mm},
		{"jpegai: pmf negative", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.PMF[0] = []int64{-1, 1, 0, 256} }, nob), mm},
		{"jpegai: bounds count", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.Bounds = n.Bounds[:31] }, nob), mm},
		{"jpegai: bound 256", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.Bounds[7] = 256 }, nob), mm},
		{"jpegai: cdfs_y rows", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.CdfsY = n.CdfsY[:159] }, nob), mm},
		{"jpegai: cdfs_uv decreasing", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.CdfsUV[2][10] = 0 }, nob), mm},
		{"jpegai: cdfs value 256", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.CdfsY[0][62] = 256 }, nob), mm},
		{"jpegai: gain_y count", drivers.JPEGAI, jpegaiWith(func(n *drivers.Norm) { n.GainY = n.GainY[:159] }, nob), mm},
		{"jpegai: weight dims", drivers.JPEGAI, jpegaiWith(nop, func(b *[3]drivers.ScaleBlock) { b[1].W = b[1].W[:9] }), mm},
		{"jpegai: C3 is not 16·Cz", drivers.JPEGAI, jpegaiWith(nop, func(b *[3]drivers.ScaleBlock) {
			b[2].W, b[2].Bias, b[2].Shift = b[2].W[:2*16], b[2].Bias[:16], b[2].Shift[:16]
		}), mm},
		{"jpegai: shift 128", drivers.JPEGAI, jpegaiWith(nop, func(b *[3]drivers.ScaleBlock) { b[0].Shift[1] = 128 }), mm},
		{"jpegai: shift negative", drivers.JPEGAI, jpegaiWith(nop, func(b *[3]drivers.ScaleBlock) { b[2].Shift[0] = -1 }), mm},
		{"jpegai: certificate fails acc64", drivers.JPEGAI, jpegaiWith(nop, func(b *[3]drivers.ScaleBlock) { *b = setcorpus.JPEGAIAcc64OneUnit() }), mm},
	}
	cases[1].files = []drivers.File{{"int_synth.json", []byte(`{"layers":[]}`)}}
	cases[1].want = pm
	for _, c := range cases {
		_, err := drivers.Lower(c.lowering, nil, c.files)
		if got := codeOf(err); got != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	// A member that is not a number at all, and one past i64.
	m := map[string]any{}
	_ = json.Unmarshal(drivers.EncodeNorm(setcorpus.JPEGAINorm()), &m)
	m["gain_uv"].([]any)[0] = "x"
	nb, _ := json.Marshal(m)
	f := jpegaiWith(nop, nob)
	f[2].Data = nb
	if _, err := drivers.Lower(drivers.JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: a gain that is not an integer: got %v", err)
	}
	f[2].Data = bytes.Replace(drivers.EncodeNorm(setcorpus.JPEGAINorm()), []byte(`"per_channel":16`), []byte(`"per_channel":15`), 1)
	if _, err := drivers.Lower(drivers.JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: per_channel 15: got %v", err)
	}
	f[2].Data = bytes.Replace(drivers.EncodeNorm(setcorpus.JPEGAINorm()), []byte(`"gain_y":[`), []byte(`"gain_y":[9223372036854775808,`), 1)
	f[2].Data = bytes.Replace(f[2].Data, []byte(`"gain_uv"`), []byte(`"gain_uv"`), 1)
	if _, err := drivers.Lower(drivers.JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: a gain past i64: got %v", err)
	}
}

// TestChannelCap: a channel count past 2^26 is too_large (§3), found
// before the ranges are formed (the network is not encoded: its weights
// alone would take 128 MiB).
func TestChannelCap(t *testing.T) {
	for _, n := range []*drivers.Network{
		{Afrac: 8, Layers: []drivers.Layer{{Tag: drivers.TagConv, In: 1<<26 + 1, Out: 1, K: 1, Stride: 1}}},
		{Afrac: 8, Layers: []drivers.Layer{{Tag: drivers.TagConv, In: 1, Out: 1<<26 + 1, K: 1, Stride: 1}}},
	} {
		if _, _, err := drivers.PlanRanges(n, "g_s"); codeOf(err) != refusal.TooLarge {
			t.Errorf("%d → %d channels: %v", n.Layers[0].In, n.Layers[0].Out, err)
		}
	}
}

// TestFlatCdfs: cdfs_y and cdfs_uv may be given flat (160·63 and 96·63
// integers) as well as in rows of 63; both lower to the same graphs.
func TestFlatCdfs(t *testing.T) {
	n := setcorpus.JPEGAINorm()
	var m map[string]any
	_ = json.Unmarshal(drivers.EncodeNorm(n), &m)
	for _, k := range []string{"cdfs_y", "cdfs_uv"} {
		var flat []any
		for _, row := range m[k].([]any) {
			flat = append(flat, row.([]any)...)
		}
		m[k] = flat
	}
	b, _ := json.Marshal(m)
	files := jpegaiWith(func(*drivers.Norm) {}, func(*[3]drivers.ScaleBlock) {})
	rows, err := drivers.Lower(drivers.JPEGAI, nil, files)
	if err != nil {
		t.Fatal(err)
	}
	files[2].Data = b
	flat, err := drivers.Lower(drivers.JPEGAI, nil, files)
	if err != nil || !bytes.Equal(flat.Graph("hs_y"), rows.Graph("hs_y")) {
		t.Errorf("flat cdfs: %v", err)
	}
}

// TestAcc64FailureKeepsSet: a set that fails acc64 comes back with its
// graphs and certificate beside the refusal (§14.3).
func TestAcc64FailureKeepsSet(t *testing.T) {
	s, err := drivers.Lower(drivers.JPEGAI, nil, jpegaiWith(func(*drivers.Norm) {}, func(b *[3]drivers.ScaleBlock) { *b = setcorpus.JPEGAIAcc64OneUnit() }))
	if codeOf(err) != refusal.ModelMismatch || s == nil || len(s.Roles) != 2 || len(s.Certificate) == 0 || s.Acc64 {
		t.Fatalf("got %v, %v", s, err)
	}
	if !strings.Contains(s.Failure64, `"hs_y" node 1`) || !strings.Contains(s.Failure64, "65 bits") {
		t.Errorf("acc64 fails at %s; want hs_y's conv (node 1) at 65 bits, one unit past i64", s.Failure64)
	}
	// One unit less on the bias, and the set meets acc64.
	s, err = drivers.Lower(drivers.JPEGAI, nil, jpegaiWith(func(*drivers.Norm) {}, func(b *[3]drivers.ScaleBlock) {
		*b = setcorpus.JPEGAIAcc64OneUnit()
		b[0].Bias[0]--
	}))
	if err != nil || !s.Acc64 {
		t.Errorf("with the bias one less: %v", err)
	}
}

// TestAcc32OneWeight: 2^24 meets acc32 against latents in [−128, 127];
// 2^24 + 1 fails it (§7.2), and both meet acc64.
func TestAcc32OneWeight(t *testing.T) {
	ls := setcorpus.SynthAcc32OneWeight()
	s, err := drivers.Lower(drivers.IntSynth, nil, []drivers.File{{"int_synth.json", drivers.EncodeSynth(ls)}})
	if err != nil || s.Acc32 || !s.Acc64 || !strings.Contains(s.Failure32, "node 0") {
		t.Fatalf("2^24 + 1: %v acc32 %v acc64 %v (%s)", err, s.Acc32, s.Acc64, s.Failure32)
	}
	ls[0].W[0] = 1 << 24
	s, err = drivers.Lower(drivers.IntSynth, nil, []drivers.File{{"int_synth.json", drivers.EncodeSynth(ls)}})
	if err != nil || !s.Acc32 {
		t.Fatalf("2^24: %v acc32 %v (%s)", err, s.Acc32, s.Failure32)
	}
}

// TestCheckRanges: X_ℓ of §13.2 against closed forms worked from P_ℓ.
func TestCheckRanges(t *testing.T) {
	i64 := new(big.Int).SetUint64(1<<63 - 1)
	div := func(a *big.Int, d int64) int64 { return new(big.Int).Quo(a, big.NewInt(d)).Int64() }
	// Tag 1, c = 3, k = 3, Wm = 32767, Mm = 2^12 = 2^shift, Bm = 5:
	// ⌊27·Wm·X·2^12 / 2^12⌋ + 1 + 5 ≤ I64 is the binding one, so
	// X = ⌊(I64 − 6) / (27·32767)⌋.
	net := &drivers.Network{Afrac: 8, Shift: 12, Layers: []drivers.Layer{{Tag: drivers.TagConv, In: 3, Out: 1, K: 3, Stride: 1,
		W: append([]int64{-32767}, slices.Repeat([]int64{1}, 26)...), Mult: []int64{-1 << 12}, Bias: []int64{-5}}}}
	lo, hi, err := drivers.PlanRanges(net, "g_s")
	want := div(new(big.Int).Sub(i64, big.NewInt(6)), 27*32767)
	if err != nil || lo[0] != -want || hi[0] != want {
		t.Errorf("conv: got [%d, %d] (%v), want ±%d", lo[0], hi[0], err, want)
	}
	// Tag 4 (D-A4): X·|slope_q| ≤ I64 with slope_q = −3.
	net.Layers = append([]drivers.Layer{{Tag: drivers.TagLeaky, SlopeQ: -3, SlopeFrac: 1}}, net.Layers...)
	if lo, hi, err = drivers.PlanRanges(net, "g_s"); err != nil || hi[0] != div(i64, 3) || lo[0] != -div(i64, 3) {
		t.Errorf("leaky: got [%d, %d] (%v), want ±%d", lo[0], hi[0], err, div(i64, 3))
	}
	// Tag 4 with slope 0: X = 2^63, so the range is [−2^63, I64].
	net.Layers[0].SlopeQ = 0
	if lo, hi, err = drivers.PlanRanges(net, "g_s"); err != nil || lo[0] != -1<<63 || hi[0] != 1<<63-1 {
		t.Errorf("leaky 0: got [%d, %d] (%v)", lo[0], hi[0], err)
	}
	// Tag 2, c = 1, G = 1, Bb = 0, gf = 0, afrac = 8: G·X² ≤ I128 binds
	// first? N = X² + 1 and ⌊X·isqrt(X² + 1) / 2^8⌋ + 1 = ⌊X² / 256⌋ + 1 ≤
	// I64, so X = isqrt(256·I64) at most; check P at X and X + 1 directly.
	ig := &drivers.Network{Afrac: 8, Layers: []drivers.Layer{{Tag: drivers.TagIGDN, C: 1, Gamma: []int64{1}, Beta: []int64{0}}}}
	if lo, hi, err = drivers.PlanRanges(ig, "g_s"); err != nil {
		t.Fatal(err)
	}
	x := big.NewInt(hi[0])
	ok := func(x *big.Int) bool { // ⌊x·isqrt(x² + 1) / 2^8⌋ + 1 ≤ I64
		n := new(big.Int).Mul(x, x)
		r := n.Sqrt(n.Add(n, big.NewInt(1)))
		r.Mul(r, x).Rsh(r, 8).Add(r, big.NewInt(1))
		return r.Cmp(i64) <= 0
	}
	if !ok(x) || ok(new(big.Int).Add(x, big.NewInt(1))) {
		t.Errorf("igdn: X = %v is not the largest X with P(X)", x)
	}
}

// TestCanonicalForm reads the lowered bytes back and checks §13.0's rules
// on the world/1 T graph and the wam1/1 PCM step.
func TestCanonicalForm(t *testing.T) {
	s, err := drivers.Lower(drivers.World, nil, worldWith(func(_, _ *drivers.Network) {}))
	if err != nil {
		t.Fatal(err)
	}
	g, err := whg1.Parse(s.Graph("T"))
	if err != nil {
		t.Fatal(err)
	}
	// Scalars 0…2 full range; fills write tensors 1…3; concat writes 4
	// (C + A = 5 channels) under T's layer-0 check; clamp(−256, 256) last.
	if len(g.Scalars) != 3 || g.Scalars[2] != (whg1.Scalar{Lo: -1 << 63, Hi: 1<<63 - 1}) ||
		g.Ops[0].Code != whg1.OpFill || g.Ops[0].Out[0] != 1 || g.Ops[3].Code != whg1.OpConcat ||
		g.Ops[3].Out[0] != 4 || g.Tensors[4].Channels != 5 || g.Tensors[4].Policy != whg1.Check ||
		*g.Ops[len(g.Ops)-1].Params.(*whg1.ClampParams) != (whg1.ClampParams{Lo: -256, Hi: 256}) ||
		g.MaxElems != 1<<26 || g.Tensors[1].Exponent != whg1.NoExponent {
		t.Errorf("T graph is not canonical: %+v", g)
	}
	s, err = drivers.Lower(drivers.WAM1, nil, []drivers.File{{"model.wam", drivers.EncodeWHM(setcorpus.AudioNet())}})
	if err != nil {
		t.Fatal(err)
	}
	g, _ = whg1.Parse(s.Graph("g_s"))
	// afrac 10: check [⌈−2^63/32767⌉, ⌊(I64 − 2^9)/32767⌋].
	lo := new(big.Int).Quo(new(big.Int).Lsh(big.NewInt(-1), 63), big.NewInt(32767)) // Quo truncates: the ceiling here
	hi := new(big.Int).Quo(big.NewInt(1<<63-1-512), big.NewInt(32767))
	crop := g.Ops[len(g.Ops)-3]
	rec := g.Tensors[crop.Out[0]]
	if crop.Code != whg1.OpCrop || rec.Policy != whg1.Check || rec.Lo != lo.Int64() || rec.Hi != hi.Int64() ||
		len(g.Scalars) != 1 || g.Scalars[0] != (whg1.Scalar{Lo: 1, Hi: 1 << 26}) {
		t.Errorf("PCM step: %+v, scalars %v", rec, g.Scalars)
	}
	rq := g.Ops[len(g.Ops)-2].Params.(*whg1.Rescale).RQ
	if rq.Mult[0] != 32767 || rq.MBytes != 4 || rq.Shift[0] != 10 || rq.Round != whg1.HalfUp {
		t.Errorf("PCM rescale: %+v", rq)
	}
}

// TestAssign: files go to their slots by base name, the rest by position.
func TestAssign(t *testing.T) {
	names := []string{"T.whm", "g_s.whm"}
	a, b := []byte("a"), []byte("b")
	for _, c := range []struct {
		files []drivers.File
		want  string
	}{
		{[]drivers.File{{"dir/g_s.whm", b}, {"x", a}}, "ab"},
		{[]drivers.File{{"x", a}, {"g_s.whm", b}}, "ab"},
		{[]drivers.File{{"g_s.whm", b}, {"T.whm", a}}, "ab"},
		{[]drivers.File{{"p", a}, {"q", b}}, "ab"},
		{[]drivers.File{{"q", b}, {"p", a}}, "ba"},
	} {
		got, err := drivers.Assign(names, c.files)
		if err != nil || string(got[0])+string(got[1]) != c.want {
			t.Errorf("%v: got %q, want %s", c.files, got, c.want)
		}
	}
	if _, err := drivers.Assign(names, []drivers.File{{"T.whm", a}}); err == nil || codeOf(err) != "" {
		t.Errorf("one file for two slots: %v, want a usage error", err)
	}
}
