// Package whg1 is the WHG1 graph form of integer-operators §10: one model
// that every fabric (cpuref, gpu, the certifier) reads, the parser with the
// load checks of §10.5 steps 1–7, the encoder, and the run-time plan of §4.
//
// A *Graph returned by Parse has passed every load check up to the plan; its
// fields are then read-only and safe to share between goroutines.
package whg1

// Opcode is an operator's code (§5's table).
type Opcode uint8

// The 30 graph operators of §5.
const (
	OpConv           Opcode = 0x01
	OpRescale        Opcode = 0x02
	OpChscale        Opcode = 0x03
	OpLut16          Opcode = 0x04
	OpAdd            Opcode = 0x05
	OpConcat         Opcode = 0x06
	OpChunkAdd       Opcode = 0x07
	OpSplit          Opcode = 0x08
	OpPixelShuffle   Opcode = 0x09
	OpPixelUnshuffle Opcode = 0x0A
	OpClamp          Opcode = 0x0B
	OpRelu           Opcode = 0x0C
	OpLeaky          Opcode = 0x0D
	OpPadRep         Opcode = 0x0E
	OpCropTo         Opcode = 0x0F
	OpMul            Opcode = 0x10
	OpConvTranspose  Opcode = 0x11
	OpIGDN           Opcode = 0x12
	OpAbs            Opcode = 0x13
	OpCrop           Opcode = 0x14
	OpSubposSplit    Opcode = 0x15
	OpSubposMerge    Opcode = 0x16
	OpFill           Opcode = 0x17
	OpLayerNormC     Opcode = 0x18
	OpL2Norm         Opcode = 0x19
	OpSoftmax        Opcode = 0x1A
	OpSigmoid        Opcode = 0x1B
	OpElu            Opcode = 0x1C
	OpGram           Opcode = 0x1D
	OpApply          Opcode = 0x1E
)

// Policy is a tensor's range policy (§3).
type Policy uint8

const (
	Derived Policy = 0
	Clamp   Policy = 1
	Check   Policy = 2
)

// NoExponent is the tensor-record encoding of "no exponent" (§10.2).
const NoExponent int8 = -128

// Graph is one WHG1 file (§10).
type Graph struct {
	Version  uint8  // 1
	OpSet    uint8  // 1 (wai-ops/1)
	MaxElems uint32 // 1..=2^26, the cap on every tensor of this graph (§10.1)
	Scalars  []Scalar
	Inputs   []Input
	Outputs  []uint32 // tensor index of each graph output
	Tensors  []Tensor
	Ops      []Op
}

// Scalar is a scalar-table record (§10.2): the run-time value lies in [Lo, Hi].
type Scalar struct{ Lo, Hi int64 }

// InputKind tells a data input from a state input (§10.2).
type InputKind uint8

const (
	DataInput  InputKind = 0
	StateInput InputKind = 1
)

// Input is an input-table record (§10.2).
type Input struct {
	Tensor     uint32
	MaxH, MaxW uint32 // both 0: sizes set per decode
	Kind       InputKind
	Src        uint32 // state: position in the outputs table that feeds it
	Init       int64  // state: every element's value before the first completed decode
}

// Tensor is a tensor record (§10.2).
type Tensor struct {
	Channels uint32
	Exponent int8 // −127..=127, or NoExponent
	Policy   Policy
	Lo, Hi   int64 // both 0 under Derived
}

// Op is one operator record. Params holds a pointer to the parameter struct
// of its opcode (below), or nil for the operators with plen = 0.
type Op struct {
	Code   Opcode
	In     []uint32
	Out    []uint32
	Params any
}

// Round is an rq rounding mode (§2, §10.4).
type Round uint8

const (
	Floor    Round = 0
	HalfUp   Round = 1
	HalfEven Round = 2
)

// BiasPlace is where an rq adds its bias (§5.1).
type BiasPlace uint8

const (
	NoBias   BiasPlace = 0
	PreBias  BiasPlace = 1
	PostBias BiasPlace = 2
)

// RQ is the requantisation block of §10.4 (§5.1). The byte widths are kept
// so that a parsed graph encodes back to the same bytes.
type RQ struct {
	Round  Round
	Bias   BiasPlace
	MKind  uint8 // 0 absent, 1 one value, 2 one per channel
	SKind  uint8 // 1 one value, 2 one per channel
	MBytes uint8 // 4 or 8; 0 when MKind = 0
	BBytes uint8 // 4 or 8; 0 when Bias = 0
	Mult   []int64
	Shift  []uint8
	BiasV  []int64 // len C when Bias ≠ 0
}

