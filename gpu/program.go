//go:build cgo

package gpu

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/go-gl/gl/v4.3-core/gl"
	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Program is a graph loaded on the device against acc32: each operator's
// parameters live on the device from Load until Close. It implements
// whg1.Decoder; decodes through one Program are serialised on the GL thread.
type Program struct {
	d    *Device
	g    *whg1.Graph
	ops  []prepared
	prm  []*buffer  // each operator's parameter array, nil where it has none
	drop [][]uint32 // the tensors freed once each operator has run (whg1.Graph.Drops)
	pool pool       // the tensors' buffers, kept between decodes
	// inW and outW are each graph input's and output's wire width in
	// bytes (wire.go), from the certificate; st holds their staging
	// buffers. tensorW is every tensor's: a tensor between operators is
	// stored at it too, packed, where the device packs them
	// (Device.packs).
	inW, outW, tensorW []wire
	st                 stages
	// direct maps a graph output's tensor to its index in g.Outputs where
	// its producer stores it packed straight into its staging buffer
	// (writePackedStore), with no wire.comp pass: an output narrower than
	// i32, produced by an operator, read by none, and listed once.
	direct map[uint32]int
	// skip marks the relu and clamp operators folded into their input's
	// producer, and into maps each such input to its operator (folds).
	skip   []bool
	into   map[uint32]int
	closed bool // set by Close, on the GL thread
	// held is the device memory the program holds (its parameters and
	// its pool), in bytes, as of its last load or decode.
	held atomic.Int64
}

var _ whg1.Decoder = (*Program)(nil)

// opCall is one operator's dispatch at one decode: its tensors on the
// device with their planned shapes.
type opCall struct {
	in, out   []*buffer
	inS, outS []tensor.Shape
	pl        *whg1.Plan
	prm       *buffer
}

// prepared is an operator made ready at Load: its parameters as one int32
// array for the prm slot, and the dispatch that runs it.
type prepared struct {
	prm []int32
	run func(d *Device, c *opCall) error
}

// preps holds each operator's preparation, registered from the file that
// dispatches its shader (docs/CONVENTIONS.md §1). The 25 of wai-ops/1-i32 (§9.1).
// Each takes the operator's node of the certificate (§8.5), whose
// intervals choose the shader variant: a 32-bit product where the
// certified interval fits i32, the 16-bit-half form of §7.3 where not.
var preps = map[whg1.Opcode]func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error){}

// nodeBounds is an operator's node of the certificate.
type nodeBounds = certify.Node

// Load reads a WHG1 graph against acc32 (§8.6, §10.5): certify.Load refuses
// a graph whose verdict does not meet acc32 with model_mismatch. It then
// prepares every operator and uploads its parameters.
func (d *Device) Load(b []byte) (*Program, error) {
	g, cert, err := certify.Load(b, certify.Acc32)
	if err != nil {
		return nil, err
	}
	return d.LoadCertified(g, cert)
}

// LoadCertified is Load of a graph already parsed and certified (the
// certificate of g on its own, certify.Graph): the verdict is checked
// against acc32 (§8.6), and the graph is not parsed again.
func (d *Device) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (*Program, error) {
	if err := cert.Verdict.Admit(certify.Acc32); err != nil {
		return nil, err
	}
	var err error
	p := &Program{d: d, g: g, ops: make([]prepared, len(g.Ops)), prm: make([]*buffer, len(g.Ops))}
	for i := range g.Ops {
		op := &g.Ops[i]
		prep := preps[op.Code]
		if prep == nil {
			// §7.3: an acc32 graph uses only wai-ops/1-i32, so the
			// certificate has already refused this.
			return nil, refusal.New(refusal.ModelMismatch, "op %d (%s) is outside wai-ops/1-i32", i, op.Code)
		}
		if p.ops[i], err = prep(g, op, &cert.Graphs[0].Nodes[i]); err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i, op.Code, err)
		}
		if int64(len(p.ops[i].prm))*4 > d.lim.MaxSSBOBytes {
			return nil, fmt.Errorf("gpu: op %d (%s): %d parameters pass one storage binding", i, op.Code, len(p.ops[i].prm))
		}
	}
	p.drop = g.Drops()
	tb := cert.Graphs[0].Tensors
	for _, in := range g.Inputs {
		p.inW = append(p.inW, wireOf(tb[in.Tensor]))
	}
	for _, t := range g.Outputs {
		p.outW = append(p.outW, wireOf(tb[t]))
	}
	p.direct = directOutputs(g, p.outW)
	p.skip, p.into = folds(g)
	p.tensorW = make([]wire, len(g.Tensors))
	for t, iv := range tb {
		p.tensorW[t] = wireOf(iv)
	}
	p.st = stages{in: make([]*buffer, len(g.Inputs)), out: make([]*buffer, len(g.Outputs))}
	live.programs.Add(1)
	err = d.th.call(func() error {
		for i, op := range p.ops {
			if op.prm != nil {
				p.prm[i] = d.upload(op.prm)
				p.ops[i].prm = nil // the device holds them now
			}
		}
		p.held.Store(p.bytes())
		return glError("uploading parameters")
	})
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Graph is the loaded graph.
func (p *Program) Graph() *whg1.Graph { return p.g }

