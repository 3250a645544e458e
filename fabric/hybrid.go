package fabric

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// DefaultMinWork is the work (multiply-accumulates, or elements for an
// operator without a sum; see workOf) below which an acc32 run stays on the
// CPU. Measured with BenchmarkHybridCrossover (an 8-channel 3×3 conv, Mesa
// llvmpipe under Xvfb, 2 shared cores): a GPU run costs 0.5–0.9 ms however
// small (upload, dispatch, download), in which the CPU reference does
// 0.6–1.0 G MAC/s × 0.7 ms ≈ 2^19 MACs, so no GPU with that round trip can
// win below 2^19. On llvmpipe itself the GPU never wins: 0.1–0.2 G MAC/s
// against the CPU's 0.6–1.0 from 2^11 to 2^23 MACs, so there is no
// crossover there, and the hybrid stays opt-in.
const DefaultMinWork = 1 << 19

// HybridFabric is the hybrid acc64 fabric: an acc64
// implementation that runs the nodes whose certificate says they fit acc32
// on an acc32 fabric (the GL one) and the rest on the CPU reference, with
// tensors moved between as tensor.T. §6 allows partitioning across devices,
// and every operator is an exact function (§4), so its outputs equal the CPU
// reference's.
type HybridFabric struct {
	gpu Fabric
	// MinWork is the least work, at the graph's declared sizes, for which an
	// acc32 run is placed on the GPU (DefaultMinWork unless set; 0 places
	// every acc32 run there).
	MinWork uint64
}

// NewHybrid returns the hybrid fabric over gpu, an acc32 fabric, with the
// default threshold.
func NewHybrid(gpu Fabric) *HybridFabric { return &HybridFabric{gpu: gpu, MinWork: DefaultMinWork} }

func (*HybridFabric) Name() string             { return string(Hybrid) }
func (*HybridFabric) Profile() certify.Profile { return certify.Acc64 }

// Identity names both fabrics: the CPU reference's keys prefixed "cpu_",
// the acc32 fabric's prefixed "gpu_", and the threshold.
func (h *HybridFabric) Identity() map[string]string {
	id := map[string]string{"fabric": "hybrid", "min_work": strconv.FormatUint(h.MinWork, 10)}
	for k, v := range NewCPU().Identity() {
		id["cpu_"+k] = v
	}
	for k, v := range h.gpu.Identity() {
		id["gpu_"+k] = v
	}
	return id
}

// Run is one run of a hybrid program: operators [First, End) in graph order,
// placed on Fabric ("gpu" or "cpu").
type Run struct {
	First, End int
	Fabric     string
	// Acc32 is set when every node of the run fits acc32 and reads tensors
	// whose intervals fit i32; Work is then the run's work at the declared
	// sizes (math.MaxUint64 when the graph does not declare them).
	Acc32 bool
	Work  uint64
	// Why says why an acc32 run is on the CPU ("" otherwise).
	Why string
}

// HybridProgram is a graph loaded on the hybrid fabric. Its fields are
// read-only after Load, but for closed.
type HybridProgram struct {
	g    *whg1.Graph
	runs []hybridRun
	// drop[i] lists the tensors a decode lets go of once run i has run:
	// whg1.Graph.Drops of the run's operators.
	drop   [][]uint32
	closed atomic.Bool
}

// hybridRun is one run loaded as a sub-graph: in and out are the original
// graph's tensors that are the sub-graph's inputs and outputs, in order.
type hybridRun struct {
	Run
	dec     whg1.Decoder
	in, out []uint32
}

// Load loads b against acc64 (§10.5, §8.6), then partitions its operators,
// in graph order, into maximal runs of nodes that fit acc32 and read only
// tensors whose intervals fit i32, and runs of the others. An acc32 run
// whose work reaches MinWork becomes a sub-graph loaded on the GPU; if that
// sub-graph does not meet acc32 on its own, or the GPU cannot load it, it
// runs on the CPU. Adjacent CPU runs are joined and loaded on the CPU
// reference.
func (h *HybridFabric) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	g, cert, err := certify.Load(b, certify.Acc64)
	if err != nil {
		return nil, nil, err
	}
	p, err := h.load(g, cert)
	return p, g, err
}

