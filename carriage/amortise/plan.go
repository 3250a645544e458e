// Package amortise applies prior-carriage §17.2, the amortisation rule
// charged per sink, to a stated plan (D-H6): for each sink, each
// generation's saving, cost and net, the generations kept, fetched and
// evicted, each title's rendition, and the bytes the sink receives beside
// the bytes it would receive with no set.
//
// Use it to decide, before encoding or listing a set, whether a sink's
// expected fetches pay for it (Read, then Apply). It fetches nothing and
// reads no set. Every refusal is a *refusal.Error with the code
// plan_malformed (§20). All arithmetic is on int64 with every sum and
// product checked: a value past 2^63 − 1 is refused, never wrapped.
//
// # Readings
//
// docs/READINGS.md, section "Amortisation plans (carriage/amortise)",
// states the readings this package follows.
package amortise

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// Malformed is §20's code for a plan that does not read.
const Malformed refusal.Code = "plan_malformed"

// MaxPlanBytes bounds a plan's text; a reader refuses a longer one before
// reading it.
const MaxPlanBytes = 16 << 20

// maxDepth is the plan's deepest nesting (a sink's fetches are level 4) with
// room to spare.
const maxDepth = 8

// Plan is a plan as D-H6 states it.
type Plan struct {
	From, To    string // the span's instants as written
	Cap         int64
	Generations []Generation // in epoch order
	Titles      []Title
	Sinks       []Sink
}

// Generation is a set and the titles coded against it. CodedAgainst is the
// index of the earlier generation this one's set is coded against (§16), or
// -1.
type Generation struct {
	ID           string
	SetBytes     int64
	CodedAgainst int
	CodedBytes   int64
}

// Title is a title pinned to Generations[Generation].
type Title struct {
	ID         string
	Generation int
	Pinned     int64
	Classical  int64
}

// Sink is a sink: the generations it holds (indexes, in the order written)
// and its fetches per title.
type Sink struct {
	ID      string
	Holds   []int
	Fetches []Fetch
}

// Fetch is a title (an index of Titles) and the times the sink fetches it
// within the span.
type Fetch struct {
	Title int
	Count int64
}

func malformed(format string, args ...any) error {
	return refusal.New(Malformed, format, args...)
}

// Read reads a plan (D-H6), refusing plan_malformed with a reason
// naming the rule it breaks.
func Read(b []byte) (*Plan, error) {
	if len(b) > MaxPlanBytes {
		return nil, malformed("the plan is %d bytes, past %d", len(b), MaxPlanBytes)
	}
	v, err := strictjson.Parse(b, maxDepth)
	if err != nil {
		return nil, malformed("the plan is not JSON with each member named once: %v", err)
	}
	top, err := members(v, "the plan", []string{"span", "cap", "generations", "titles", "sinks"}, nil)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	if err := readSpan(p, top["span"]); err != nil {
		return nil, err
	}
	if p.Cap, err = count(top["cap"], "cap"); err != nil {
		return nil, err
	}
	if p.Cap == 0 {
		return nil, malformed("cap is 0; a sink holds at least 1 generation (§17.1)")
	}
	gens, err := array(top["generations"], "generations")
	if err != nil {
		return nil, err
	}
	genIndex := map[string]int{}
	for i, gv := range gens {
		g, err := readGeneration(gv, i, genIndex)
		if err != nil {
			return nil, err
		}
		genIndex[g.ID] = i
		p.Generations = append(p.Generations, g)
	}
	titles, err := array(top["titles"], "titles")
	if err != nil {
		return nil, err
	}
	titleIndex := map[string]int{}
	for i, tv := range titles {
		t, err := readTitle(tv, i, genIndex, titleIndex)
		if err != nil {
			return nil, err
		}
		titleIndex[t.ID] = i
		p.Titles = append(p.Titles, t)
	}
	sinks, err := array(top["sinks"], "sinks")
	if err != nil {
		return nil, err
	}
	if len(sinks) == 0 {
		return nil, malformed("sinks is empty; a plan states one or more sinks (§17.4)")
	}
	sinkIDs := map[string]bool{}
	for i, sv := range sinks {
		s, err := readSink(sv, i, genIndex, titleIndex)
		if err != nil {
			return nil, err
		}
		if sinkIDs[s.ID] {
			return nil, malformed("sink id %q is named twice", s.ID)
		}
		sinkIDs[s.ID] = true
		p.Sinks = append(p.Sinks, s)
	}
	return p, nil
}

