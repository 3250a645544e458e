package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
	"gonum.org/v1/gonum/stat"
)

// Step is where one operator of a network's decode spends its time,
// measured by running that operator alone as a one-op graph on the
// previous step's outputs. A fusion across operators inside the whole
// graph is not seen this way; the report sets the steps' sum beside the
// whole decode's time for that reason.
type Step struct {
	Index    int     `json:"index"`
	Op       string  `json:"op"`
	Out      string  `json:"out"` // the output's shape, C×H×W
	MedianNS float64 `json:"median_ns"`
	Err      string  `json:"error,omitempty"`
}

// stepGraph is op i of g alone: its input tensor becomes a graph input,
// checked (§10.2 policy check) against the interval it has in g, which a
// clamped or checked tensor's values meet, of the shape given.
func stepGraph(g *whg1.Graph, i int, in tensor.Shape) ([]byte, error) {
	op := g.Ops[i]
	if len(op.In) != 1 || len(op.Out) != 1 {
		return nil, fmt.Errorf("op %d (%s): a step takes one input and one output", i, op.Code)
	}
	t := g.Tensors[op.In[0]]
	if t.Policy == whg1.Derived {
		return nil, fmt.Errorf("op %d (%s): its input has no declared interval", i, op.Code)
	}
	t.Policy = whg1.Check
	out := g.Tensors[op.Out[0]]
	op.In, op.Out = []uint32{0}, []uint32{1}
	sg := &whg1.Graph{Version: g.Version, OpSet: g.OpSet, MaxElems: g.MaxElems,
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: uint32(in.H), MaxW: uint32(in.W)}},
		Tensors: []whg1.Tensor{t, out}, Ops: []whg1.Op{op}, Outputs: []uint32{1}}
	return whg1.Encode(sg), nil
}

// runSteps times each op of c's graph alone on f, in order, each on the
// previous one's outputs, and returns the last step's outputs, which are
// the whole graph's (a chain of one-op graphs computes the same integers).
// A step that fails ends the walk with its error and no outputs.
func runSteps(f fabric.Fabric, c *Case, opt Options) ([]Step, []*tensor.T) {
	g, err := whg1.Parse(c.Graph)
	if err != nil {
		return []Step{{Err: err.Error()}}, nil
	}
	x := c.Input
	var steps []Step
	for i, op := range g.Ops {
		s := Step{Index: i, Op: op.Code.String()}
		b, err := stepGraph(g, i, x[0].Shape)
		if err != nil {
			s.Err = err.Error()
			return append(steps, s), nil
		}
		fig, outs := measure(f, &Case{Op: s.Op, Graph: b, Input: x, Work: 1, Unit: "op"}, opt)
		if fig.Err != "" {
			s.Err = fig.Err
			return append(steps, s), nil
		}
		s.MedianNS = fig.MedianNS
		s.Out = fmt.Sprintf("%d×%d×%d", outs[0].Shape.C, outs[0].Shape.H, outs[0].Shape.W)
		steps = append(steps, s)
		x = outs
	}
	return steps, x
}

// decodeSteps times each step inside whole decodes of c on the CPU fabric
// (cpuref's DecodeTimed): opt.Warmup untimed decodes, then opt.Runs timed
// ones, each step's median. Unlike runSteps it sees what the whole graph
// does: the relu, clamp and leaky ops folded into their producers' steps
// (they have no step of their own) and the tensors kept at i8 width
// between steps. It returns the last decode's outputs.
func decodeSteps(c *Case, opt Options) ([]Step, []*tensor.T) {
	p, _, err := cpuref.LoadBytes(c.Graph)
	if err != nil {
		return []Step{{Err: err.Error()}}, nil
	}
	g := p.Graph()
	pl, err := g.PlanInputs(c.Input, nil)
	if err != nil {
		return []Step{{Err: err.Error()}}, nil
	}
	ns := map[int][]float64{}
	var order []int
	var outs []*tensor.T
	for k := range opt.Warmup + max(1, opt.Runs) {
		outs, err = p.DecodeTimed(c.Input, nil, func(op int, d time.Duration) {
			if k < opt.Warmup {
				return
			}
			if _, ok := ns[op]; !ok {
				order = append(order, op)
			}
			ns[op] = append(ns[op], float64(d.Nanoseconds()))
		})
		if err != nil {
			return []Step{{Err: err.Error()}}, nil
		}
	}
	steps := make([]Step, 0, len(order))
	for _, i := range order {
		slices.Sort(ns[i])
		sh := pl.Shapes[g.Ops[i].Out[0]]
		steps = append(steps, Step{Index: i, Op: g.Ops[i].Code.String(), Out: fmt.Sprintf("%d×%d×%d", sh.C, sh.H, sh.W),
			MedianNS: stat.Quantile(0.5, stat.Empirical, ns[i], nil)})
	}
	return steps, outs
}
