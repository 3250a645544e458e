// Package vectors reads and writes the conformance vectors of
// integer-operators §14.1 and §14.2 (Parse, Marshal) and reads a corpus of
// them from disk (Open, Project). Its subpackages do the rest: gen generates
// the project's committed corpus and re-checks it, conform runs any §14.1
// corpus against a fabric, and report writes a run's conformance.json and
// conformance.html and the matrix of reports.
//
// The corpus is the contract between fabrics: a fabric conforms to a profile
// when it reproduces every vector tagged with that profile, refusals
// included (§1, §12). Tools use this package for the format; fabrics
// themselves should not import it.
package vectors

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/tensor"
)

// refusalCodes is the closed set of codes a graph vector's load or decode
// may give (§4, §10.5); an unknown outcome fails the read (docs/CONVENTIONS.md §3).
var refusalCodes = []refusal.Code{
	refusal.ModelMismatch, refusal.TooLarge, refusal.FieldRange, refusal.GeometryMismatch,
}

// stageCodes is the closed set of a stage vector's refusals: the codes of
// §5E's conditions and E1's and E8's stream refusals.
var stageCodes = append([]refusal.Code{stage.StreamExhausted, stage.StreamNoncanonical}, refusalCodes...)

// Vector is one graph vector (§14.1): a WHG1 graph, its load outcome, the
// profiles whose implementations must reproduce it and, when it loads, its
// decodes, which form one sequence (§10.3).
type Vector struct {
	ID       string
	Graph    []byte
	Load     refusal.Code // "ok" or a refusal code
	Profiles []certify.Profile
	Decodes  []Decode
}

// LoadOK is the load member of a vector whose graph loads.
const LoadOK refusal.Code = "ok"

// Decode is one decode of a vector's sequence: the data inputs in
// input-table order (state inputs are never supplied), the scalars, and the
// expectation — Outputs, or the refusal code Refuse.
type Decode struct {
	Inputs  []*tensor.T
	Scalars []int64
	Outputs []*tensor.T
	Refuse  refusal.Code
}

// Stage is one stage-operator vector (§14.1 "Stage-operator vectors"). In,
// Modes and Expect are kept as canonical-JSON values: their members depend
// on the operator and are checked by the stage package that evaluates them.
type Stage struct {
	ID     string
	Op     string
	In     map[string]any
	Modes  map[string]any
	Expect map[string]any
}

// stageOps are the thirteen stage operators of §5E.
var stageOps = []string{
	"rans64_decode", "dequantize", "bucket", "coded", "scale_index", "block_stat",
	"band_lookup", "mans_decode", "residual_step", "mc_predict", "up2_predict",
	"rate_predict", "coding_order",
}

// File is one vector file: graph vectors or stage vectors, never both.
// Unreadable holds the lines Read could not read as a vector.
type File struct {
	Graph      []Vector
	Stage      []Stage
	Unreadable []LineError
}

// LineError is one line of a vector file that is not a vector: its line
// number (from 1), the id it names when one can be found, and why.
type LineError struct {
	Line int
	ID   string
	Err  error
}

