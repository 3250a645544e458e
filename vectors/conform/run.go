// Package conform runs a §14.1 corpus (integer-operators §14) against a
// fabric and tallies the outcome in a Report: what `waiops conform` and the
// fabrics' conformance tests use. Package report writes a Report out.
package conform

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

// Fabric is what Run needs of a fabric; fabric.Fabric is one. Load runs
// every load check of §10.5 against Profile and returns a decoder that
// makes one decode per call.
type Fabric interface {
	Name() string
	Profile() certify.Profile
	Identity() map[string]string
	Load(b []byte) (whg1.Decoder, *whg1.Graph, error)
}

// StageEval computes a stage vector's expect member from its operator,
// modes and in (stage.ExpectOf).
type StageEval func(op string, modes, in map[string]any) map[string]any

// Failure is one vector a fabric did not reproduce, or one line of a file
// that is not a vector (Line set, Decode −1, ID the id the line names if any).
type Failure struct {
	File   string
	Group  string
	ID     string
	Line   int    // an unreadable line's number, from 1; 0 for a vector that was read
	Decode int    // −1: the load, or the line
	What   string // the first differing element, the outcome that differs, or why the line cannot be read
}

func (f Failure) String() string {
	if f.Line > 0 {
		id := f.ID
		if id == "" {
			id = "(no id)"
		}
		return fmt.Sprintf("FAIL %s %s line %d: %s", f.File, id, f.Line, f.What)
	}
	at := fmt.Sprintf("decode %d", f.Decode)
	if f.Decode < 0 {
		at = "load"
	}
	return fmt.Sprintf("FAIL %s %s %s: %s", f.File, f.ID, at, f.What)
}

// Tally counts one group's vectors.
type Tally struct{ Passed, Failed int }

// Report is the outcome of a corpus on one fabric.
type Report struct {
	Fabric   string
	Profile  string
	Identity map[string]string
	Corpus   string    // the corpus SHA-256
	Date     time.Time // when the run began, UTC
	Files    int
	Groups   map[string]*Tally
	Failures []Failure
	Passed   int
	Failed   int
}

// Run runs every graph vector of c whose profiles include f's profile on f,
// and, when stage is not nil, every stage vector through it. Vectors of
// other profiles are not counted.
func Run(f Fabric, c *vectors.Corpus, stage StageEval) *Report {
	r := &Report{
		Fabric: f.Name(), Profile: string(f.Profile()), Identity: f.Identity(), Date: time.Now().UTC().Truncate(time.Second),
		Corpus: c.SHA256, Files: len(c.Files), Groups: map[string]*Tally{},
	}
	for _, cf := range c.Files {
		// A line that cannot be read is one vector failed, under every
		// profile: which profiles it names cannot be known.
		for _, u := range cf.Unreadable {
			r.count(cf, Failure{ID: u.ID, Line: u.Line, Decode: -1, What: "unreadable: " + vectors.OneLine(u.Err.Error())})
		}
		for i := range cf.Graph {
			v := &cf.Graph[i]
			if !slices.Contains(v.Profiles, f.Profile()) {
				continue
			}
			dec, what := runVector(f, v)
			r.count(cf, Failure{ID: v.ID, Decode: dec, What: what})
		}
		if stage == nil {
			continue
		}
		for i := range cf.Stage {
			s := &cf.Stage[i]
			r.count(cf, Failure{ID: s.ID, What: runStage(stage, s)})
		}
	}
	return r
}

// count tallies one vector of cf: passed when fl.What is "", else the
// failure fl, filed under cf.
func (r *Report) count(cf vectors.CorpusFile, fl Failure) {
	t := r.Groups[cf.Group]
	if t == nil {
		t = &Tally{}
		r.Groups[cf.Group] = t
	}
	if fl.What == "" {
		t.Passed++
		r.Passed++
		return
	}
	t.Failed++
	r.Failed++
	fl.File, fl.Group = cf.Rel, cf.Group
	r.Failures = append(r.Failures, fl)
}