// readSpan reads span {"from","to"}: RFC 3339 UTC instants, from before to
// (§17.1: "from one instant to a later one").
func readSpan(p *Plan, v strictjson.Value) error {
	m, err := members(v, "span", []string{"from", "to"}, nil)
	if err != nil {
		return err
	}
	var at [2]time.Time
	var frac [2]string
	for i, name := range []string{"from", "to"} {
		s, err := str(m[name], "span."+name)
		if err != nil {
			return err
		}
		if at[i], frac[i], err = instant(s); err != nil {
			return malformed("span.%s %q is not an RFC 3339 UTC instant: %v", name, s, err)
		}
	}
	p.From, p.To = m["from"].Str, m["to"].Str
	// §17.1: "from one instant to a later one", compared exactly: the whole
	// seconds, then the fractions' digits, which RFC 3339 does not bound
	// (time.Time stops at the nanosecond).
	if c := at[0].Compare(at[1]); c > 0 || c == 0 && !fracBefore(frac[0], frac[1]) {
		return malformed("the span does not run forward: from %s is not before to %s", p.From, p.To)
	}
	return nil
}

// fracBefore reports whether the fraction of a second whose decimal digits
// are a is less than the one whose digits are b ("" is 0).
func fracBefore(a, b string) bool {
	n := max(len(a), len(b))
	return a+strings.Repeat("0", n-len(a)) < b+strings.Repeat("0", n-len(b))
}

// instant reads YYYY-MM-DDTHH:MM:SS[.frac]Z: the whole seconds as a time
// and the fraction's digits as written ("" for none).
func instant(s string) (time.Time, string, error) {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout)+1 || s[len(s)-1] != 'Z' {
		return time.Time{}, "", fmt.Errorf("not YYYY-MM-DDTHH:MM:SS, an optional fraction, then Z")
	}
	for i := 0; i < len(layout); i++ {
		if (layout[i] == 'd') != (s[i] >= '0' && s[i] <= '9') || layout[i] != 'd' && layout[i] != s[i] {
			return time.Time{}, "", fmt.Errorf("not YYYY-MM-DDTHH:MM:SS, an optional fraction, then Z")
		}
	}
	frac := s[len(layout) : len(s)-1]
	if frac != "" {
		if len(frac) < 2 || frac[0] != '.' {
			return time.Time{}, "", fmt.Errorf("the fraction is not '.' and digits")
		}
		for i := 1; i < len(frac); i++ {
			if frac[i] < '0' || frac[i] > '9' {
				return time.Time{}, "", fmt.Errorf("the fraction is not '.' and digits")
			}
		}
		frac = frac[1:]
	}
	t, err := time.Parse(time.RFC3339, s[:len(layout)]+"Z")
	return t, frac, err
}

func readGeneration(v strictjson.Value, i int, earlier map[string]int) (Generation, error) {
	where := fmt.Sprintf("generations[%d]", i)
	m, err := members(v, where, []string{"id", "set_bytes"}, []string{"coded_against", "coded_bytes"})
	if err != nil {
		return Generation{}, err
	}
	g := Generation{CodedAgainst: -1}
	if g.ID, err = id(m["id"], where+".id"); err != nil {
		return g, err
	}
	if _, twice := earlier[g.ID]; twice {
		return g, malformed("generation %q is named twice", g.ID)
	}
	if g.SetBytes, err = count(m["set_bytes"], where+".set_bytes"); err != nil {
		return g, err
	}
	against, hasAgainst := m["coded_against"]
	coded, hasCoded := m["coded_bytes"]
	if hasAgainst != hasCoded {
		return g, malformed("%s states one of coded_against and coded_bytes without the other", where)
	}
	if hasAgainst {
		name, err := id(against, where+".coded_against")
		if err != nil {
			return g, err
		}
		j, ok := earlier[name]
		if !ok {
			return g, malformed("generation %q is coded against %q, which is not an earlier generation (epoch order)", g.ID, name)
		}
		g.CodedAgainst = j
		if g.CodedBytes, err = count(coded, where+".coded_bytes"); err != nil {
			return g, err
		}
	}
	return g, nil
}

func readTitle(v strictjson.Value, i int, gens, earlier map[string]int) (Title, error) {
	where := fmt.Sprintf("titles[%d]", i)
	m, err := members(v, where, []string{"id", "generation", "pinned_bytes", "classical_bytes"}, nil)
	if err != nil {
		return Title{}, err
	}
	var t Title
	if t.ID, err = id(m["id"], where+".id"); err != nil {
		return t, err
	}
	if _, twice := earlier[t.ID]; twice {
		return t, malformed("title %q is named twice", t.ID)
	}
	gen, err := id(m["generation"], where+".generation")
	if err != nil {
		return t, err
	}
	var ok bool
	if t.Generation, ok = gens[gen]; !ok {
		return t, malformed("title %q is of generation %q, which the plan does not state", t.ID, gen)
	}
	if t.Pinned, err = count(m["pinned_bytes"], where+".pinned_bytes"); err != nil {
		return t, err
	}
	if t.Classical, err = count(m["classical_bytes"], where+".classical_bytes"); err != nil {
		return t, err
	}
	return t, nil
}

