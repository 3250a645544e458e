package whg1

import "fmt"

// opInfo is one row of §5's operator table: the name and the arity. nIn or
// nOut of -1 means "at least 2" (concat's inputs).
type opInfo struct {
	name      string
	nIn, nOut int
}

// opTable is §5's table, indexed by opcode.
var opTable = map[Opcode]opInfo{
	OpConv:           {"conv", 1, 1},
	OpRescale:        {"rescale", 1, 1},
	OpChscale:        {"chscale", 1, 1},
	OpLut16:          {"lut16", 1, 1},
	OpAdd:            {"add", 2, 1},
	OpConcat:         {"concat", -1, 1},
	OpChunkAdd:       {"chunk_add", 1, 1},
	OpSplit:          {"split", 1, 1},
	OpPixelShuffle:   {"pixel_shuffle", 1, 1},
	OpPixelUnshuffle: {"pixel_unshuffle", 1, 1},
	OpClamp:          {"clamp", 1, 1},
	OpRelu:           {"relu", 1, 1},
	OpLeaky:          {"leaky", 1, 1},
	OpPadRep:         {"pad_rep", 1, 1},
	OpCropTo:         {"crop_to", 2, 1},
	OpMul:            {"mul", 2, 1},
	OpConvTranspose:  {"conv_transpose", 1, 1},
	OpIGDN:           {"igdn", 1, 1},
	OpAbs:            {"abs", 1, 1},
	OpCrop:           {"crop", 1, 1},
	OpSubposSplit:    {"subpos_split", 1, 4},
	OpSubposMerge:    {"subpos_merge", 4, 1},
	OpFill:           {"fill", 1, 1},
	OpLayerNormC:     {"layernorm_c", 1, 1},
	OpL2Norm:         {"l2norm", 1, 1},
	OpSoftmax:        {"softmax", 1, 1},
	OpSigmoid:        {"sigmoid", 1, 1},
	OpElu:            {"elu", 1, 1},
	OpGram:           {"gram", 2, 1},
	OpApply:          {"apply", 2, 1},
}

// Opcodes lists the 30 operators of §5 in opcode order.
var Opcodes = []Opcode{
	OpConv, OpRescale, OpChscale, OpLut16, OpAdd, OpConcat, OpChunkAdd,
	OpSplit, OpPixelShuffle, OpPixelUnshuffle, OpClamp, OpRelu, OpLeaky,
	OpPadRep, OpCropTo, OpMul, OpConvTranspose, OpIGDN, OpAbs, OpCrop,
	OpSubposSplit, OpSubposMerge, OpFill, OpLayerNormC, OpL2Norm,
	OpSoftmax, OpSigmoid, OpElu, OpGram, OpApply,
}

// String is the operator's name as §5 spells it ("conv", "crop_to", …), or
// "opcode 0xNN" for a code outside wai-ops/1.
func (o Opcode) String() string {
	if in, ok := opTable[o]; ok {
		return in.name
	}
	return fmt.Sprintf("opcode 0x%02X", uint8(o))
}
