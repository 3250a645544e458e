package drivers

import (
	"fmt"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// Norm is what §13.6.1 reads from the bundle's norm.json, after its load
// checks.
type Norm struct {
	PMF           [][]int64 // R ≥ 32 rows of one width w ≥ 1, each summing to 256
	Bounds        []int64   // at least 32, each in [0, 255]
	CdfsY, CdfsUV [][]int64 // 160 and 96 rows of 63, each in [0, 255], non-decreasing
	GainY, GainUV []int64   // 160 and 96
}

// The latent channels of jpegai-int/1's planes (§13.6.1): luma, then
// chroma.
const (
	ScaleChannelsY  = 160
	ScaleChannelsUV = 96
)

func bundleErr(format string, args ...any) error {
	return refusal.New(refusal.ModelMismatch, "jpegai-int/1: "+format, args...)
}

// cdfRows reads n rows of 63 counts, given as n arrays of 63 or as one flat
// array of n·63 (the member's text says "n·63 integers"; both readings are
// taken).
func cdfRows(v any, n int) ([][]int64, error) {
	dims := []uint64{uint64(n) * 63}
	if a, ok := v.([]any); ok && len(a) > 0 {
		if _, nested := a[0].([]any); nested {
			dims = []uint64{uint64(n), 63}
		}
	}
	flat, err := jsonInts(v, dims, 0, 255)
	if err != nil {
		return nil, err
	}
	rows := make([][]int64, n)
	for r := range rows {
		rows[r] = flat[r*63 : (r+1)*63]
		for j := 1; j < 63; j++ {
			if rows[r][j] < rows[r][j-1] {
				return nil, fmt.Errorf("row %d decreases at %d", r, j)
			}
		}
	}
	return rows, nil
}

// ParseNorm reads norm.json with §13.6.1's load checks, in its order.
func ParseNorm(b []byte) (*Norm, error) {
	m, err := jsonObject(b)
	if err != nil {
		return nil, bundleErr("norm.json: %v", err)
	}
	n := &Norm{}
	// pmf: R ≥ 32 rows, each w ≥ 1 non-negative integers summing to 256,
	// all of one width.
	rows, ok := m["pmf"].([]any)
	if !ok || len(rows) < 32 {
		return nil, bundleErr("norm.json: pmf is not a list of at least 32 rows")
	}
	w := -1
	for i, r := range rows {
		a, ok := r.([]any)
		if !ok || len(a) < 1 || (w >= 0 && len(a) != w) {
			return nil, bundleErr("norm.json: pmf row %d is not a row of the common width", i)
		}
		w = len(a)
		p, err := jsonInts(a, []uint64{uint64(w)}, 0, 256)
		if err != nil {
			return nil, bundleErr("norm.json: pmf row %d: %v", i, err)
		}
		sum := int64(0)
		for _, x := range p {
			sum += x // each ≤ 256 and w ≤ the text's length: no overflow
		}
		if sum != 256 {
			return nil, bundleErr("norm.json: pmf row %d sums to %d, not 256", i, sum)
		}
		n.PMF = append(n.PMF, p)
	}
	// bounds: at least 32 integers, each in [0, 255].
	bl, ok := m["bounds"].([]any)
	if !ok || len(bl) < 32 {
		return nil, bundleErr("norm.json: bounds is not a list of at least 32")
	}
	if n.Bounds, err = jsonInts(bl, []uint64{uint64(len(bl))}, 0, 255); err != nil {
		return nil, bundleErr("norm.json: bounds: %v", err)
	}
	// per_channel: 16, the hyper-latent symbols of one channel (4 × 4).
	if pc, err := jsonInt64(m["per_channel"], 16, 16); err != nil || pc != 16 {
		return nil, bundleErr("norm.json: per_channel is not 16")
	}
	// cdfs_y: 160·63; cdfs_uv: 96·63.
	if n.CdfsY, err = cdfRows(m["cdfs_y"], ScaleChannelsY); err != nil {
		return nil, bundleErr("norm.json: cdfs_y: %v", err)
	}
	if n.CdfsUV, err = cdfRows(m["cdfs_uv"], ScaleChannelsUV); err != nil {
		return nil, bundleErr("norm.json: cdfs_uv: %v", err)
	}
	// gain_y: 160; gain_uv: 96; each fits i64.
	if n.GainY, err = jsonInts(m["gain_y"], []uint64{ScaleChannelsY}, -1<<63, 1<<63-1); err != nil {
		return nil, bundleErr("norm.json: gain_y: %v", err)
	}
	if n.GainUV, err = jsonInts(m["gain_uv"], []uint64{ScaleChannelsUV}, -1<<63, 1<<63-1); err != nil {
		return nil, bundleErr("norm.json: gain_uv: %v", err)
	}
	return n, nil
}

// scaleBlock is one block of Table 13.6-A.
type scaleBlock struct {
	weight, bias, shift string
	k                   uint32 // 1 or 3
}

var scaleBlocks = [3]scaleBlock{
	{"conv1.weight", "conv1.bias", "onnx::Pow_85", 1},
	{"depthwise.weight", "depthwise.bias", "onnx::Pow_91", 3},
	{"pointwise.weight", "pointwise.bias", "onnx::Pow_97", 1},
}

// member reads one tensor member { "dims": [...], "v": [...] } whose dims
// must equal want, its values within [lo, hi]. A dim given as 0 in want is
// read from the member (C1, C2) and must lie in 1..=2^26.
func member(m map[string]any, name string, want []uint64, lo, hi int64) ([]int64, []uint64, error) {
	t, ok := m[name].(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not a tensor member", name)
	}
	da, ok := t["dims"].([]any)
	if !ok || len(da) != len(want) {
		return nil, nil, fmt.Errorf("%s: dims is not a list of %d", name, len(want))
	}
	dims := make([]uint64, len(want))
	total := uint64(1)
	for i, d := range da {
		v, err := jsonInt64(d, 1, maxElems)
		if err != nil || (want[i] != 0 && uint64(v) != want[i]) {
			return nil, nil, fmt.Errorf("%s: dims %v, want %v", name, da, want)
		}
		dims[i] = uint64(v)
		// Each dim ≤ 2^26 and the product stops past 2^40, so it cannot
		// overflow; no JSON text holds 2^40 values.
		total *= dims[i]
		if total > 1<<40 {
			return nil, nil, fmt.Errorf("%s: dims %v are too large", name, da)
		}
	}
	v, err := jsonInts(t["v"], []uint64{total}, lo, hi)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: v: %v", name, err)
	}
	return v, dims, nil
}