func readSink(v strictjson.Value, i int, gens, titles map[string]int) (Sink, error) {
	where := fmt.Sprintf("sinks[%d]", i)
	m, err := members(v, where, []string{"id", "holds", "fetches"}, nil)
	if err != nil {
		return Sink{}, err
	}
	var s Sink
	if s.ID, err = id(m["id"], where+".id"); err != nil {
		return s, err
	}
	holds, err := array(m["holds"], where+".holds")
	if err != nil {
		return s, err
	}
	held := map[int]bool{}
	for j, hv := range holds {
		name, err := id(hv, fmt.Sprintf("%s.holds[%d]", where, j))
		if err != nil {
			return s, err
		}
		g, ok := gens[name]
		if !ok {
			return s, malformed("sink %q holds %q, which the plan does not state", s.ID, name)
		}
		if held[g] {
			return s, malformed("sink %q holds %q twice", s.ID, name)
		}
		held[g] = true
		s.Holds = append(s.Holds, g)
	}
	f := m["fetches"]
	if f.Kind != strictjson.Object {
		return s, malformed("%s.fetches is not an object of title ids to counts", where)
	}
	for _, mem := range f.Members {
		t, ok := titles[mem.Name]
		if !ok {
			return s, malformed("sink %q fetches %q, which the plan does not state", s.ID, mem.Name)
		}
		c, err := count(mem.Value, fmt.Sprintf("%s.fetches[%q]", where, mem.Name))
		if err != nil {
			return s, err
		}
		s.Fetches = append(s.Fetches, Fetch{Title: t, Count: c})
	}
	return s, nil
}

// members reads v as an object with every member of need and any of opt,
// and no other.
func members(v strictjson.Value, where string, need, opt []string) (map[string]strictjson.Value, error) {
	if v.Kind != strictjson.Object {
		return nil, malformed("%s is not an object", where)
	}
	known := map[string]bool{}
	for _, n := range append(need[:len(need):len(need)], opt...) {
		known[n] = true
	}
	m := map[string]strictjson.Value{}
	for _, mem := range v.Members {
		if !known[mem.Name] {
			return nil, malformed("%s has a member %q that a plan does not state", where, mem.Name)
		}
		m[mem.Name] = mem.Value
	}
	for _, n := range need {
		if _, ok := m[n]; !ok {
			return nil, malformed("%s has no member %q", where, n)
		}
	}
	return m, nil
}

func array(v strictjson.Value, where string) ([]strictjson.Value, error) {
	if v.Kind != strictjson.Array {
		return nil, malformed("%s is not an array", where)
	}
	return v.Elems, nil
}

// str reads a string of printable ASCII.
func str(v strictjson.Value, where string) (string, error) {
	if v.Kind != strictjson.String {
		return "", malformed("%s is not a string", where)
	}
	for i := 0; i < len(v.Str); i++ {
		if c := v.Str[i]; c < 0x20 || c > 0x7e {
			return "", malformed("%s holds byte 0x%02x, not printable ASCII", where, c)
		}
	}
	return v.Str, nil
}

// id reads a non-empty string (H6).
func id(v strictjson.Value, where string) (string, error) {
	s, err := str(v, where)
	if err == nil && s == "" {
		err = malformed("%s is empty; an id is a non-empty string", where)
	}
	return s, err
}

// count reads a byte count or a count: an integer 0 to 2^63 − 1, a JSON
// number of digits alone or a decimal string "0" or of no leading zero
// (H6).
func count(v strictjson.Value, where string) (int64, error) {
	if v.Kind != strictjson.Number && v.Kind != strictjson.String {
		return 0, malformed("%s is not an integer (a number or a decimal string)", where)
	}
	s := v.Str
	if s == "" || s[0] == '0' && len(s) > 1 {
		return 0, malformed("%s %q is not a decimal integer without leading zeros", where, s)
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i]
		if d < '0' || d > '9' {
			return 0, malformed("%s %q is not an integer 0 to 2^63 - 1", where, s)
		}
		if n > (math.MaxInt64-int64(d-'0'))/10 {
			return 0, malformed("%s %q is past 2^63 - 1", where, s)
		}
		n = n*10 + int64(d-'0')
	}
	return n, nil
}
