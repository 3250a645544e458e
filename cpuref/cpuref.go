// Package cpuref is the exact CPU reference fabric of wai-ops/1 under the
// acc64 profile (integer-operators §4, §5, §7.2): every one of the 30
// graph operators computed on int64 tensors (i8 ones between conv,
// conv_transpose and igdn where the certificate allows, narrow.go), with
// the wide and product intermediates formed exactly in 128 bits.
//
// Use it to decode a parsed WHG1 graph on any machine (Load, then Decode, or
// a whg1.Sequence over the Program), and as the answer every other fabric is
// compared against with ==. It is not a certifier: it does not bound a graph
// (§8), and a value that passes its acc64 width (which a certified graph
// never forms) refuses the decode with model_mismatch rather than wrap.
package cpuref

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Program is a graph loaded on the CPU fabric. Its fields are read-only
// after Load, so one Program serves concurrent Decode calls.
type Program struct {
	g     *whg1.Graph
	steps []step
	// drop[i] lists the tensors a decode lets go of once op i has run
	// (whg1.Graph.Drops).
	drop [][]uint32
	// fz[i] is op i's step once relu, clamp and leaky ops are folded into
	// their producers (fuse.go); a folded op has no step.
	fz []fusion
	// proven[t] says that tensor t's policy cannot change or refuse a
	// value of a decode within the certificate (provenPolicies).
	proven []bool
	// output[t] says that a graph output names tensor t.
	output []bool
	// full[i] says that op i's step writes every element of its outputs
	// (writesAll), so their buffers need not start at zero.
	full []bool
	// narrow[t] says that tensor t is stored at i8 width (narrow.go).
	narrow []bool
	// bufs holds the buffers of dropped tensors for the next decode's
	// tensors of the same length (bufpool.go).
	bufs *bufPool
}

// val is one tensor of a decode as the steps see it: its shape, and its
// elements as int64 in T.Data or, for a tensor the load stores narrow
// (narrow.go), as int8 in i8 with T.Data nil (§3 Storage: any integer type
// that holds the certified range). u8 holds the bytes of a non-negative
// input at u8 width instead, as only Conv8 passes one (conv8.go).
type val struct {
	*tensor.T
	i8 []int8
	u8 []uint8
}

// step runs one operator on its input tensors into its output tensors,
// whose shapes the run-time plan fixed.
type step func(in, out []val, pl *whg1.Plan) error

// Load prepares g, which whg1.Parse has accepted, for decoding.
func Load(g *whg1.Graph) (*Program, error) { return loadBounds(g, nil) }

// loadBounds is Load with the graph's bounds when it has them (gb
// non-nil): each operator's kernel then also sees its certified input
// interval.
func loadBounds(g *whg1.Graph, gb *certify.GraphBounds) (*Program, error) {
	if g == nil {
		return nil, refusal.New(refusal.ModelMismatch, "no graph")
	}
	return loadFused(g, gb, fuse(g, gb))
}

// loadFused is loadBounds with the folding fz (fuse's plan, or one that
// folds nothing).
func loadFused(g *whg1.Graph, gb *certify.GraphBounds, fz []fusion) (*Program, error) {
	p := &Program{g: g, steps: make([]step, len(g.Ops)), drop: g.Drops(),
		fz: fz, proven: provenPolicies(g, gb), output: make([]bool, len(g.Tensors)), full: make([]bool, len(g.Ops)), bufs: &bufPool{}}
	for _, t := range g.Outputs {
		p.output[t] = true
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		var b bounds
		if gb != nil {
			for _, t := range op.In {
				b = append(b, gb.Tensors[t])
			}
		}
		s, err := newStep(g, op, b, p.fz[i].post)
		if err != nil {
			return nil, err
		}
		if post := p.fz[i].post; post != nil && !epilogueHost(op) {
			inner := s
			s = func(in, out []val, pl *whg1.Plan) error {
				if err := inner(in, out, pl); err != nil {
					return err
				}
				post.row(out[0].Data)
				return nil
			}
		}
		if !p.fz[i].gone {
			p.steps[i] = s
		}
		p.full[i] = writesAll(op)
	}
	p.narrow = planNarrow(g, gb, fz, p.proven)
	return p, nil
}

// LoadCertified prepares g, already parsed and certified on its own
// (certify.Graph), for decoding: the verdict is checked against acc64
// (§8.6) and each kernel sees its certified input interval.
func LoadCertified(g *whg1.Graph, cert *certify.Certificate) (*Program, error) {
	if err := cert.Verdict.Admit(certify.Acc64); err != nil {
		return nil, err
	}
	return loadBounds(g, &cert.Graphs[0])
}

// LoadBytes reads WHG1 bytes and loads them against acc64 through the
// certifier (§10.5 steps 1–8, §8.6: a verdict that does not meet acc64 is
// model_mismatch), then prepares the graph. It returns the certificate
// with the program.
func LoadBytes(b []byte) (*Program, *certify.Certificate, error) {
	g, cert, err := certify.Load(b, certify.Acc64)
	if err != nil {
		return nil, nil, err
	}
	p, err := loadBounds(g, &cert.Graphs[0])
	if err != nil {
		return nil, nil, err
	}
	return p, cert, nil
}

// Graph is the loaded graph.
func (p *Program) Graph() *whg1.Graph { return p.g }

// Profile is the profile this fabric implements (§7.2).
func (p *Program) Profile() certify.Profile { return certify.Acc64 }