// lowerScale is jpegai-int/1's scale graph (§13.6.1) over cz channels from
// one weights file and the plane's gains.
func lowerScale(b []byte, cz uint32, gains []int64, file string) (*whg1.Graph, error) {
	m, err := jsonObject(b)
	if err != nil {
		return nil, bundleErr("%s: %v", file, err)
	}
	// Table 13.6-A: C1 and C2 come from the weights; C3 = 16·Cz.
	cin := uint64(cz)
	g := newBuilder()
	x := g.input(cz, whg1.Check, -31, 32, 4, 4) // §13.0 driver contract
	for i, blk := range scaleBlocks {
		cout := uint64(0)
		if i == 2 {
			cout = 16 * uint64(cz)
		}
		w, dims, err := member(m, blk.weight, []uint64{cout, cin, uint64(blk.k), uint64(blk.k)}, -1<<63, 1<<63-1)
		if err != nil {
			return nil, bundleErr("%s: %v", file, err)
		}
		cout = dims[0]
		bias, _, err := member(m, blk.bias, []uint64{cout}, -1<<63, 1<<63-1)
		if err != nil {
			return nil, bundleErr("%s: %v", file, err)
		}
		sh, _, err := member(m, blk.shift, []uint64{1, cout, 1, 1}, 0, 127)
		if err != nil {
			return nil, bundleErr("%s: %v", file, err)
		}
		shift := make([]uint8, len(sh))
		for j, s := range sh {
			shift[j] = uint8(s)
		}
		// Steps 1, 4, 7: clamp(−128, 127); steps 2, 5, 8: the block's conv
		// with an RQ of floor, a pre bias, no multiplier and one shift per
		// channel; steps 3, 6: relu.
		x = g.clamp(x, -128, 127)
		pad := (blk.k - 1) / 2
		x = g.op(whg1.OpConv, &whg1.Conv{
			Cout: uint32(cout), KH: blk.k, KW: blk.k, SH: 1, SW: 1, PH: pad, PW: pad, Groups: 1,
			WBytes: whg1.WidthFor(w, 1, 2, 4, 8),
			RQ: whg1.RQ{Round: whg1.Floor, Bias: whg1.PreBias, BBytes: whg1.WidthFor(bias, 4, 8), BiasV: bias,
				SKind: 2, Shift: shift},
			W: w,
		}, uint32(cout), x)
		if i < 2 {
			x = g.op(whg1.OpRelu, nil, uint32(cout), x)
		}
		cin = cout
	}
	// Steps 9–12: pixel_shuffle(4); abs; clamp(0, 3967); rescale with no
	// multiplier, shift 0, floor and the plane's gains as a pre bias.
	x = g.op(whg1.OpPixelShuffle, &whg1.Factor{N: 4}, cz, x)
	x = g.op(whg1.OpAbs, nil, cz, x)
	x = g.clamp(x, 0, 3967)
	x = g.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{
		Round: whg1.Floor, Bias: whg1.PreBias, BBytes: whg1.WidthFor(gains, 4, 8), BiasV: gains,
		SKind: 1, Shift: []uint8{0},
	}}, cz, x)
	return g.finish(x), nil
}
