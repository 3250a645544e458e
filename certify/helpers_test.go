package certify

import (
	"errors"
	"github.com/waiops/waiops/refusal"
	"math/big"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// builder writes small graphs as Go values. Tensor 0 is the data input.
type builder struct{ g *whg1.Graph }

// newGraph starts a graph whose input 0 is [c, maxH, maxW] with policy
// check [lo, hi].
func newGraph(c uint32, lo, hi int64, maxH, maxW uint32) *builder {
	return &builder{&whg1.Graph{
		Tensors: []whg1.Tensor{{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: lo, Hi: hi}},
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: maxH, MaxW: maxW}},
	}}
}

// input adds another input tensor with policy check [lo, hi].
func (b *builder) input(c uint32, lo, hi int64, kind whg1.InputKind) uint32 {
	t := b.tensor(c, whg1.Check, lo, hi)
	in0 := b.g.Inputs[0]
	b.g.Inputs = append(b.g.Inputs, whg1.Input{Tensor: t, MaxH: in0.MaxH, MaxW: in0.MaxW, Kind: kind, Init: lo})
	return t
}

func (b *builder) tensor(c uint32, p whg1.Policy, lo, hi int64) uint32 {
	b.g.Tensors = append(b.g.Tensors, whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: p, Lo: lo, Hi: hi})
	return uint32(len(b.g.Tensors) - 1)
}

// op adds an operator with one derived output of c channels.
func (b *builder) op(code whg1.Opcode, params any, c uint32, in ...uint32) uint32 {
	return b.opPolicy(code, params, c, whg1.Derived, 0, 0, in...)
}

// opPolicy adds an operator whose one output has the given policy.
func (b *builder) opPolicy(code whg1.Opcode, params any, c uint32, p whg1.Policy, lo, hi int64, in ...uint32) uint32 {
	t := b.tensor(c, p, lo, hi)
	b.g.Ops = append(b.g.Ops, whg1.Op{Code: code, In: in, Out: []uint32{t}, Params: params})
	return t
}

// role encodes the graph, outputs the last tensor, and parses it back, so
// that every test graph has passed §10.5 steps 1–7.
func (b *builder) role(t *testing.T, name string) Role {
	t.Helper()
	b.g.Outputs = []uint32{uint32(len(b.g.Tensors) - 1)}
	bytes := whg1.Encode(b.g)
	g, err := whg1.Parse(bytes)
	if err != nil {
		t.Fatalf("graph %s does not parse: %v", name, err)
	}
	return Role{Name: name, Bytes: bytes, Graph: g}
}

// certOne certifies one graph as role "g".
func certOne(t *testing.T, b *builder) *Certificate {
	t.Helper()
	c, err := Certify(nil, "whg1", nil, []Role{b.role(t, "g")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rqFloor is an rq with no multiplier, one shift, floor, and a pre bias
// when pre is given.
func rqFloor(shift uint8, pre ...int64) whg1.RQ {
	r := whg1.RQ{Round: whg1.Floor, SKind: 1, Shift: []uint8{shift}}
	if len(pre) > 0 {
		r.Bias, r.BiasV = whg1.PreBias, pre
	}
	return r
}

// big2 is 2^n, and bigS parses a decimal.
func big2(n uint) *big.Int { return pow2(n) }

func bigS(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// wantIv checks one recorded interval against [lo, hi].
func wantIv(t *testing.T, what string, got Interval, lo, hi *big.Int) {
	t.Helper()
	if got.Lo == nil || got.Lo.Cmp(lo) != 0 || got.Hi.Cmp(hi) != 0 {
		t.Errorf("%s = %v, want [%v, %v]", what, got, lo, hi)
	}
}

// wantKeys checks every listed intermediate of node n, and that the node
// records exactly those keys.
func wantKeys(t *testing.T, n *Node, want map[string][2]int64) {
	t.Helper()
	if len(n.Intermediates) != len(want) {
		t.Errorf("node %d (%v) records %d intermediates, want %d", n.Index, n.Op, len(n.Intermediates), len(want))
	}
	for k, w := range want {
		wantIv(t, k, n.Intermediates[k], bi(w[0]), bi(w[1]))
	}
}

// wantRefusal checks that err is a refusal with code.
func wantRefusal(t *testing.T, err error, code string) {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) || string(r.Code) != code {
		t.Fatalf("error %v, want a %s refusal", err, code)
	}
}
