package drivers

import (
	"encoding/binary"
	"math/bits"

	"github.com/waiops/waiops/refusal"
)

// Layer tags of a WHM1 or WAM1 network (§13.2).
const (
	TagConvT = 0
	TagConv  = 1
	TagIGDN  = 2
	TagRelu  = 3
	TagLeaky = 4
)

// Network is one WHM1 or WAM1 network as docs/READINGS.md D-D lays it out.
type Network struct {
	Afrac, GF, Shift uint32
	Layers           []Layer
	// OneD is set for WAM1: kernels are [..][..][k] over [C, 1, T] (§13.3).
	OneD bool
}

// Layer is one layer. The fields a tag does not carry are zero.
type Layer struct {
	Tag                           uint8
	In, Out, K, Stride, Pad, Opad uint32
	// W is [in][out][k][k] for tag 0 and [out][in][k][k] for tag 1 (the
	// last k absent for WAM1); Mult and Bias are per output channel.
	W, Mult, Bias []int64
	// C, Gamma [c][c] and Beta [c] are tag 2's.
	C           uint32
	Gamma, Beta []int64
	// SlopeQ and SlopeFrac are tag 4's.
	SlopeQ    int64
	SlopeFrac uint32
}

// nativeReader reads the little-endian fields of a native artifact. Any
// read past the end sets short; counts are checked against the bytes left
// before anything is allocated.
type nativeReader struct {
	b     []byte
	short bool
}

func (r *nativeReader) take(n uint64) []byte {
	if r.short || n > uint64(len(r.b)) {
		r.short = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *nativeReader) u32() uint32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (r *nativeReader) i64() int64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(p))
}

func (r *nativeReader) u8() uint8 {
	p := r.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// ints reads the product of dims signed integers of width bytes each, or
// sets short when the product overflows or passes the bytes left.
func (r *nativeReader) ints(width uint64, dims ...uint32) []int64 {
	n := uint64(1)
	for _, d := range dims {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			r.short = true
			return nil
		}
		n = lo
	}
	hi, total := bits.Mul64(n, width)
	if hi != 0 || r.short || total > uint64(len(r.b)) {
		r.short = true
		return nil
	}
	p := r.take(total)
	v := make([]int64, n)
	for i := range v {
		q := p[uint64(i)*width:]
		switch width {
		case 2:
			v[i] = int64(int16(binary.LittleEndian.Uint16(q)))
		case 4:
			v[i] = int64(int32(binary.LittleEndian.Uint32(q)))
		default:
			v[i] = int64(binary.LittleEndian.Uint64(q))
		}
	}
	return v
}

// ParseWHM parses a WHM1 network (magic "WHM1") or, with oneD, a WAM1
// network (magic "WAM1"), per D-D. Anything else, bytes after the
// last layer included, is malformed (model_mismatch).
func ParseWHM(b []byte, oneD bool) (*Network, error) {
	magic := "WHM1"
	if oneD {
		magic = "WAM1"
	}
	if len(b) < 4 || string(b[:4]) != magic {
		return nil, refusal.New(refusal.ModelMismatch, "not a %s network: bad magic", magic)
	}
	r := &nativeReader{b: b[4:]}
	n := &Network{OneD: oneD}
	n.Afrac, n.GF, n.Shift = r.u32(), r.u32(), r.u32()
	nLayers := r.u32()
	if r.short {
		return nil, refusal.New(refusal.ModelMismatch, "%s header is truncated", magic)
	}
	// Every layer takes at least one byte, so the count is bounded by the
	// bytes left before the slice is allocated.
	if uint64(nLayers) > uint64(len(r.b)) {
		return nil, refusal.New(refusal.ModelMismatch, "%s declares %d layers in %d bytes", magic, nLayers, len(r.b))
	}
	n.Layers = make([]Layer, 0, nLayers)
	kk := func(k uint32) []uint32 { // the kernel's trailing dims
		if oneD {
			return []uint32{k}
		}
		return []uint32{k, k}
	}
	for i := uint32(0); i < nLayers; i++ {
		l := Layer{Tag: r.u8()}
		switch l.Tag {
		case TagConvT:
			l.In, l.Out, l.K, l.Stride, l.Pad, l.Opad = r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
			l.W = r.ints(2, append([]uint32{l.In, l.Out}, kk(l.K)...)...)
			l.Mult, l.Bias = r.ints(8, l.Out), r.ints(8, l.Out)
		case TagConv:
			l.In, l.Out, l.K, l.Stride, l.Pad = r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
			l.W = r.ints(2, append([]uint32{l.Out, l.In}, kk(l.K)...)...)
			l.Mult, l.Bias = r.ints(8, l.Out), r.ints(8, l.Out)
		case TagIGDN:
			l.C = r.u32()
			l.Gamma, l.Beta = r.ints(4, l.C, l.C), r.ints(8, l.C)
		case TagRelu:
		case TagLeaky:
			l.SlopeQ, l.SlopeFrac = r.i64(), r.u32()
		default:
			return nil, refusal.New(refusal.ModelMismatch, "%s layer %d: unknown tag %d", magic, i, l.Tag)
		}
		if r.short {
			return nil, refusal.New(refusal.ModelMismatch, "%s layer %d is truncated", magic, i)
		}
		n.Layers = append(n.Layers, l)
	}
	if len(r.b) != 0 {
		return nil, refusal.New(refusal.ModelMismatch, "%s: %d bytes after the last layer", magic, len(r.b))
	}
	return n, nil
}

// Bundle is a WMB1 bundle (D-D): three WHM1 networks and the
// tables section, which is the stage operators' data and is not lowered
// (§13.4).
type Bundle struct {
	HS, Entropy, GS []byte
	Tables          []byte
}

// ParseWMB splits a WMB1 bundle into its members. Malformed is model_mismatch.
func ParseWMB(b []byte) (*Bundle, error) {
	if len(b) < 4 || string(b[:4]) != "WMB1" {
		return nil, refusal.New(refusal.ModelMismatch, "not a WMB1 bundle: bad magic")
	}
	r := &nativeReader{b: b[4:]}
	var parts [4][]byte
	for i := range parts {
		parts[i] = r.take(uint64(r.u32()))
		if r.short {
			return nil, refusal.New(refusal.ModelMismatch, "WMB1 member %d is truncated", i)
		}
	}
	if len(r.b) != 0 {
		return nil, refusal.New(refusal.ModelMismatch, "WMB1: %d bytes after the tables", len(r.b))
	}
	return &Bundle{HS: parts[0], Entropy: parts[1], GS: parts[2], Tables: parts[3]}, nil
}
