package drivers

import (
	"encoding/binary"
	"encoding/json"
)

// EncodeWHM writes a network in the layout of docs/READINGS.md D-D (magic WAM1
// when n.OneD). ParseWHM reads it back. The fields a tag does not carry are
// not written. It is the inverse the corpus generator and tests use.
func EncodeWHM(n *Network) []byte {
	magic := "WHM1"
	if n.OneD {
		magic = "WAM1"
	}
	b := []byte(magic)
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	ints := func(v []int64, w int) {
		for _, x := range v {
			switch w {
			case 2:
				b = binary.LittleEndian.AppendUint16(b, uint16(x))
			case 4:
				b = binary.LittleEndian.AppendUint32(b, uint32(x))
			default:
				b = binary.LittleEndian.AppendUint64(b, uint64(x))
			}
		}
	}
	u32(n.Afrac)
	u32(n.GF)
	u32(n.Shift)
	u32(uint32(len(n.Layers)))
	for _, l := range n.Layers {
		b = append(b, l.Tag)
		switch l.Tag {
		case TagConvT, TagConv:
			u32(l.In)
			u32(l.Out)
			u32(l.K)
			u32(l.Stride)
			u32(l.Pad)
			if l.Tag == TagConvT {
				u32(l.Opad)
			}
			ints(l.W, 2)
			ints(l.Mult, 8)
			ints(l.Bias, 8)
		case TagIGDN:
			u32(l.C)
			ints(l.Gamma, 4)
			ints(l.Beta, 8)
		case TagLeaky:
			ints([]int64{l.SlopeQ}, 8)
			u32(l.SlopeFrac)
		}
	}
	return b
}

// EncodeWMB writes a WMB1 bundle (D-D).
func EncodeWMB(bd *Bundle) []byte {
	b := []byte("WMB1")
	for _, p := range [][]byte{bd.HS, bd.Entropy, bd.GS, bd.Tables} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

// SynthLayer is one layer of an int_synth.json to write; W is
// [in_ch][out_ch][k][k] flattened row-major.
type SynthLayer struct {
	InCh, OutCh, K, Stride, Pad, OutPad, Shift int
	Relu                                       bool
	W, Bias                                    []int64
}

// nest shapes a flat row-major slice as nested arrays of dims.
func nest(v []int64, dims ...int) any {
	if len(dims) == 1 {
		return v
	}
	step := len(v) / dims[0]
	out := make([]any, dims[0])
	for i := range out {
		out[i] = nest(v[i*step:(i+1)*step], dims[1:]...)
	}
	return out
}

// EncodeSynth writes int_synth.json (§13.1) with JSON numbers, members in
// ascending order (encoding/json sorts map keys).
func EncodeSynth(layers []SynthLayer) []byte {
	ls := make([]any, len(layers))
	for i, l := range layers {
		ls[i] = map[string]any{
			"in_ch": l.InCh, "out_ch": l.OutCh, "k": l.K, "stride": l.Stride, "pad": l.Pad,
			"out_pad": l.OutPad, "shift": l.Shift, "relu": l.Relu,
			"weight": nest(l.W, l.InCh, l.OutCh, l.K, l.K), "bias": l.Bias,
		}
	}
	b, _ := json.Marshal(map[string]any{"layers": ls}) // maps, slices and ints only: cannot fail
	return b
}

// EncodeNorm writes the members of norm.json that §13.6.1 reads, the cdfs
// as rows of 63.
func EncodeNorm(n *Norm) []byte {
	b, _ := json.Marshal(map[string]any{
		"pmf": n.PMF, "bounds": n.Bounds, "per_channel": 16,
		"cdfs_y": n.CdfsY, "cdfs_uv": n.CdfsUV, "gain_y": n.GainY, "gain_uv": n.GainUV,
	})
	return b
}

// ScaleBlock is one block of Table 13.6-A to write: W [cout][cin][k][k]
// flattened, Bias [cout], Shift [cout].
type ScaleBlock struct {
	W, Bias, Shift []int64
}

// EncodeScaleWeights writes hs_y.json or hs_uv.json for cz channels: the
// nine members of Table 13.6-A as { "dims", "v" } tensors.
func EncodeScaleWeights(cz int, blocks [3]ScaleBlock) []byte {
	m := map[string]any{}
	cin := cz
	for i, blk := range scaleBlocks {
		cout := len(blocks[i].Bias)
		k := int(blk.k)
		m[blk.weight] = map[string]any{"dims": []int{cout, cin, k, k}, "v": blocks[i].W}
		m[blk.bias] = map[string]any{"dims": []int{cout}, "v": blocks[i].Bias}
		m[blk.shift] = map[string]any{"dims": []int{1, cout, 1, 1}, "v": blocks[i].Shift}
		cin = cout
	}
	b, _ := json.Marshal(m)
	return b
}

// SynthPayloadBytes writes an int_synth payload (docs/READINGS.md D-D): u16 H, W, C,
// S, a reserved zero byte, then i8 latents[C][S][S].
func SynthPayloadBytes(h, w, c, s int, latents []int8) []byte {
	b := []byte{byte(h), byte(h >> 8), byte(w), byte(w >> 8), byte(c), byte(c >> 8), byte(s), byte(s >> 8), 0}
	for _, v := range latents {
		b = append(b, byte(v))
	}
	return b
}
