package certify

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// Profile is one of the two profiles of §7.2, spelled as certificates,
// vectors and reports spell it.
type Profile string

// The two profiles of §7.2.
const (
	Acc32 Profile = "acc32"
	Acc64 Profile = "acc64"
)

// Profiles are the profiles in ascending order, as §14.1 lists them.
var Profiles = []Profile{Acc32, Acc64}

// Valid reports whether p is one of Profiles.
func (p Profile) Valid() bool { return p == Acc32 || p == Acc64 }

// Strings spells ps for canonical JSON.
func Strings(ps []Profile) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// width is the signed width a class must fit under a profile (§7.1).
func width(profile Profile, c class) int {
	if profile == Acc32 {
		if c == classProduct {
			return 64
		}
		return 32
	}
	if c == classWide || c == classProduct {
		return 128
	}
	return 64
}

// Failure is a profile's first failure (§8.5). Bits is 0 for the keys that
// carry none ("saturated", a parameter condition, "policy.check").
type Failure struct {
	Graph string
	Where string // "input", "scalar" or "node"
	Index int
	Key   string
	Bits  int
}

func (f *Failure) String() string {
	s := fmt.Sprintf("graph %q %s %d: %s", f.Graph, f.Where, f.Index, f.Key)
	if f.Bits > 0 {
		s += fmt.Sprintf(" (%d bits)", f.Bits)
	}
	return s
}

// Verdict is a certificate's verdict (§8.5).
type Verdict struct {
	Acc32, Acc64               bool
	Acc32Failure, Acc64Failure *Failure // nil when the profile holds
	NPU                        bool
	NPUFlags, NPUReasons       []string
}

// Meets reports whether the verdict meets profile.
func (v *Verdict) Meets(profile Profile) bool {
	switch profile {
	case Acc32:
		return v.Acc32
	case Acc64:
		return v.Acc64
	}
	return false
}

// failure is the node's failure key for profile, and its bits, or "" when
// the node fits (§8.5 "First failure"): "saturated"; else the failing intermediate or producer result ("out.<k>")
// with the most bits, a tie going to the smallest key; else, for acc32, the
// first acc32_params entry, or "policy.check".
func (n *Node) failure(g *whg1.Graph, profile Profile) (key string, bits int) {
	if n.Saturated {
		return "saturated", 0
	}
	key, bits = widest(n.Intermediates, n.Results, profile)
	if key != "" || profile != Acc32 {
		return key, bits
	}
	if len(n.Acc32Params) > 0 {
		return n.Acc32Params[0], 0
	}
	for _, t := range n.op.Out {
		if g.Tensors[t].Policy == whg1.Check {
			return "policy.check", 0
		}
	}
	return "", 0
}

// widest is, among the intermediates and producer results ("out.<k>") that
// do not meet profile's width for their class (§7.1), the one with the most
// bits, a tie going to the smallest key in byte order; "" when all meet it.
func widest(inter map[string]Interval, results []Interval, profile Profile) (key string, bits int) {
	consider := func(k string, iv Interval, c class) {
		b := iv.Bits()
		if b <= width(profile, c) {
			return
		}
		if b > bits || b == bits && k < key {
			key, bits = k, b
		}
	}
	for k, iv := range inter {
		consider(k, iv, keyClass[k])
	}
	for k, iv := range results {
		consider(fmt.Sprintf("out.%d", k), iv, classTensor)
	}
	return key, bits
}

// fits lists the profiles the node meets (§8.5 "What a node fits").
func fits(g *whg1.Graph, n *Node) []Profile {
	out := []Profile{}
	for _, p := range Profiles {
		if k, _ := n.failure(g, p); k == "" {
			out = append(out, p)
		}
	}
	return out
}

// graphFailure is the first input, scalar or node of one graph that does
// not meet profile, in §8.5's visit order, or nil.
func graphFailure(gb *GraphBounds, profile Profile) *Failure {
	w := width(profile, classTensor)
	g := gb.Graph
	for i, in := range g.Inputs {
		t := g.Tensors[in.Tensor]
		if b := iv64(t.Lo, t.Hi).Bits(); b > w {
			return &Failure{Graph: gb.Name, Where: "input", Index: i, Key: "range", Bits: b}
		}
	}
	for i, s := range g.Scalars {
		if b := iv64(s.Lo, s.Hi).Bits(); b > w {
			return &Failure{Graph: gb.Name, Where: "scalar", Index: i, Key: "range", Bits: b}
		}
	}
	for i := range gb.Nodes {
		if k, b := gb.Nodes[i].failure(g, profile); k != "" {
			return &Failure{Graph: gb.Name, Where: "node", Index: i, Key: k, Bits: b}
		}
	}
	return nil
}

// npuOps are the operators §5's table marks "no" for wai-ops/1-npu.
var npuOps = map[whg1.Opcode]bool{
	whg1.OpIGDN: true, whg1.OpLayerNormC: true, whg1.OpL2Norm: true, whg1.OpSoftmax: true,
	whg1.OpSigmoid: true, whg1.OpElu: true, whg1.OpGram: true, whg1.OpApply: true,
}

// npuReasons adds one graph's §9.2 reasons other than "acc32" to set.
func npuReasons(g *whg1.Graph, set map[string]bool) {
	for i := range g.Ops {
		op := &g.Ops[i]
		if npuOps[op.Code] {
			set["op:"+op.Code.String()] = true
		}
		switch p := op.Params.(type) {
		case *whg1.Conv:
			// §9.2: groups 1, or depthwise (groups = cin = cout).
			cin := g.Tensors[op.In[0]].Channels
			if p.Groups != 1 && (p.Groups != cin || p.Cout != cin) {
				set["conv_groups"] = true
			}
		case *whg1.Crop:
			if p.Y0.Scalar || p.X0.Scalar || p.H.Scalar || p.W.Scalar {
				set["crop_scalar"] = true
			}
		}
	}
}

// verdict decides the verdict of the graphs, in order (§8.5).
func verdict(graphs []GraphBounds) Verdict {
	var v Verdict
	for _, p := range Profiles {
		var f *Failure
		for i := range graphs {
			if f = graphFailure(&graphs[i], p); f != nil {
				break
			}
		}
		if p == Acc32 {
			v.Acc32, v.Acc32Failure = f == nil, f
		} else {
			v.Acc64, v.Acc64Failure = f == nil, f
		}
	}
	reasons, flags := map[string]bool{string(Acc32): !v.Acc32}, map[string]bool{}
	for i := range graphs {
		npuReasons(graphs[i].Graph, reasons)
		for _, n := range graphs[i].Nodes {
			for _, f := range n.NPUFlags {
				flags[f] = true
			}
		}
	}
	v.NPUReasons, v.NPUFlags = sortedKeys(reasons), sortedKeys(flags)
	v.NPU = len(v.NPUReasons) == 0
	return v
}