// LoadCertified is Load of a graph already parsed and certified on its own.
func (h *HybridFabric) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	if err := cert.Verdict.Admit(certify.Acc64); err != nil {
		return nil, err
	}
	return h.load(g, cert)
}

func (h *HybridFabric) load(g *whg1.Graph, cert *certify.Certificate) (*HybridProgram, error) {
	gb := &cert.Graphs[0]
	declared, err := g.DeclaredShapes()
	if err != nil {
		return nil, err
	}
	p := &HybridProgram{g: g}
	for _, r := range partition(g, gb) {
		hr := hybridRun{Run: r}
		if r.Acc32 {
			hr.Work = runWork(g, declared, r.First, r.End)
			if hr.Work >= h.MinWork {
				if err := hr.load(h.gpu, g, gb, declared); err != nil {
					hr.Why = "the GPU did not load it: " + err.Error()
				}
			} else {
				hr.Why = fmt.Sprintf("work %d is under the threshold %d", hr.Work, h.MinWork)
			}
		}
		if hr.dec == nil {
			hr.Fabric = "cpu"
			if n := len(p.runs); n > 0 && p.runs[n-1].dec == nil {
				p.runs[n-1].End = r.End // join the CPU run before it
				p.runs[n-1].Acc32, p.runs[n-1].Work, p.runs[n-1].Why = false, 0, ""
				continue
			}
		}
		p.runs = append(p.runs, hr)
	}
	cpu := NewCPU()
	drops := g.Drops()
	p.drop = make([][]uint32, len(p.runs))
	for i := range p.runs {
		r := &p.runs[i]
		if r.dec == nil {
			if err := r.load(cpu, g, gb, declared); err != nil {
				p.Close() // the GPU runs loaded so far
				return nil, fmt.Errorf("hybrid: ops %d–%d on the CPU: %w", r.First, r.End-1, err)
			}
		}
		p.drop[i] = slices.Concat(drops[r.First:r.End]...)
	}
	return p, nil
}

// partition splits g's operators into maximal runs of acc32 nodes (§8.5
// "What a node fits", and every input tensor's certified interval within
// i32 so that it crosses into a 32-bit fabric unchanged) and of the others.
func partition(g *whg1.Graph, gb *certify.GraphBounds) []Run {
	var runs []Run
	for i, op := range g.Ops {
		ok := slices.Contains(gb.Nodes[i].Fits, certify.Acc32)
		for _, t := range op.In {
			ok = ok && gb.Tensors[t].Bits() <= 32
		}
		if n := len(runs); n > 0 && runs[n-1].Acc32 == ok {
			runs[n-1].End = i + 1
			continue
		}
		runs = append(runs, Run{First: i, End: i + 1, Acc32: ok})
	}
	return runs
}

// load builds the run's sub-graph, encodes it and loads it on f.
func (r *hybridRun) load(f Fabric, g *whg1.Graph, gb *certify.GraphBounds, declared []tensor.Shape) error {
	sub, in, out, err := subGraph(g, gb, declared, r.First, r.End)
	if err != nil {
		return err
	}
	dec, _, err := f.Load(whg1.Encode(sub))
	if err != nil {
		return err
	}
	r.dec, r.in, r.out, r.Fabric = dec, in, out, f.Name()
	return nil
}

