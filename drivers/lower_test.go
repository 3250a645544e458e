package drivers

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

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
	for _, cs := range corpusSets() {
		c := cs.capability
		a, errA := Lower(cs.lowering, &c, cs.files)
		b, errB := Lower(cs.lowering, &c, cs.files)
		if a == nil || b == nil || (errA == nil) != (errB == nil) {
			t.Fatalf("%s: %v / %v", cs.note, errA, errB)
		}
		if !bytes.Equal(a.Certificate, b.Certificate) || len(a.Roles) != len(b.Roles) {
			t.Errorf("%s: certificates differ", cs.note)
		}
		for i := range a.Roles {
			if !bytes.Equal(a.Roles[i].Bytes, b.Roles[i].Bytes) {
				t.Errorf("%s: role %s differs", cs.note, a.Roles[i].Name)
			}
		}
	}
}

// synthWith is the small int_synth set with one change made to its JSON.
func synthWith(change func(ls []any)) []File {
	var m map[string]any
	_ = json.Unmarshal(EncodeSynth(synthSmall()), &m)
	change(m["layers"].([]any))
	b, _ := json.Marshal(m)
	return []File{{"int_synth.json", b}}
}

func layer(ls []any, i int) map[string]any { return ls[i].(map[string]any) }

// whmWith is a whm1/1 g_s set (splat) with one change made to its network.
func whmWith(change func(n *Network)) []File {
	_, gs := hyperNets(0x5eed0007)
	change(gs)
	return []File{{"g_s.whm", EncodeWHM(gs)}}
}

func jpegaiWith(norm func(n *Norm), blocks func(b *[3]ScaleBlock)) []File {
	n := jpegaiNorm()
	norm(n)
	by := jpegaiBlocks(0x5eed000a, czY)
	blocks(&by)
	return []File{{"hs_y.json", EncodeScaleWeights(czY, by)},
		{"hs_uv.json", EncodeScaleWeights(czUV, jpegaiBlocks(0x5eed000b, czUV))}, {"norm.json", EncodeNorm(n)}}
}

func worldWith(change func(t, gs *Network)) []File {
	wt, wgs := worldNets()
	change(wt, wgs)
	return []File{{"T.whm", EncodeWHM(wt)}, {"g_s.whm", EncodeWHM(wgs)}}
}

// wmbWith is the corpus's WMB1 bundle with its networks changed.
func wmbWith(change func(hs, ent, gs *Network)) []File {
	hs, ent := hyperNets(0x5eed0008)
	_, gs := hyperNets(0x5eed0009)
	change(hs, ent, gs)
	return []File{{"model.wmb", EncodeWMB(&Bundle{HS: EncodeWHM(hs), Entropy: EncodeWHM(ent), GS: EncodeWHM(gs), Tables: []byte("tables")})}}
}