// DeviceBytes is the device memory the program holds: its parameters, the
// tensor buffers it keeps between decodes (one decode's working set, as of
// its last decode) and its inputs' and outputs' staging buffers. Close
// frees all of it.
func (p *Program) DeviceBytes() int64 { return p.held.Load() }

// bytes counts DeviceBytes, on the GL thread.
func (p *Program) bytes() int64 {
	n := p.pool.bytes() + p.st.bytes()
	for _, b := range p.prm {
		if b != nil {
			n += b.bytes()
		}
	}
	return n
}

// Close releases the parameters on the device. A second Close does
// nothing; a Decode after Close returns ErrClosed. Once the context is
// lost, Close forgets what the program held (it went with the context)
// and returns ErrLost.
func (p *Program) Close() error {
	return p.d.th.release(func() error {
		p.letGo((*buffer).free, true)
		return nil
	}, func() { p.letGo((*buffer).forget, false) })
}

// letGo passes each parameter, tensor and staging buffer to drop once, on
// the GL thread; held is whether the context still holds them.
func (p *Program) letGo(drop func(*buffer), held bool) {
	if p.closed {
		return
	}
	for _, b := range p.prm {
		drop(b)
	}
	p.pool.release(drop)
	p.st.release(drop, held)
	p.held.Store(0)
	p.closed = true
	live.programs.Add(-1)
}

// Decode runs one decode (§4): run steps 1–3 are whg1's PlanRun; step 4
// applies the input policies on the host, uploads the inputs, runs every
// operator on the device, keeping every intermediate there, and downloads
// only the outputs. inputs holds every input in input-table order, state
// inputs included (whg1.Sequence builds them).
func (p *Program) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	pl, err := p.g.PlanInputs(inputs, scalars)
	if err != nil {
		return nil, err
	}
	return p.decodeOutputs(pl, inputs)
}

// DecodePlanned is Decode of a decode planned on the program's graph
// (whg1.Graph.PlanData, whg1.Sequence): step 4 only, nothing planned or
// checked again. A decode planned on another graph is planned here.
func (p *Program) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	if r.Graph() != p.g {
		return p.Decode(r.Inputs(), r.Plan().Scalars)
	}
	return p.decodeOutputs(r.Plan(), r.Inputs())
}