// GroupNames lists the report's groups in sorted order.
func (r *Report) GroupNames() []string {
	names := make([]string, 0, len(r.Groups))
	for n := range r.Groups {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// runVector loads v's graph on f and runs its decodes as one sequence
// (§10.3). It returns "" when every outcome matches, or the index of the
// first decode that differs (−1 for the load) and how.
func runVector(f Fabric, v *vectors.Vector) (int, string) {
	d, g, err := f.Load(v.Graph)
	if got := CodeOf(err); got != v.Load {
		return -1, fmt.Sprintf("load %s, want %s%s", got, v.Load, reason(err))
	}
	if err != nil {
		return 0, ""
	}
	seq := whg1.NewSequence(g, d)
	for i, dec := range v.Decodes {
		outs, err := seq.Decode(dec.Inputs, dec.Scalars)
		if what := compare(dec, outs, err); what != "" {
			return i, what
		}
	}
	return 0, ""
}

// CodeOf is the outcome an error stands for: "ok", a refusal's code, or
// "error" for an error that is not a refusal (which no vector expects). The
// generator records load outcomes by it too, so that both read an error alike.
func CodeOf(err error) refusal.Code {
	if err == nil {
		return vectors.LoadOK
	}
	var re *refusal.Error
	if errors.As(err, &re) {
		return re.Code
	}
	return "error"
}

func reason(err error) string {
	if err == nil {
		return ""
	}
	return " (" + vectors.OneLine(err.Error()) + ")"
}

// compare checks one decode's outcome against its expectation and names the
// first difference: the outcome, an output count or shape, or the first
// differing element in CHW order.
func compare(d vectors.Decode, outs []*tensor.T, err error) string {
	got := CodeOf(err)
	if d.Refuse != "" {
		if got != d.Refuse {
			return fmt.Sprintf("%s, want refuse %s%s", outcome(got), d.Refuse, reason(err))
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("%s, want outputs%s", outcome(got), reason(err))
	}
	return DiffTensors(outs, d.Outputs)
}

func outcome(c refusal.Code) string {
	if c == vectors.LoadOK {
		return "outputs"
	}
	return "refuse " + string(c)
}

// DiffTensors names the first difference between two output lists, or "";
// the generator checks its phase-form graphs against conv_transpose by it.
func DiffTensors(got, want []*tensor.T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d outputs, want %d", len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if g.Shape != w.Shape {
			return fmt.Sprintf("output %d shape %v, want %v", k, g.Shape, w.Shape)
		}
		for i := range w.Data {
			if g.Data[i] != w.Data[i] {
				s := w.Shape
				c, y, x := i/(s.H*s.W), i/s.W%s.H, i%s.W
				return fmt.Sprintf("output %d element %d (c=%d, y=%d, x=%d): got %d, want %d",
					k, i, c, y, x, g.Data[i], w.Data[i])
			}
		}
	}
	return ""
}

// runStage evaluates a stage vector and compares its expect member exactly.
func runStage(eval StageEval, s *vectors.Stage) string {
	got, err := cjson.Marshal(eval(s.Op, s.Modes, s.In))
	if err != nil {
		return "the result has no canonical form: " + err.Error()
	}
	want, _ := cjson.Marshal(s.Expect) // Parse re-marshalled it already
	if bytes.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("expect %s, want %s", vectors.OneLine(string(got)), vectors.OneLine(string(want)))
}

// AddGroup tallies a group run outside the fabric (the carriage cases):
// passed vectors and one failure per line of failures, filed under group.
func (r *Report) AddGroup(group string, passed int, failures []string) {
	t := &Tally{Passed: passed, Failed: len(failures)}
	r.Groups[group] = t
	r.Passed += passed
	r.Failed += len(failures)
	for _, f := range failures {
		r.Failures = append(r.Failures, Failure{Group: group, File: group, Decode: -1, What: f})
	}
}