// TestWMBAfracShared: §15.2, the three networks of a WMB1 bundle share one
// afrac. The corpus bundle (afrac 8 throughout) lowers; entropy or g_s at
// afrac 9, each valid alone under §13.2, is refused model_mismatch with no
// set; and each network's own §13.2 checks come first: g_s's shift 128 is
// the refusal of a bundle whose entropy also differs in afrac.
func TestWMBAfracShared(t *testing.T) {
	if s, err := Lower(WMB1, nil, wmbWith(func(_, _, _ *Network) {})); err != nil || len(s.Roles) != 3 {
		t.Fatalf("the corpus bundle: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(hs, ent, gs *Network)
		msg    string
	}{
		{"entropy afrac 9", func(_, ent, _ *Network) { ent.Afrac = 9 }, "wmb1/1: entropy's afrac 9 is not h_s's 8"},
		{"g_s afrac 9", func(_, _, gs *Network) { gs.Afrac = 9 }, "wmb1/1: g_s's afrac 9 is not h_s's 8"},
		{"h_s afrac 30", func(hs, _, _ *Network) { hs.Afrac = 30 }, "wmb1/1: entropy's afrac 8 is not h_s's 30"},
		{"g_s shift 128 before the afrac", func(_, ent, gs *Network) { ent.Afrac, gs.Shift = 9, 128 }, "g_s: shift 128 or gf 10 is not below 128"},
		{"g_s afrac 31 before the afrac", func(_, _, gs *Network) { gs.Afrac = 31 }, "g_s: afrac 31 is outside 1..=30"},
	} {
		s, err := Lower(WMB1, nil, wmbWith(c.change))
		var r *refusal.Error
		if s != nil || !errors.As(err, &r) || r.Code != refusal.ModelMismatch || r.Msg != c.msg {
			t.Errorf("%s: set %v, err %v; want model_mismatch %q", c.name, s != nil, err, c.msg)
		}
	}
}

// TestLoadChecks: every §13 load check refuses with its code.
func TestLoadChecks(t *testing.T) {
	pm, mm := refusal.PayloadMalformed, refusal.ModelMismatch
	nop := func(*Norm) {}
	nob := func(*[3]ScaleBlock) {}
	hugeWeights := synthSmall()
	hugeWeights[0].Shift, hugeWeights[1].Shift = 0, 0
	hugeWeights[0].W = fill(len(hugeWeights[0].W), 1<<31-1) // layer 0 gives ±2^42 or so,
	hugeWeights[1].W = fill(len(hugeWeights[1].W), 1<<31-1) // and 2^42·2^31 passes i64
	cases := []struct {
		name     string
		lowering string
		files    []File
		want     refusal.Code
	}{
		// §13.1, all payload_malformed.
		{"synth: not JSON", IntSynth, []File{{"int_synth.json", []byte("{")}}, pm},
		{"synth: no layers", IntSynth, synthWith(func(ls []any) { ls = ls[:0] }), ""}, // placeholder replaced below
		{"synth: chain", IntSynth, synthWith(func(ls []any) { layer(ls, 1)["in_ch"] = 2 }), pm},
		{"synth: weight length", IntSynth, synthWith(func(ls []any) {
			w := layer(ls, 0)["weight"].([]any)
			layer(ls, 0)["weight"] = w[:1]
		}), pm},
		{"synth: bias length", IntSynth, synthWith(func(ls []any) { layer(ls, 0)["bias"] = []int{1, 2} }), pm},
		{"synth: bias not 32-bit", IntSynth, synthWith(func(ls []any) {
			layer(ls, 1)["bias"] = []int64{1 << 31, 0, 0}
		}), pm},
		{"synth: weight not 32-bit", IntSynth, synthWith(func(ls []any) {
			w := synthSmall()[0].W
			w[5] = -1<<31 - 1
			layer(ls, 0)["weight"] = nest(w, 2, 3, 3, 3)
		}), pm},
		{"synth: weight not an integer", IntSynth, synthWith(func(ls []any) {
			layer(ls, 1)["weight"].([]any)[0].([]any)[0].([]any)[0].([]any)[0] = 1.5
		}), pm},
		{"synth: pad not below 2^32", IntSynth, synthWith(func(ls []any) { layer(ls, 0)["pad"] = int64(1) << 32 }), pm},
		{"synth: out_pad not below 2^32", IntSynth, synthWith(func(ls []any) { layer(ls, 1)["out_pad"] = int64(1) << 32 }), pm},
		{"synth: stride 0", IntSynth, synthWith(func(ls []any) { layer(ls, 0)["stride"] = 0 }), pm},
		{"synth: shift 128", IntSynth, synthWith(func(ls []any) { layer(ls, 1)["shift"] = 128 }), pm},
		{"synth: in_ch 0", IntSynth, synthWith(func(ls []any) {
			layer(ls, 0)["in_ch"], layer(ls, 0)["weight"] = 0, []any{}
		}), pm},
		{"synth: certificate fails acc64", IntSynth, []File{{"int_synth.json", EncodeSynth(hugeWeights)}}, pm},
		// §13.2 and docs/READINGS.md D-D, model_mismatch.
		{"whm: magic", WHM1, []File{{"g_s.whm", []byte("WHM2")}}, mm},
		{"whm: truncated", WHM1, func() []File {
			f := whmWith(func(*Network) {})
			f[0].Data = f[0].Data[:len(f[0].Data)-1]
			return f
		}(), mm},
		{"whm: trailing byte", WHM1, func() []File {
			f := whmWith(func(*Network) {})
			f[0].Data = append(f[0].Data, 0)
			return f
		}(), mm},
		{"whm: unknown tag", WHM1, func() []File {
			b := EncodeWHM(&Network{Afrac: 8, Layers: []Layer{{Tag: TagRelu}}})
			b[len(b)-1] = 5
			return []File{{"g_s.whm", b}}
		}(), mm},
		{"whm: shift 128", WHM1, whmWith(func(n *Network) { n.Shift = 128 }), mm},
		{"whm: gf 128", WHM1, whmWith(func(n *Network) { n.GF = 128 }), mm},
		{"whm: afrac 0", WHM1, whmWith(func(n *Network) { n.Afrac = 0 }), mm},
		{"whm: afrac 31", WHM1, whmWith(func(n *Network) { n.Afrac = 31 }), mm},
		{"whm: slope_frac 64", WHM1, whmWith(func(n *Network) { n.Layers[2].SlopeFrac = 64 }), mm},
		{"whm: running channels", WHM1, whmWith(func(n *Network) {
			n.Layers[3] = whmConv(&prng{s: 1}, TagConv, 2, 3, 1, 1, 0, 0, 1)
		}), mm},
		{"whm: igdn channels", WHM1, whmWith(func(n *Network) { n.Layers[1] = whmIGDN(&prng{s: 1}, 2) }), mm},
		{"whm: input of 0 channels", WHM1, whmWith(func(n *Network) {
			n.Layers[0] = Layer{Tag: TagConvT, Out: 3, K: 3, Stride: 2, Mult: fill(3, 1), Bias: fill(3, 0)}
		}), mm},
		{"whm: out 0", WHM1, whmWith(func(n *Network) {
			n.Layers = n.Layers[:1]
			n.Layers[0] = Layer{Tag: TagConv, In: 2, K: 1, Stride: 1}
		}), mm},
		{"whm: k 0", WHM1, whmWith(func(n *Network) {
			n.Layers = n.Layers[:1]
			n.Layers[0] = Layer{Tag: TagConv, In: 2, Out: 1, Stride: 1, Mult: fill(1, 1), Bias: fill(1, 0)}
		}), mm},
		{"whm: no tag 0, 1 or 2", WHM1, whmWith(func(n *Network) { n.Layers = []Layer{{Tag: TagRelu}} }), mm},
		{"whm: P(0) fails", WHM1, whmWith(func(n *Network) { n.Layers[3].Bias[0] = 1<<63 - 1 }), mm},
		// §13.3.
		{"wam: WHM1 magic", WAM1, []File{{"model.wam", EncodeWHM(&Network{Afrac: 8})}}, mm},
		{"wam: afrac 31", WAM1, func() []File {
			n := audioNet()
			n.Afrac = 31
			return []File{{"model.wam", EncodeWHM(n)}}
		}(), mm},
		// §13.4.
		{"wmb: magic", WMB1, []File{{"model.wmb", []byte("WMB2")}}, mm},
		{"wmb: trailing", WMB1, []File{{"model.wmb", append(EncodeWMB(&Bundle{}), 0)}}, mm},
		{"wmb: empty member", WMB1, []File{{"model.wmb", EncodeWMB(&Bundle{})}}, mm},
		// §13.5 world/1.
		{"world: afrac differ", World, worldWith(func(wt, _ *Network) { wt.Afrac = 9 }), mm},
		{"world: A < 1", World, worldWith(func(wt, _ *Network) {
			wt.Layers[0] = whmConv(&prng{s: 1}, TagConv, 2, 4, 3, 1, 1, 0, 9)
		}), mm},
		{"world: T gives other channels", World, worldWith(func(wt, _ *Network) {
			wt.Layers[2] = whmConv(&prng{s: 1}, TagConv, 4, 3, 1, 1, 0, 0, 1)
		}), mm},
		// §13.6.1, model_mismatch.
		{"jpegai: pmf rows", JPEGAI, jpegaiWith(func(n *Norm) { n.PMF = n.PMF[:31] }, nob), mm},
		{"jpegai: pmf sum", JPEGAI, jpegaiWith(func(n *Norm) { n.PMF[3][0]++ }, nob), mm},
		{"jpegai: pmf width", JPEGAI, jpegaiWith(func(n *Norm) { n.PMF[5] = []int64{128, 128} }, nob), mm},
		{"jpegai: pmf negative", JPEGAI, jpegaiWith(func(n *Norm) { n.PMF[0] = []int64{-1, 1, 0, 256} }, nob), mm},
		{"jpegai: bounds count", JPEGAI, jpegaiWith(func(n *Norm) { n.Bounds = n.Bounds[:31] }, nob), mm},
		{"jpegai: bound 256", JPEGAI, jpegaiWith(func(n *Norm) { n.Bounds[7] = 256 }, nob), mm},
		{"jpegai: cdfs_y rows", JPEGAI, jpegaiWith(func(n *Norm) { n.CdfsY = n.CdfsY[:159] }, nob), mm},
		{"jpegai: cdfs_uv decreasing", JPEGAI, jpegaiWith(func(n *Norm) { n.CdfsUV[2][10] = 0 }, nob), mm},
		{"jpegai: cdfs value 256", JPEGAI, jpegaiWith(func(n *Norm) { n.CdfsY[0][62] = 256 }, nob), mm},
		{"jpegai: gain_y count", JPEGAI, jpegaiWith(func(n *Norm) { n.GainY = n.GainY[:159] }, nob), mm},
		{"jpegai: weight dims", JPEGAI, jpegaiWith(nop, func(b *[3]ScaleBlock) { b[1].W = b[1].W[:9] }), mm},
		{"jpegai: C3 is not 16·Cz", JPEGAI, jpegaiWith(nop, func(b *[3]ScaleBlock) {
			b[2].W, b[2].Bias, b[2].Shift = b[2].W[:2*16], b[2].Bias[:16], b[2].Shift[:16]
		}), mm},
		{"jpegai: shift 128", JPEGAI, jpegaiWith(nop, func(b *[3]ScaleBlock) { b[0].Shift[1] = 128 }), mm},
		{"jpegai: shift negative", JPEGAI, jpegaiWith(nop, func(b *[3]ScaleBlock) { b[2].Shift[0] = -1 }), mm},
		{"jpegai: certificate fails acc64", JPEGAI, jpegaiWith(nop, func(b *[3]ScaleBlock) { *b = jpegaiAcc64OneUnit() }), mm},
	}
	cases[1].files = []File{{"int_synth.json", []byte(`{"layers":[]}`)}}
	cases[1].want = pm
	for _, c := range cases {
		_, err := Lower(c.lowering, nil, c.files)
		if got := codeOf(err); got != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	// A member that is not a number at all, and one past i64.
	m := map[string]any{}
	_ = json.Unmarshal(EncodeNorm(jpegaiNorm()), &m)
	m["gain_uv"].([]any)[0] = "x"
	nb, _ := json.Marshal(m)
	f := jpegaiWith(nop, nob)
	f[2].Data = nb
	if _, err := Lower(JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: a gain that is not an integer: got %v", err)
	}
	f[2].Data = bytes.Replace(EncodeNorm(jpegaiNorm()), []byte(`"per_channel":16`), []byte(`"per_channel":15`), 1)
	if _, err := Lower(JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: per_channel 15: got %v", err)
	}
	f[2].Data = bytes.Replace(EncodeNorm(jpegaiNorm()), []byte(`"gain_y":[`), []byte(`"gain_y":[9223372036854775808,`), 1)
	f[2].Data = bytes.Replace(f[2].Data, []byte(`"gain_uv"`), []byte(`"gain_uv"`), 1)
	if _, err := Lower(JPEGAI, nil, f); codeOf(err) != mm {
		t.Errorf("jpegai: a gain past i64: got %v", err)
	}
}

// TestChannelCap: a channel count past 2^26 is too_large (§3), found
// before the ranges are formed (the network is not encoded: its weights
// alone would take 128 MiB).
func TestChannelCap(t *testing.T) {
	for _, n := range []*Network{
		{Afrac: 8, Layers: []Layer{{Tag: TagConv, In: 1<<26 + 1, Out: 1, K: 1, Stride: 1}}},
		{Afrac: 8, Layers: []Layer{{Tag: TagConv, In: 1, Out: 1<<26 + 1, K: 1, Stride: 1}}},
	} {
		if _, err := planNetwork(n, "g_s"); codeOf(err) != refusal.TooLarge {
			t.Errorf("%d → %d channels: %v", n.Layers[0].In, n.Layers[0].Out, err)
		}
	}
}

// TestFlatCdfs: cdfs_y and cdfs_uv may be given flat (160·63 and 96·63
// integers) as well as in rows of 63; both lower to the same graphs.
func TestFlatCdfs(t *testing.T) {
	n := jpegaiNorm()
	var m map[string]any
	_ = json.Unmarshal(EncodeNorm(n), &m)
	for _, k := range []string{"cdfs_y", "cdfs_uv"} {
		var flat []any
		for _, row := range m[k].([]any) {
			flat = append(flat, row.([]any)...)
		}
		m[k] = flat
	}
	b, _ := json.Marshal(m)
	files := jpegaiWith(func(*Norm) {}, func(*[3]ScaleBlock) {})
	rows, err := Lower(JPEGAI, nil, files)
	if err != nil {
		t.Fatal(err)
	}
	files[2].Data = b
	flat, err := Lower(JPEGAI, nil, files)
	if err != nil || !bytes.Equal(flat.Graph("hs_y"), rows.Graph("hs_y")) {
		t.Errorf("flat cdfs: %v", err)
	}
}

// TestAcc64FailureKeepsSet: a set that fails acc64 comes back with its
// graphs and certificate beside the refusal (§14.3).
func TestAcc64FailureKeepsSet(t *testing.T) {
	s, err := Lower(JPEGAI, nil, jpegaiWith(func(*Norm) {}, func(b *[3]ScaleBlock) { *b = jpegaiAcc64OneUnit() }))
	if codeOf(err) != refusal.ModelMismatch || s == nil || len(s.Roles) != 2 || len(s.Certificate) == 0 || s.Acc64 {
		t.Fatalf("got %v, %v", s, err)
	}
	if !strings.Contains(s.Failure64, `"hs_y" node 1`) || !strings.Contains(s.Failure64, "65 bits") {
		t.Errorf("acc64 fails at %s; want hs_y's conv (node 1) at 65 bits, one unit past i64", s.Failure64)
	}
	// One unit less on the bias, and the set meets acc64.
	s, err = Lower(JPEGAI, nil, jpegaiWith(func(*Norm) {}, func(b *[3]ScaleBlock) {
		*b = jpegaiAcc64OneUnit()
		b[0].Bias[0]--
	}))
	if err != nil || !s.Acc64 {
		t.Errorf("with the bias one less: %v", err)
	}
}

// TestAcc32OneWeight: 2^24 meets acc32 against latents in [−128, 127];
// 2^24 + 1 fails it (§7.2), and both meet acc64.
func TestAcc32OneWeight(t *testing.T) {
	ls := synthAcc32OneWeight()
	s, err := Lower(IntSynth, nil, []File{{"int_synth.json", EncodeSynth(ls)}})
	if err != nil || s.Acc32 || !s.Acc64 || !strings.Contains(s.Failure32, "node 0") {
		t.Fatalf("2^24 + 1: %v acc32 %v acc64 %v (%s)", err, s.Acc32, s.Acc64, s.Failure32)
	}
	ls[0].W[0] = 1 << 24
	s, err = Lower(IntSynth, nil, []File{{"int_synth.json", EncodeSynth(ls)}})
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
	net := &Network{Afrac: 8, Shift: 12, Layers: []Layer{{Tag: TagConv, In: 3, Out: 1, K: 3, Stride: 1,
		W: append([]int64{-32767}, fill(26, 1)...), Mult: []int64{-1 << 12}, Bias: []int64{-5}}}}
	p, err := planNetwork(net, "g_s")
	want := div(new(big.Int).Sub(i64, big.NewInt(6)), 27*32767)
	if err != nil || p.lo[0] != -want || p.hi[0] != want {
		t.Errorf("conv: got [%d, %d] (%v), want ±%d", p.lo[0], p.hi[0], err, want)
	}
	// Tag 4 (D-A4): X·|slope_q| ≤ I64 with slope_q = −3.
	net.Layers = append([]Layer{{Tag: TagLeaky, SlopeQ: -3, SlopeFrac: 1}}, net.Layers...)
	if p, err = planNetwork(net, "g_s"); err != nil || p.hi[0] != div(i64, 3) || p.lo[0] != -div(i64, 3) {
		t.Errorf("leaky: got [%d, %d] (%v), want ±%d", p.lo[0], p.hi[0], err, div(i64, 3))
	}
	// Tag 4 with slope 0: X = 2^63, so the range is [−2^63, I64].
	net.Layers[0].SlopeQ = 0
	if p, err = planNetwork(net, "g_s"); err != nil || p.lo[0] != -1<<63 || p.hi[0] != 1<<63-1 {
		t.Errorf("leaky 0: got [%d, %d] (%v)", p.lo[0], p.hi[0], err)
	}
	// Tag 2, c = 1, G = 1, Bb = 0, gf = 0, afrac = 8: G·X² ≤ I128 binds
	// first? N = X² + 1 and ⌊X·isqrt(X² + 1) / 2^8⌋ + 1 = ⌊X² / 256⌋ + 1 ≤
	// I64, so X = isqrt(256·I64) at most; check P at X and X + 1 directly.
	ig := &Network{Afrac: 8, Layers: []Layer{{Tag: TagIGDN, C: 1, Gamma: []int64{1}, Beta: []int64{0}}}}
	if p, err = planNetwork(ig, "g_s"); err != nil {
		t.Fatal(err)
	}
	x := big.NewInt(p.hi[0])
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
	s, err := Lower(World, nil, worldWith(func(_, _ *Network) {}))
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
	s, err = Lower(WAM1, nil, []File{{"model.wam", EncodeWHM(audioNet())}})
	if err != nil {
		t.Fatal(err)
	}
	g, _ = whg1.Parse(s.Graph("g_s"))
	// afrac 10: check [⌈−2^63/32767⌉, ⌊(I64 − 2^9)/32767⌋].
	lo := new(big.Int).Quo(new(big.Int).Neg(big2p63), big.NewInt(32767)) // Quo truncates: the ceiling here
	hi := new(big.Int).Quo(new(big.Int).Sub(bigI64, big.NewInt(512)), big.NewInt(32767))
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
		files []File
		want  string
	}{
		{[]File{{"dir/g_s.whm", b}, {"x", a}}, "ab"},
		{[]File{{"x", a}, {"g_s.whm", b}}, "ab"},
		{[]File{{"g_s.whm", b}, {"T.whm", a}}, "ab"},
		{[]File{{"p", a}, {"q", b}}, "ab"},
		{[]File{{"q", b}, {"p", a}}, "ba"},
	} {
		got, err := assign(names, c.files)
		if err != nil || string(got[0])+string(got[1]) != c.want {
			t.Errorf("%v: got %q, want %s", c.files, got, c.want)
		}
	}
	if _, err := assign(names, []File{{"T.whm", a}}); err == nil || codeOf(err) != "" {
		t.Errorf("one file for two slots: %v, want a usage error", err)
	}
}