// decodeOutputs is step 4 of a decode planned as pl, its outputs read back:
// each packed at its wire width on the device into its staging buffer,
// then widened from there into the output tensor, the one host pass over
// its elements.
func (p *Program) decodeOutputs(pl *whg1.Plan, inputs []*tensor.T) ([]*tensor.T, error) {
	g, d := p.g, p.d
	var res []*tensor.T
	err := p.decodePlanned(pl, inputs, true, func(_ *whg1.Plan, vals []*buffer) error {
		if err := p.packOutputs(pl, vals); err != nil {
			return err
		}
		res = make([]*tensor.T, len(g.Outputs))
		for k, t := range g.Outputs {
			o := tensor.New(pl.Shapes[t])
			w := p.outW[k]
			unpackInto(o.Data, d.get(p.st.out[k], w.len(len(o.Data))), w)
			tally.Widened.Add(1)
			res[k] = o
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// packOutputs packs each output into its staging buffer at its wire width
// (one an output its producer stored there packed already has) and waits
// until the host can read them.
func (p *Program) packOutputs(pl *whg1.Plan, vals []*buffer) error {
	d := p.d
	for k, t := range p.g.Outputs {
		n, w := pl.Shapes[t].Elems(), p.outW[k]
		s := d.stage(&p.st.out[k], w.len(n)/4)
		if vals[t] == s {
			continue // its producer stored it packed
		}
		s.wire, s.clamp = wire{}, false
		if err := d.pack(s, vals[t], n, w); err != nil {
			return fmt.Errorf("output %d: %w", k, err)
		}
	}
	d.settle()
	return glError("reading the outputs back")
}

// DecodeBytesPlanned is DecodePlanned of a graph whose one output's
// certified interval lies inside [0, 255] (a picture: wire.go's u8), its
// values returned as they crossed from the device, one byte each, channel
// planes in order, with its shape: no host pass through int64. Any other
// graph gives ErrNotBytes, and decodes nothing.
func (p *Program) DecodeBytesPlanned(r *whg1.Planned) (tensor.Shape, []byte, error) {
	if len(p.outW) != 1 || p.outW[0] != (wire{1, true}) {
		return tensor.Shape{}, nil, ErrNotBytes
	}
	pl := r.Plan()
	if r.Graph() != p.g {
		var err error
		if pl, err = p.g.PlanInputs(r.Inputs(), pl.Scalars); err != nil {
			return tensor.Shape{}, nil, err
		}
	}
	s := pl.Shapes[p.g.Outputs[0]]
	var out []byte
	err := p.decodePlanned(pl, r.Inputs(), true, func(_ *whg1.Plan, vals []*buffer) error {
		if err := p.packOutputs(pl, vals); err != nil {
			return err
		}
		out = slices.Clone(p.d.get(p.st.out[0], s.Elems()))
		return nil
	})
	if err != nil {
		return tensor.Shape{}, nil, err
	}
	return s, out, nil
}

// decodePlanned is a decode planned as pl up to its outputs: the input
// policies on the host, then, on the GL thread, every operator, and finish
// given the plan and every tensor's buffer while the outputs are still on
// the device. With direct, the outputs in p.direct are stored by their
// producers packed into their staging buffers, which finish then finds as
// their buffers.
func (p *Program) decodePlanned(pl *whg1.Plan, inputs []*tensor.T, direct bool, finish func(*whg1.Plan, []*buffer) error) error {
	g := p.g
	var err error
	host := make([][]byte, len(inputs))
	for i, t := range inputs {
		if host[i], err = inputPolicy(g, i, t.Data, p.inW[i]); err != nil {
			return err
		}
	}
	return p.d.th.call(func() error {
		if p.closed {
			return ErrClosed
		}
		return p.run(pl, host, direct, finish)
	})
}

// run is a decode's device part, on the GL thread. Each tensor's buffer
// comes from the program's pool and goes back to it once the tensor's last
// producer or reader has run, and the outputs' after finish.
func (p *Program) run(pl *whg1.Plan, host [][]byte, direct bool, finish func(*whg1.Plan, []*buffer) error) error {
	g, d := p.g, p.d
	vals := make([]*buffer, len(g.Tensors))
	// The last decode's dispatches may still read the input stages.
	waitFence(p.st.fence)
	p.st.fence = 0
	defer func() {
		if d.mapStaging {
			p.st.fence = gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
		}
		p.pool.trim()
		p.held.Store(p.bytes())
	}()
	// Each input's readers read its staging buffer, unpacking its width
	// (buffer.wire): no widening pass, no tensor buffer of its own.
	for i, in := range g.Inputs {
		s := d.stage(&p.st.in[i], len(host[i])/4)
		d.put(s, host[i])
		s.wire = p.inW[i]
		vals[in.Tensor] = s
	}
	for i := range g.Ops {
		if p.skip[i] {
			// Its input's producer stored its output (folds).
			p.dropAfter(i, vals)
			continue
		}
		op := &g.Ops[i]
		c := &opCall{pl: pl, prm: p.prm[i]}
		for _, t := range op.In {
			c.in = append(c.in, vals[t])
			c.inS = append(c.inS, pl.Shapes[t])
		}
		for _, t := range op.Out {
			// An output that folded operators read is stored, through
			// their clamps, in the last one's buffer (folds).
			t, policy := p.folded(t)
			if k, ok := p.direct[t]; ok && direct {
				n, w := pl.Shapes[t].Elems(), p.outW[k]
				vals[t] = d.stage(&p.st.out[k], w.len(n)/4)
				d.clearStage(vals[t], w.len(n)/4)
				vals[t].wire = w
			} else if n, w := pl.Shapes[t].Elems(), p.tensorW[t]; d.packs && w.bytes < 4 {
				// Packed at its certified width: its producer ORs
				// each element's field into a cleared word
				// (writePackedStore), its readers extract it.
				vals[t] = p.pool.take(d, w.len(n)/4)
				d.clearPacked(vals[t], w.len(n)/4)
				vals[t].wire = w
			} else {
				vals[t] = p.pool.take(d, n)
			}
			b := vals[t]
			b.clamp, b.lo, b.hi = policy != anyI32, policy.lo, policy.hi
			c.out = append(c.out, b)
			c.outS = append(c.outS, pl.Shapes[t])
		}
		if err := p.ops[i].run(d, c); err != nil {
			return fmt.Errorf("op %d (%s): %w", i, op.Code, err)
		}
		p.dropAfter(i, vals)
	}
	if err := glError("a decode"); err != nil {
		return err
	}
	return finish(pl, vals)
}

// dropAfter gives back the buffers of the tensors whose last reader is
// operator i (a tensor only a folded operator read has none).
func (p *Program) dropAfter(i int, vals []*buffer) {
	for _, t := range p.drop[i] {
		p.pool.put(vals[t])
		vals[t] = nil
	}
}

// directOutputs is Program.direct for graph g with output widths outW.
func directOutputs(g *whg1.Graph, outW []wire) map[uint32]int {
	listed := map[uint32]int{}
	for _, t := range g.Outputs {
		listed[t]++
	}
	for _, op := range g.Ops {
		for _, t := range op.In {
			listed[t] = 2 // read by an operator: it needs its tensor buffer
		}
	}
	made := map[uint32]bool{}
	for _, op := range g.Ops {
		for _, t := range op.Out {
			made[t] = true
		}
	}
	direct := map[uint32]int{}
	for k, t := range g.Outputs {
		if outW[k].bytes < 4 && listed[t] == 1 && made[t] {
			direct[t] = k
		}
	}
	return direct
}

// clampBounds narrows clamp bounds (i64 in the model; §5.5 uses ±2^63 for
// an open side) to i32. This is exact under acc32: the value clamped is a
// producer result or tensor element, which fits i32 (§7.2 condition 1), and
// so does the result. For v in i32, clamp(v, lo, hi) equals clamp(v, lo′,
// hi′) with lo′, hi′ the bounds saturated to i32, whenever the result fits
// i32; a bound past i32 that the result would take is excluded by the
// certificate.
func clampBounds(lo, hi int64) (int, int) {
	return int(min(max(lo, math.MinInt32), math.MaxInt32)), int(min(max(hi, math.MinInt32), math.MaxInt32))
}

// policyRun is how many input elements inputPolicy copies at a time.
const policyRun = 1 << 16

// inputPolicy is §4 run step 4 for input i, in input-table order: its
// policy applied to a copy of its elements (the caller's tensor is left as
// it is), run by run, then each element packed at the input's wire width
// w (wire.go), whole words. acc32: every input's declared range fits i32
// (§7.2 condition 1), the policy has put every element in it, and w holds
// its certified interval.
func inputPolicy(g *whg1.Graph, i int, data []int64, w wire) ([]byte, error) {
	rec := g.Inputs[i].Tensor
	out := make([]byte, w.len(len(data)))
	run := make([]int64, min(policyRun, len(data)))
	for at := 0; at < len(data); at += policyRun {
		part := run[:copy(run, data[at:])]
		if err := whg1.ApplyPolicy(g.Tensors[rec], part, fmt.Sprintf("input %d (tensor %d), from element %d", i, rec, at)); err != nil {
			return nil, err
		}
		if err := packInto(out, at, part, w, fmt.Sprintf("input %d", i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// narrow converts values that acc32 certifies to fit i32; one that does not
// fit is refused rather than wrapped (no silent wrap).
func narrow(v []int64, what string) ([]int32, error) {
	out := make([]int32, len(v))
	return out, narrowInto(out, v, what)
}

// narrowInto is narrow into dst.
func narrowInto(dst []int32, v []int64, what string) error {
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return refusal.New(refusal.ModelMismatch, "%s: element %d = %d does not fit i32 (acc32, §7.2)", what, i, x)
		}
		dst[i] = int32(x)
	}
	return nil
}

// unary is the dispatch of a one-input, one-output elementwise kernel over
// the output's elements, with fixed uniforms.
func unary(shader string, defs []string, uni map[string]int) func(d *Device, c *opCall) error {
	return func(d *Device, c *opCall) error {
		return d.elementwise(kernel{shader: shader, defs: defs, in: c.in[:1], out: c.out[0], prm: c.prm, uni: merge(uni, nil)}, c.outS[0].Elems())
	}
}

// merge returns a new map holding a's entries and b's (b's win).
func merge(a, b map[string]int) map[string]int {
	m := make(map[string]int, len(a)+len(b)+1)
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}
