// Package importer turns a float codec transform in ONNX (the way
// torch.onnx.export writes a learned codec's synthesis or hyper-synthesis)
// into a certified WHG1 graph of wai-ops/1 (integer-operators §5).
//
// It is an offline tool. It holds the model as float64 layers, evaluates
// them in float64 to calibrate and to measure the exact graph's error, and
// chooses every integer of the graph from those floats. No decode path
// imports it: the graph it writes is decoded by cpuref, gpu and plan like
// any other, and none of them imports this package.
package importer

import "github.com/waiops/waiops/refusal"

// kind is one float layer of the importer's own form: each becomes one
// wai-ops/1 operator (rescale and subpos_merge stand in for the ONNX ops
// wai-ops/1 has no operator of the same name for).
type kind int

const (
	kConv    kind = iota // Conv → conv (§5.2)
	kConvT               // ConvTranspose → conv_transpose (§5.3)
	kRelu                // Relu → relu (§5.5)
	kLeaky               // LeakyRelu → leaky (§5.5)
	kClip                // Clip → clamp (§5.5)
	kAdd                 // Add of two activations → add (§5.5)
	kAffine              // Mul/Div/Add/Sub by constants → rescale (§5.4)
	kConcat              // Concat on channels → concat (§5.10)
	kSplit               // Split/Slice on channels → split (§5.10)
	kShuffle             // DepthToSpace (CRD) → pixel_shuffle (§5.10)
	kUp2                 // nearest Resize ×2 → subpos_merge of four copies (§5.10)
	kIGDN                // the IGDN pattern → igdn (§5.7)
)

var kindNames = [...]string{"conv", "conv_transpose", "relu", "leaky", "clamp", "add", "rescale", "concat", "split", "pixel_shuffle", "subpos_merge", "igdn"}

func (k kind) String() string { return kindNames[k] }

// layer is one float layer. in and out are value ids; value 0 is the
// graph's input.
type layer struct {
	kind kind
	node string // the ONNX node it came from (the last node of a pattern)
	op   string // that node's op type, or the pattern's name
	in   []int
	out  int

	// conv, conv_transpose: W is [cout][cin/groups][kh][kw] (conv) or
	// [cin][cout][kh][kw] (conv_transpose), B is [cout] (nil for none).
	w, b                         []float64
	cout, kh, kw, sh, sw, ph, pw int
	oph, opw, groups             int
	alpha, lo, hi                float64   // leaky's slope; clip's bounds
	scale, shift                 []float64 // affine: y = x·scale[c] + shift[c] (len 1 or C)
	start, count, r              int       // split; pixel_shuffle's r
	dcr                          bool      // DepthToSpace's DCR order, until foldDCR folds it
	gamma, beta                  []float64 // igdn: γ [C][C], β [C]
}

// network is a model in the importer's form.
type network struct {
	channels []int // each value's channel count
	layers   []layer
	outputs  []int // the ONNX graph's outputs, in order
	outNames []string
	names    []string
}

// value adds a value of c channels and returns its id.
func (n *network) value(c int, name string) int {
	n.channels = append(n.channels, c)
	n.names = append(n.names, name)
	return len(n.channels) - 1
}

// nodeRefusal is the importer's refusal of a node or pattern it cannot
// map (model_mismatch, §4): it names the node and its op type.
func nodeRefusal(node, op, why string) error {
	return refusal.New(refusal.ModelMismatch, "node %s (%s): %s", node, op, why)
}