// MultOf is mult[o], with an absent multiplier meaning 1 (§5.1).
func (r *RQ) MultOf(o int) int64 {
	switch r.MKind {
	case 0:
		return 1
	case 1:
		return r.Mult[0]
	}
	return r.Mult[o]
}

// ShiftOf is shift[o].
func (r *RQ) ShiftOf(o int) uint {
	if r.SKind == 1 {
		return uint(r.Shift[0])
	}
	return uint(r.Shift[o])
}

// PreOf and PostOf are the bias added before and after scaling (0 when the
// bias has the other placement or is absent).
func (r *RQ) PreOf(o int) int64 {
	if r.Bias == PreBias {
		return r.BiasV[o]
	}
	return 0
}

func (r *RQ) PostOf(o int) int64 {
	if r.Bias == PostBias {
		return r.BiasV[o]
	}
	return 0
}

// Conv is conv's parameters (§5.2). W is Wt[cout][cin/groups][kh][kw].
type Conv struct {
	Cout, KH, KW, SH, SW, PH, PW, Groups uint32
	WBytes                               uint8 // 1, 2, 4 or 8
	RQ                                   RQ
	W                                    []int64
}

// ConvT is conv_transpose's parameters (§5.3). W is Wt[cin][cout][kh][kw].
type ConvT struct {
	Cout, KH, KW, SH, SW, PH, PW, OPH, OPW uint32
	WBytes                                 uint8
	RQ                                     RQ
	W                                      []int64
}

// Rescale is rescale's and mul's parameters (§5.4): one RQ (mul's has no bias).
type Rescale struct{ RQ RQ }

// Chscale is chscale's parameters (§5.4). M is M[n_rows][C].
type Chscale struct {
	Scalar, NRows uint32
	Round         Round
	MBytes        uint8
	Shift         uint8
	M             []int64
}

// Lut16 is lut16's parameters (§5.6).
type Lut16 struct {
	EIn, EOut int8 // NoExponent for none
	T         []int16
}

// Split is split's parameters (§5.10).
type Split struct{ Start, Count uint32 }

// Factor is the r of pixel_shuffle and pixel_unshuffle, and the m of pad_rep.
type Factor struct{ N uint32 }

// ClampParams is clamp's parameters (§5.5).
type ClampParams struct{ Lo, Hi int64 }

// Leaky is leaky's parameters (§5.5).
type Leaky struct {
	A int64
	F uint32
}

// Operand is a crop or fill operand: a constant, or the index of a scalar.
type Operand struct {
	Scalar bool
	Value  uint32
}

// Crop is crop's parameters (§5.10).
type Crop struct{ Y0, X0, H, W Operand }

// Subpos is subpos_split's and subpos_merge's order: each entry 2a + b.
type Subpos struct{ Order [4]uint8 }

// Fill is fill's parameters; Value is the scalar index when Scalar is set.
type Fill struct {
	Scalar bool
	Value  int64
}

// IGDN is igdn's parameters (§5.7). Gamma is γ[C][C], row = output channel.
type IGDN struct {
	GF, Frac uint32
	GBytes   uint8
	Gamma    []int64
	Beta     []int64
}

// LayerNorm is layernorm_c's parameters (§5.7).
type LayerNorm struct {
	Eps    uint64
	GBytes uint8
	Gamma  []int64
	Beta   []int64
}

// L2Norm is l2norm's parameters (§5.7).
type L2Norm struct{ Eps uint64 }

// Elu is elu's parameters (§5.8).
type Elu struct{ Alpha int64 }

// Contraction is gram's and apply's parameters (§5.9).
type Contraction struct {
	Groups uint32
	RQ     RQ
}

// AddTensor appends a tensor of c channels, with no exponent and no
// policy, and returns its number (§10.2: tensors are numbered in order).
// Builders of graphs (the §13 lowerings, the ONNX importer) use it.
func (g *Graph) AddTensor(c uint32) uint32 {
	g.Tensors = append(g.Tensors, Tensor{Channels: c, Exponent: NoExponent})
	return uint32(len(g.Tensors) - 1)
}

// AddOp appends an operator reading in and writing one new tensor of c
// channels, and returns that tensor's number.
func (g *Graph) AddOp(code Opcode, params any, c uint32, in ...uint32) uint32 {
	out := g.AddTensor(c)
	g.Ops = append(g.Ops, Op{Code: code, In: in, Out: []uint32{out}, Params: params})
	return out
}