func (e LineError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("line %d (%s): %v", e.Line, e.ID, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

// Parse reads a vector file strictly: JSON Lines with every line canonical
// (§8.5) and ending in one LF, exactly the members §14.1 names, outcomes
// from the closed sets, ids unique in the file. A file of graph vectors and
// one of stage vectors are told apart by their lines' members. The first
// line that cannot be read fails the file.
func Parse(b []byte) (*File, error) {
	f := Read(b)
	if len(f.Unreadable) > 0 {
		return nil, f.Unreadable[0]
	}
	return f, nil
}

// Read reads a vector file as Parse does, line by line: a line that cannot
// be read is recorded in Unreadable, with its number and the id it names
// when one can be found, and the lines after it are still read. An empty
// file is one unreadable line; so is a last line without its line feed.
func Read(b []byte) *File {
	f := &File{}
	if len(b) == 0 {
		f.Unreadable = append(f.Unreadable, LineError{Line: 1, Err: fmt.Errorf("empty file")})
		return f
	}
	seen := map[string]bool{}
	lines := bytes.Split(b, []byte{'\n'})
	last := lines[len(lines)-1]
	lines = lines[:len(lines)-1] // the empty text after the final LF, or a last line without one
	for n, line := range lines {
		if err := f.parseLine(line, seen); err != nil {
			f.Unreadable = append(f.Unreadable, LineError{Line: n + 1, ID: lineID(line), Err: err})
		}
	}
	if len(last) > 0 {
		f.Unreadable = append(f.Unreadable, LineError{Line: len(lines) + 1, ID: lineID(last), Err: fmt.Errorf("the last line does not end with a line feed")})
	}
	return f
}

// lineID finds the id an unreadable line names: the member "id" of a line
// that is a JSON object, else the string after the first "id":" in it, or
// "" when there is none.
func lineID(line []byte) string {
	if v, err := cjson.Unmarshal(line); err == nil {
		if m, ok := v.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				return OneLine(id)
			}
		}
		return ""
	}
	const key = `"id":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return ""
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return OneLine(string(rest[:j]))
}

// parseLine reads one line and appends its vector to f, unless its id is
// in seen already.
func (f *File) parseLine(line []byte, seen map[string]bool) error {
	v, err := cjson.Unmarshal(line)
	if err != nil {
		return err
	}
	// Canonical means one encoding: the value written again must be the line.
	again, err := cjson.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, line) {
		return fmt.Errorf("not canonical JSON (§8.5)")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a vector must be an object")
	}
	if _, stage := m["op"]; stage {
		if len(f.Graph) > 0 {
			return fmt.Errorf("a stage vector in a file of graph vectors")
		}
		s, err := parseStage(m)
		if err != nil {
			return err
		}
		if err := unique(seen, s.ID); err != nil {
			return err
		}
		f.Stage = append(f.Stage, s)
		return nil
	}
	if len(f.Stage) > 0 {
		return fmt.Errorf("a graph vector in a file of stage vectors")
	}
	gv, err := parseVector(m)
	if err != nil {
		return err
	}
	if err := unique(seen, gv.ID); err != nil {
		return err
	}
	f.Graph = append(f.Graph, gv)
	return nil
}

// unique marks id seen, or fails when it was seen before in the file.
func unique(seen map[string]bool, id string) error {
	if seen[id] {
		return fmt.Errorf("id %q is not unique in its file", id)
	}
	seen[id] = true
	return nil
}

// members checks that m has exactly the keys named.
func members(m map[string]any, what string, keys ...string) error {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("%s lacks member %q", what, k)
		}
	}
	if len(m) != len(keys) {
		for k := range m {
			if !slices.Contains(keys, k) {
				return fmt.Errorf("%s has unknown member %q", what, k)
			}
		}
	}
	return nil
}

func parseVector(m map[string]any) (Vector, error) {
	var v Vector
	if err := members(m, "a vector", "decodes", "graph", "id", "load", "profiles"); err != nil {
		return v, err
	}
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return v, fmt.Errorf("id must be a non-empty string")
	}
	v.ID = id
	hx, ok := m["graph"].(string)
	if !ok {
		return v, fmt.Errorf("%s: graph must be a hex string", id)
	}
	g, err := hex.DecodeString(hx)
	if err != nil || hex.EncodeToString(g) != hx {
		return v, fmt.Errorf("%s: graph is not lowercase hexadecimal", id)
	}
	v.Graph = g
	load, ok := m["load"].(string)
	if !ok || (load != string(LoadOK) && !slices.Contains(refusalCodes, refusal.Code(load))) {
		return v, fmt.Errorf("%s: unknown load outcome %v", id, m["load"])
	}
	v.Load = refusal.Code(load)
	ps, ok := m["profiles"].([]any)
	if !ok || len(ps) == 0 {
		return v, fmt.Errorf("%s: profiles must be a non-empty array", id)
	}
	for _, p := range ps {
		s, ok := p.(string)
		if !ok || !certify.Profile(s).Valid() {
			return v, fmt.Errorf("%s: unknown profile %v", id, p)
		}
		if len(v.Profiles) > 0 && v.Profiles[len(v.Profiles)-1] >= certify.Profile(s) {
			return v, fmt.Errorf("%s: profiles are not ascending and distinct", id)
		}
		v.Profiles = append(v.Profiles, certify.Profile(s))
	}
	ds, ok := m["decodes"].([]any)
	if !ok {
		return v, fmt.Errorf("%s: decodes must be an array", id)
	}
	// §14.1: a vector whose load is a refusal has no decodes and lists
	// both profiles.
	if v.Load != LoadOK && (len(ds) != 0 || len(v.Profiles) != len(certify.Profiles)) {
		return v, fmt.Errorf("%s: a load refusal has no decodes and profiles [acc32, acc64]", id)
	}
	for i, d := range ds {
		dec, err := parseDecode(d)
		if err != nil {
			return v, fmt.Errorf("%s: decode %d: %w", id, i, err)
		}
		v.Decodes = append(v.Decodes, dec)
	}
	return v, nil
}

func parseDecode(x any) (Decode, error) {
	var d Decode
	m, ok := x.(map[string]any)
	if !ok {
		return d, fmt.Errorf("a decode must be an object")
	}
	if err := members(m, "a decode", "expect", "inputs", "scalars"); err != nil {
		return d, err
	}
	var err error
	if d.Inputs, err = tensor.ListFromJSON(m["inputs"]); err != nil {
		return d, fmt.Errorf("inputs: %w", err)
	}
	ss, ok := m["scalars"].([]any)
	if !ok {
		return d, fmt.Errorf("scalars must be an array")
	}
	d.Scalars = make([]int64, len(ss))
	for i, s := range ss {
		if d.Scalars[i], err = cjson.Int(s); err != nil {
			return d, fmt.Errorf("scalar %d: %w", i, err)
		}
	}
	e, ok := m["expect"].(map[string]any)
	if !ok {
		return d, fmt.Errorf("expect must be an object")
	}
	if _, refused := e["refuse"]; refused {
		if err := members(e, "expect", "refuse"); err != nil {
			return d, err
		}
		c, ok := e["refuse"].(string)
		if !ok || !slices.Contains(refusalCodes, refusal.Code(c)) {
			return d, fmt.Errorf("unknown refusal code %v", e["refuse"])
		}
		d.Refuse = refusal.Code(c)
		return d, nil
	}
	if err := members(e, "expect", "outputs"); err != nil {
		return d, err
	}
	if d.Outputs, err = tensor.ListFromJSON(e["outputs"]); err != nil {
		return d, fmt.Errorf("outputs: %w", err)
	}
	return d, nil
}

func parseStage(m map[string]any) (Stage, error) {
	var s Stage
	if err := members(m, "a stage vector", "expect", "id", "in", "modes", "op"); err != nil {
		return s, err
	}
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return s, fmt.Errorf("id must be a non-empty string")
	}
	s.ID = id
	if s.Op, ok = m["op"].(string); !ok || !slices.Contains(stageOps, s.Op) {
		return s, fmt.Errorf("%s: unknown stage operator %v", id, m["op"])
	}
	if s.In, ok = m["in"].(map[string]any); !ok {
		return s, fmt.Errorf("%s: in must be an object", id)
	}
	if s.Modes, ok = m["modes"].(map[string]any); !ok {
		return s, fmt.Errorf("%s: modes must be an object", id)
	}
	if s.Expect, ok = m["expect"].(map[string]any); !ok {
		return s, fmt.Errorf("%s: expect must be an object", id)
	}
	if _, refused := s.Expect["refuse"]; refused {
		if err := members(s.Expect, "expect", "at", "refuse"); err != nil {
			return s, fmt.Errorf("%s: %w", id, err)
		}
		c, ok := s.Expect["refuse"].(string)
		if !ok || !slices.Contains(stageCodes, refusal.Code(c)) {
			return s, fmt.Errorf("%s: unknown refusal code %v", id, s.Expect["refuse"])
		}
		if _, err := cjson.Int(s.Expect["at"]); err != nil {
			return s, fmt.Errorf("%s: at: %w", id, err)
		}
	}
	return s, nil
}

// JSON is the vector's canonical-JSON value.
func (v *Vector) JSON() map[string]any {
	ds := make([]any, len(v.Decodes))
	for i, d := range v.Decodes {
		ds[i] = d.JSON()
	}
	return map[string]any{
		"decodes":  ds,
		"graph":    hex.EncodeToString(v.Graph),
		"id":       v.ID,
		"load":     string(v.Load),
		"profiles": certify.Strings(v.Profiles),
	}
}

// JSON is the decode's canonical-JSON value.
func (d *Decode) JSON() map[string]any {
	expect := map[string]any{"refuse": string(d.Refuse)}
	if d.Refuse == "" {
		expect = map[string]any{"outputs": tensor.ListJSON(d.Outputs)}
	}
	scalars := d.Scalars
	if scalars == nil {
		scalars = []int64{}
	}
	return map[string]any{"expect": expect, "inputs": tensor.ListJSON(d.Inputs), "scalars": scalars}
}

// JSON is the stage vector's canonical-JSON value.
func (s *Stage) JSON() map[string]any {
	return map[string]any{"expect": s.Expect, "id": s.ID, "in": s.In, "modes": s.Modes, "op": s.Op}
}

// Marshal writes the file: one canonical JSON value per line, each line
// ending with one LF, the last included (§14.1).
func (f *File) Marshal() ([]byte, error) {
	var b bytes.Buffer
	put := func(v map[string]any) error {
		line, err := cjson.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
		return nil
	}
	for i := range f.Graph {
		if err := put(f.Graph[i].JSON()); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Graph[i].ID, err)
		}
	}
	for i := range f.Stage {
		if err := put(f.Stage[i].JSON()); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Stage[i].ID, err)
		}
	}
	return b.Bytes(), nil
}

// OneLine makes a message one line of printable ASCII, which the report's
// canonical JSON requires (§8.5): other characters are written U+XXXX, and
// the message is cut after 200 of them. The runner and the report
// pass every string a fabric or a file supplies through it.
func OneLine(s string) string {
	var b strings.Builder
	for i, r := range []rune(s) {
		if i == 200 {
			b.WriteString("...")
			break
		}
		switch {
		case r == '\n':
			b.WriteByte(' ')
		case r >= 0x20 && r <= 0x7e:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "U+%04X", r)
		}
	}
	return b.String()
}