// subGraph is operators [first, end) of g as a graph of their own. The
// tensors they read and do not produce become its data inputs, in order of
// first reading, each with policy clamp and its certified interval as range:
// a no-op on every value the certificate bounds, so the sub-graph's bounds
// pass gives every node the interval it has in g. Their declared sizes are
// their shapes planned on g's declared sizes (every shape rule is
// non-decreasing, so no decode passes them), or 0 when g declares none. Its
// outputs are the tensors it produces that a later operator or g's outputs
// read (the last operator's first output when none is, so that the run
// still runs, and refuses where g would). Scalars are carried over whole, so
// their indices do not change.
func subGraph(g *whg1.Graph, gb *certify.GraphBounds, declared []tensor.Shape, first, end int) (*whg1.Graph, []uint32, []uint32, error) {
	sub := &whg1.Graph{Version: g.Version, OpSet: g.OpSet, MaxElems: g.MaxElems, Scalars: g.Scalars}
	id := map[uint32]uint32{}
	var in, out []uint32
	for _, op := range g.Ops[first:end] {
		for _, t := range op.In {
			if _, ok := id[t]; ok {
				continue
			}
			lo, hi, ok := gb.Tensors[t].Int64()
			if !ok {
				return nil, nil, nil, fmt.Errorf("tensor %d: interval %v passes i64", t, gb.Tensors[t])
			}
			rec := whg1.Input{Tensor: uint32(len(sub.Tensors))}
			if declared != nil {
				rec.MaxH, rec.MaxW = uint32(declared[t].H), uint32(declared[t].W)
			}
			id[t] = rec.Tensor
			in = append(in, t)
			sub.Inputs = append(sub.Inputs, rec)
			sub.Tensors = append(sub.Tensors, whg1.Tensor{Channels: g.Tensors[t].Channels,
				Exponent: g.Tensors[t].Exponent, Policy: whg1.Clamp, Lo: lo, Hi: hi})
		}
		for _, t := range op.Out {
			id[t] = uint32(len(sub.Tensors))
			sub.Tensors = append(sub.Tensors, g.Tensors[t])
		}
		sub.Ops = append(sub.Ops, whg1.Op{Code: op.Code, In: remap(op.In, id), Out: remap(op.Out, id), Params: op.Params})
	}
	read := map[uint32]bool{}
	for _, op := range g.Ops[end:] {
		for _, t := range op.In {
			read[t] = true
		}
	}
	for _, t := range g.Outputs {
		read[t] = true
	}
	for _, op := range g.Ops[first:end] {
		for _, t := range op.Out {
			if read[t] {
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, g.Ops[end-1].Out[0])
	}
	sub.Outputs = remap(out, id)
	return sub, in, out, nil
}

func remap(ts []uint32, id map[uint32]uint32) []uint32 {
	out := make([]uint32, len(ts))
	for k, t := range ts {
		out[k] = id[t]
	}
	return out
}

// runWork is the work of operators [first, end) on the declared shapes: the
// sum of each operator's workOf, saturating; math.MaxUint64 when g does not
// declare its sizes (its tensors may then reach the caps).
func runWork(g *whg1.Graph, declared []tensor.Shape, first, end int) uint64 {
	if declared == nil {
		return math.MaxUint64
	}
	w := uint64(0)
	for i := first; i < end; i++ {
		s, c := bits.Add64(w, workOf(&g.Ops[i], declared), 0)
		if c != 0 {
			return math.MaxUint64
		}
		w = s
	}
	return w
}

// workOf is an operator's multiply-accumulates (§5.2, §5.3, §5.9): conv
// forms Cout·Ho·Wo·(Cin/groups)·KH·KW products, conv_transpose
// Cin·H·W·Cout·KH·KW, gram C·d·H·W and apply C·H·W·d; any other operator
// counts its output elements.
func workOf(op *whg1.Op, shapes []tensor.Shape) uint64 {
	x, y := shapes[op.In[0]], shapes[op.Out[0]]
	switch p := op.Params.(type) {
	case *whg1.Conv:
		return mulSat(elems(y), uint64(x.C)/uint64(p.Groups), uint64(p.KH), uint64(p.KW))
	case *whg1.ConvT:
		return mulSat(elems(x), uint64(p.Cout), uint64(p.KH), uint64(p.KW))
	case *whg1.Contraction:
		if op.Code == whg1.OpGram {
			return mulSat(elems(y), uint64(x.H), uint64(x.W)) // y is [C, 1, d]
		}
		return mulSat(elems(shapes[op.In[1]]), uint64(x.W)) // x is A [C, 1, d]
	}
	w := uint64(0)
	for _, t := range op.Out {
		w += elems(shapes[t]) // at most 4 outputs of at most 2^26 elements
	}
	return w
}

func elems(s tensor.Shape) uint64 { return uint64(s.C) * uint64(s.H) * uint64(s.W) }

// mulSat is the product of vs, saturating at math.MaxUint64.
func mulSat(vs ...uint64) uint64 {
	p := uint64(1)
	for _, v := range vs {
		hi, lo := bits.Mul64(p, v)
		if hi != 0 {
			return math.MaxUint64
		}
		p = lo
	}
	return p
}

// Close releases the runs loaded on the GL fabric (their gpu.Programs). A
// second Close does nothing; a Decode after Close returns ErrClosed.
func (p *HybridProgram) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	var errs []error
	for _, r := range p.runs {
		if c, ok := r.dec.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Runs lists the program's runs in graph order.
func (p *HybridProgram) Runs() []Run {
	rs := make([]Run, len(p.runs))
	for i, r := range p.runs {
		rs[i] = r.Run
	}
	return rs
}

// Decode runs one decode (§4). Run steps 1–3 are whg1's PlanRun on the
// whole graph, so a plan refusal is the whole graph's, in its order; step 4
// applies the input policies here on the CPU, in input-table order (a check
// input refuses with field_range before any run), then runs each run in
// graph order on its fabric. A check tensor's producer never fits acc32
// (§8.5), so it runs on the CPU and refuses there, in graph order; an acc32
// run forms no value that can refuse (§7.2). The inputs are not modified.
func (p *HybridProgram) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	if p.closed.Load() {
		return nil, ErrClosed
	}
	if _, err := p.g.PlanInputs(inputs, scalars); err != nil {
		return nil, err
	}
	return p.evaluate(inputs, scalars)
}

// DecodePlanned is Decode of a decode planned on the program's graph
// (whg1.Graph.PlanData, whg1.Sequence): the whole graph is not planned
// again (each run plans its own sub-graph). A decode planned on another
// graph is planned here.
func (p *HybridProgram) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	if r.Graph() != p.g {
		return p.Decode(r.Inputs(), r.Plan().Scalars)
	}
	if p.closed.Load() {
		return nil, ErrClosed
	}
	return p.evaluate(r.Inputs(), r.Plan().Scalars)
}

