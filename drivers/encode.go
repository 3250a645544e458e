package drivers

import (
	"encoding/binary"
)

// EncodeWHM writes a network in the layout of DECISIONS.md D (magic WAM1
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

// EncodeWMB writes a WMB1 bundle (DECISIONS.md D).
func EncodeWMB(bd *Bundle) []byte {
	b := []byte("WMB1")
	for _, p := range [][]byte{bd.HS, bd.Entropy, bd.GS, bd.Tables} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}
