package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// Role is one graph of a parameter set: its role name, its WHG1 bytes (as
// lowered, when lowered) and the graph parsed from them. Sum, when not nil,
// is the SHA-256 of Bytes, already computed by the caller (not hashed
// again).
type Role struct {
	Name  string
	Bytes []byte
	Graph *whg1.Graph
	Sum   *[32]byte
}

// GraphBounds is the bounds pass of one graph.
type GraphBounds struct {
	Name   string
	SHA256 string   // hex of the SHA-256 of the graph's bytes
	Sum    [32]byte // that SHA-256: the graph's digest everywhere it is loaded (§8.6)
	Graph  *whg1.Graph
	// Tensors holds every tensor's interval after its policy (§8.1).
	Tensors []Interval
	Nodes   []Node
}

// Certificate is the bounds certificate of one parameter set (§8.5).
type Certificate struct {
	Capability *string
	Lowering   string
	SetSHA256  *string
	Graphs     []GraphBounds
	Verdict    Verdict
	bytes      []byte
}

// Bytes is the certificate's canonical JSON (§8.5), with no final newline.
func (c *Certificate) Bytes() []byte { return c.bytes }

// Certify runs the bounds pass over the set's graphs, in role order, and
// decides the verdict. capability and setSHA256 are null when nil. A graph
// the pass refuses (an empty check interval, a lut16 input range) gives the
// refusal (model_mismatch); a name outside printable ASCII cannot be
// certified.
func Certify(capability *string, lowering string, setSHA256 *string, roles []Role) (*Certificate, error) {
	return certify(capability, lowering, setSHA256, roles, false)
}

// digest is the role's SHA-256: Sum, or the bytes hashed.
func (r Role) digest() [32]byte {
	if r.Sum != nil {
		return *r.Sum
	}
	return sha256.Sum256(r.Bytes)
}

func certify(capability *string, lowering string, setSHA256 *string, roles []Role, fold bool) (*Certificate, error) {
	c := &Certificate{Capability: capability, Lowering: lowering, SetSHA256: setSHA256}
	for _, r := range roles {
		tensors, nodes, err := bound(r.Graph, fold)
		if err != nil {
			return nil, refusal.New(refusal.ModelMismatch, "graph %q: %s", r.Name, errMsg(err))
		}
		sum := r.digest()
		c.Graphs = append(c.Graphs, GraphBounds{Name: r.Name, SHA256: hex.EncodeToString(sum[:]), Sum: sum,
			Graph: r.Graph, Tensors: tensors, Nodes: nodes})
	}
	c.Verdict = verdict(c.Graphs)
	b, err := cjson.Marshal(c.json())
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	c.bytes = b
	return c, nil
}

// Of is graph i's certificate on its own, what Graph gives for that
// graph's bytes, made from this one without a second bounds pass: the
// graph's bounds (role LoadRole, lowering "whg1", set_sha256 its digest)
// and its own verdict, which decides the fabric it may run on (§8.6). Its
// Bytes are nil: the set's certificate is the one a sink writes.
func (c *Certificate) Of(i int) *Certificate {
	gb := c.Graphs[i]
	gb.Name = LoadRole
	sum := gb.SHA256
	return &Certificate{Lowering: "whg1", SetSHA256: &sum, Graphs: []GraphBounds{gb}, Verdict: verdict([]GraphBounds{gb})}
}

// optString is a string, or null when s is nil.
func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func (c *Certificate) json() map[string]any {
	graphs := make([]any, len(c.Graphs))
	for i := range c.Graphs {
		graphs[i] = c.Graphs[i].json()
	}
	return map[string]any{
		"capability":  optString(c.Capability),
		"certificate": "wai-ops/1 bounds",
		"graphs":      graphs,
		"lowering":    c.Lowering,
		"set_sha256":  optString(c.SetSHA256),
		"verdict":     c.Verdict.json(),
	}
}

// ivJSON is { "bits", "hi", "lo" }.
func ivJSON(iv Interval) map[string]any {
	return map[string]any{"bits": iv.Bits(), "hi": iv.Hi, "lo": iv.Lo}
}

var policyNames = map[whg1.Policy]string{whg1.Derived: "derived", whg1.Clamp: "clamp", whg1.Check: "check"}

func (gb *GraphBounds) json() map[string]any {
	g := gb.Graph
	inputs := make([]any, len(g.Inputs))
	for i, in := range g.Inputs {
		t := g.Tensors[in.Tensor]
		m := map[string]any{"hi": t.Hi, "kind": "data", "lo": t.Lo, "max_h": in.MaxH,
			"max_w": in.MaxW, "policy": policyNames[t.Policy], "tensor": in.Tensor}
		if in.Kind == whg1.StateInput {
			m["kind"], m["init"], m["src"] = "state", in.Init, in.Src
		}
		inputs[i] = m
	}
	scalars := make([]any, len(g.Scalars))
	for i, s := range g.Scalars {
		scalars[i] = map[string]any{"hi": s.Hi, "index": i, "lo": s.Lo}
	}
	nodes := make([]any, len(gb.Nodes))
	for i := range gb.Nodes {
		nodes[i] = gb.Nodes[i].json(g)
	}
	return map[string]any{"graph_sha256": gb.SHA256, "inputs": inputs, "name": gb.Name,
		"nodes": nodes, "scalars": scalars}
}

func (n *Node) json(g *whg1.Graph) map[string]any {
	inter := map[string]any{}
	for k, iv := range n.Intermediates {
		inter[k] = ivJSON(iv)
	}
	out := make([]any, len(n.Out))
	for k, t := range n.op.Out {
		m := ivJSON(n.Out[k])
		m["policy"] = policyNames[g.Tensors[t].Policy]
		m["result"] = ivJSON(n.Results[k])
		m["tensor"] = t
		out[k] = m
	}
	m := map[string]any{
		"acc32_params":  n.Acc32Params,
		"fits":          Strings(n.Fits),
		"index":         n.Index,
		"intermediates": inter,
		"npu_flags":     n.NPUFlags,
		"op":            n.Op.String(),
		"out":           out,
		"saturated":     n.Saturated,
	}
	if n.KCUnbounded {
		m["k_c"] = "unbounded"
	} else if n.KC != nil {
		m["k_c"] = n.KC
	}
	if n.Mac != nil {
		mac := map[string]any{"a_bits": n.Mac.ABits}
		if n.Mac.WBits > 0 {
			mac["w_bits"] = n.Mac.WBits
		}
		m["mac"] = mac
	}
	return m
}

func (f *Failure) json() map[string]any {
	m := map[string]any{"graph": f.Graph, "index": f.Index, "key": f.Key, "where": f.Where}
	if f.Bits > 0 {
		m["bits"] = f.Bits
	}
	return m
}

func (v *Verdict) json() map[string]any {
	m := map[string]any{"acc32": v.Acc32, "acc64": v.Acc64, "npu": v.NPU,
		"npu_flags": v.NPUFlags, "npu_reasons": v.NPUReasons}
	if v.Acc32Failure != nil {
		m["acc32_first_failure"] = v.Acc32Failure.json()
	}
	if v.Acc64Failure != nil {
		m["acc64_first_failure"] = v.Acc64Failure.json()
	}
	return m
}