// evaluate is §4 run step 4 of a planned decode, run by run.
func (p *HybridProgram) evaluate(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	g := p.g
	vals := make([]*tensor.T, len(g.Tensors))
	for i, t := range inputs {
		rec := g.Inputs[i]
		v := &tensor.T{Shape: t.Shape, Data: slices.Clone(t.Data)}
		if err := whg1.ApplyPolicy(g.Tensors[rec.Tensor], v.Data, fmt.Sprintf("input %d (tensor %d)", i, rec.Tensor)); err != nil {
			return nil, err
		}
		vals[rec.Tensor] = v
	}
	for i, r := range p.runs {
		in := make([]*tensor.T, len(r.in))
		for k, t := range r.in {
			in[k] = vals[t]
		}
		out, err := r.dec.Decode(in, scalars)
		if err != nil {
			var re *refusal.Error
			if errors.As(err, &re) {
				return nil, refusal.New(re.Code, "ops %d–%d on the %s: %s", r.First, r.End-1, r.Fabric, re.Msg)
			}
			return nil, fmt.Errorf("hybrid: ops %d–%d on the %s: %w", r.First, r.End-1, r.Fabric, err)
		}
		for k, t := range r.out {
			vals[t] = out[k]
		}
		for _, t := range p.drop[i] {
			vals[t] = nil
		}
	}
	return g.GatherOutputs(vals), nil
}
