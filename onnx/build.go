package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"
)

// Builder writes a model one node at a time: the importer's tests build
// their models with it, and the bench writes its float peers' models.
type Builder struct {
	g       GraphProto
	opset   int64
	imports []*OperatorSetIdProto // other domains' opsets
	n       int
}

// NewBuilder starts a graph of the given name under the default domain's
// opset.
func NewBuilder(name string, opset int64) *Builder {
	return &Builder{g: GraphProto{Name: name}, opset: opset}
}

// Fresh returns a new value name.
func (b *Builder) Fresh() string {
	b.n++
	return fmt.Sprintf("t%d", b.n)
}

// Input declares a graph input.
func (b *Builder) Input(name string, elem int32, dims ...int64) {
	b.g.Input = append(b.g.Input, valueInfo(name, elem, dims))
}

// Output declares a graph output.
func (b *Builder) Output(name string, elem int32, dims ...int64) {
	b.g.Output = append(b.g.Output, valueInfo(name, elem, dims))
}

func valueInfo(name string, elem int32, dims []int64) *ValueInfoProto {
	sh := &TensorShapeProto{}
	for _, d := range dims {
		sh.Dim = append(sh.Dim, &TensorShapeDimension{DimValue: d})
	}
	return &ValueInfoProto{Name: name, Type: &TypeProto{TensorType: &TypeProtoTensor{ElemType: elem, Shape: sh}}}
}

// Floats adds a float32 initialiser (raw little-endian data, as
// torch.onnx.export writes it) and returns its name.
func (b *Builder) Floats(v []float32, dims ...int64) string {
	name := b.Fresh()
	b.g.Initializer = append(b.g.Initializer, FloatTensor(name, v, dims...))
	return name
}

// Init adds an initialiser as it is given.
func (b *Builder) Init(t *TensorProto) { b.g.Initializer = append(b.g.Initializer, t) }

// RawTensor is a TensorProto of any element type with raw little-endian
// data (no dims for a scalar).
func RawTensor(name string, elem int32, raw []byte, dims ...int64) *TensorProto {
	return &TensorProto{Name: name, Dims: dims, DataType: elem, RawData: raw}
}

// ImportDomain adds an opset import for a domain other than the default
// one (its nodes set NodeProto.Domain).
func (b *Builder) ImportDomain(domain string, version int64) {
	b.imports = append(b.imports, &OperatorSetIdProto{Domain: domain, Version: version})
}

// Ints adds an int64 initialiser and returns its name.
func (b *Builder) Ints(v []int64, dims ...int64) string {
	name := b.Fresh()
	b.g.Initializer = append(b.g.Initializer, &TensorProto{Name: name, Dims: dims, DataType: Int64, Int64Data: v})
	return name
}

// FloatTensor is a float32 TensorProto with raw data.
func FloatTensor(name string, v []float32, dims ...int64) *TensorProto {
	raw := make([]byte, 0, 4*len(v))
	for _, f := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
	}
	return RawTensor(name, Float, raw, dims...)
}

// Node appends a node and returns it, so that a caller can name it.
func (b *Builder) Node(opType string, ins, outs []string, attrs ...*AttributeProto) *NodeProto {
	n := &NodeProto{OpType: opType, Input: ins, Output: outs, Attribute: attrs}
	b.g.Node = append(b.g.Node, n)
	return n
}

// Op appends a one-output node on a fresh value and returns that value.
func (b *Builder) Op(opType string, ins []string, attrs ...*AttributeProto) string {
	out := b.Fresh()
	b.Node(opType, ins, []string{out}, attrs...)
	return out
}

// IntsAttr is an INTS attribute.
func IntsAttr(name string, v ...int64) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttrInts, Ints: v}
}

// IntAttr is an INT attribute.
func IntAttr(name string, v int64) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttrInt, I: v}
}

// FloatAttr is a FLOAT attribute.
func FloatAttr(name string, v float32) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttrFloat, F: v}
}

// StringAttr is a STRING attribute.
func StringAttr(name, v string) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttrString, S: []byte(v)}
}

// TensorAttr is a TENSOR attribute.
func TensorAttr(name string, t *TensorProto) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttrTensor, T: t}
}

// Bytes is the ModelProto (IR version 8) with the builder's graph.
// Marshal fails only on a name that is not valid UTF-8.
func (b *Builder) Bytes() ([]byte, error) {
	m := &ModelProto{IrVersion: 8, ProducerName: "waiops", Graph: &b.g,
		OpsetImport: append([]*OperatorSetIdProto{{Version: b.opset}}, b.imports...)}
	return proto.Marshal(m)
}