// Decode runs one decode (§4): inputs holds every input in input-table
// order, state inputs included. Run steps 1–3 are whg1's PlanRun; step 4
// applies the input policies in input-table order, then runs the operators
// in graph order, each output tensor's policy (clamp, or check → field_range)
// right after its producer. A relu, clamp or leaky that fuse folds into its
// producer runs in the producer's step. A refused decode returns no
// outputs. The inputs are not modified, nor copied unless a clamp policy
// changes one or an output names it.
func (p *Program) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return p.decode(inputs, scalars, nil)
}

// DecodeTimed is Decode that reports the wall time of each operator's step
// to took, in graph order, for a profile of where a decode's time goes: op
// i's step runs the relu, clamp and leaky ops fused into it and the
// policies of what it writes; an op folded into an earlier step has no
// step and is not reported.
func (p *Program) DecodeTimed(inputs []*tensor.T, scalars []int64, took func(op int, d time.Duration)) ([]*tensor.T, error) {
	return p.decode(inputs, scalars, took)
}

// DecodePlanned is Decode of a decode planned on the program's graph
// (whg1.Graph.PlanData, whg1.Sequence): step 4 only, nothing planned or
// checked again. A decode planned on another graph is planned here.
func (p *Program) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	if r.Graph() != p.g {
		return p.Decode(r.Inputs(), r.Plan().Scalars)
	}
	return p.evaluate(r.Plan(), r.Inputs(), nil)
}

// decode is Decode, reporting each step's time to took when it is not nil.
func (p *Program) decode(inputs []*tensor.T, scalars []int64, took func(op int, d time.Duration)) ([]*tensor.T, error) {
	pl, err := p.g.PlanInputs(inputs, scalars)
	if err != nil {
		return nil, err
	}
	return p.evaluate(pl, inputs, took)
}

// evaluate is §4 run step 4 of a decode planned as pl.
func (p *Program) evaluate(pl *whg1.Plan, inputs []*tensor.T, took func(op int, d time.Duration)) ([]*tensor.T, error) {
	g := p.g
	vals := make([]val, len(g.Tensors))
	// owned[t]: tensor t's buffer came from p.bufs (run), so it goes back
	// there when t is dropped; an input's never does.
	owned := make([]bool, len(g.Tensors))
	for i, t := range inputs {
		rec := g.Inputs[i]
		v := t // read only: no step writes its inputs
		if tr := g.Tensors[rec.Tensor]; tr.Policy == whg1.Clamp && !inRange(t.Data, tr.Lo, tr.Hi) || p.output[rec.Tensor] {
			v = &tensor.T{Shape: t.Shape, Data: append([]int64(nil), t.Data...)}
		}
		if err := applyPolicy(g.Tensors[rec.Tensor], v.Data, false, func() string {
			return fmt.Sprintf("input %d (tensor %d)", i, rec.Tensor)
		}); err != nil {
			return nil, err
		}
		vals[rec.Tensor] = val{T: v}
	}
	for i := range g.Ops {
		if p.steps[i] != nil {
			var t0 time.Time
			if took != nil {
				t0 = time.Now()
			}
			if err := p.run(i, vals, owned, pl); err != nil {
				return nil, err
			}
			if took != nil {
				took(i, time.Since(t0))
			}
		}
		for _, t := range p.drop[i] {
			if owned[t] {
				p.bufs.put(vals[t])
			}
			vals[t] = val{}
		}
	}
	outs := make([]*tensor.T, len(vals))
	for _, t := range g.Outputs {
		outs[t] = vals[t].T // never narrow (planNarrow)
	}
	return g.GatherOutputs(outs), nil
}

// run runs op i's step, which writes the outputs of op fz[i].last (op i
// itself unless ops were folded into it (fuse)), and applies their
// policies.
func (p *Program) run(i int, vals []val, owned []bool, pl *whg1.Plan) error {
	g := p.g
	op, last := &g.Ops[i], &g.Ops[p.fz[i].last]
	in := make([]val, len(op.In))
	for k, t := range op.In {
		in[k] = vals[t]
	}
	out := make([]val, len(last.Out))
	for k, t := range last.Out {
		if p.narrow[t] {
			out[k] = p.bufs.get8(pl.Shapes[t], p.full[i])
		} else {
			out[k] = val{T: p.bufs.get(pl.Shapes[t], p.full[i])}
		}
	}
	if err := p.steps[i](in, out, pl); err != nil {
		var r *refusal.Error
		if errors.As(err, &r) {
			return refusal.New(r.Code, "op %d: %s", i, r.Msg)
		}
		return err
	}
	for k, t := range last.Out {
		if p.narrow[t] { // its policy holds already (planNarrow)
			vals[t], owned[t] = out[k], true
			continue
		}
		done := p.proven[t] || p.fz[i].clamped // the step clamped the one output
		if err := applyPolicy(g.Tensors[t], out[k].Data, done, func() string {
			return fmt.Sprintf("tensor %d (op %d %v)", t, p.fz[i].last, last.Code)
		}); err != nil {
			return err
		}
		vals[t], owned[t] = out[k], true
	}
	return nil
}

// Identity says who this fabric is: "fabric" cpu, the Go version, GOOS and
// GOARCH, and the CPU model when /proc/cpuinfo can be read. A run under an
// emulator says so in "emulation", the value of the environment variable
// WAIOPS_EMULATION (scripts/test.sh sets it to the qemu-user program its
// other-architecture runs go through): goarch is then the emulated machine,
// and cpu what the emulator's /proc/cpuinfo shows, often the host's.
func Identity() map[string]string {
	id := map[string]string{
		"fabric": "cpu",
		"go":     runtime.Version(),
		"goos":   runtime.GOOS,
		"goarch": runtime.GOARCH,
	}
	if e := os.Getenv("WAIOPS_EMULATION"); e != "" {
		id["emulation"] = e
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				id["cpu"] = strings.TrimSpace(v)
				break
			}
		}
	}
	return id
}
