package amortise

import (
	"math"
	"slices"

	"github.com/waiops/waiops/cjson"
)

// Outcome is §17.2 applied to each sink of a plan, over the plan's span.
type Outcome struct {
	From, To string
	Sinks    []SinkOutcome
	plan     *Plan
}

// SinkOutcome is one sink's: Generations in epoch order; Kept, Fetched and
// Evicted as generation indexes in epoch order; Pinned[t] whether title t
// (plan order) is decoded against its set.
type SinkOutcome struct {
	ID              string
	Generations     []GenerationOutcome
	Kept            []int
	Fetched         []int
	Evicted         []int
	Pinned          []bool
	BytesReceived   int64
	BytesWithoutSet int64
}

// GenerationOutcome is a generation's saving, cost and net to one sink.
type GenerationOutcome struct {
	Saving, Cost, Net int64
	WorthHolding      bool
}

// add and mul are checked int64 arithmetic on values 0 to 2^63 − 1: a
// result past 2^63 − 1 is plan_malformed (H6: sums past 2^63 − 1 are
// refused, never wrapped).
func add(a, b int64, what string) (int64, error) {
	if a > math.MaxInt64-b {
		return 0, malformed("%s passes 2^63 - 1", what)
	}
	return a + b, nil
}

func mul(a, b int64, what string) (int64, error) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, malformed("%s passes 2^63 - 1", what)
	}
	return a * b, nil
}

// Apply applies §17.2 to each sink of p.
func Apply(p *Plan) (*Outcome, error) {
	out := &Outcome{From: p.From, To: p.To, plan: p}
	for _, s := range p.Sinks {
		so, err := applySink(p, s)
		if err != nil {
			return nil, err
		}
		out.Sinks = append(out.Sinks, so)
	}
	return out, nil
}

func applySink(p *Plan, s Sink) (SinkOutcome, error) {
	so := SinkOutcome{ID: s.ID, Generations: make([]GenerationOutcome, len(p.Generations)), Pinned: make([]bool, len(p.Titles))}
	held := make([]bool, len(p.Generations))
	for _, g := range s.Holds {
		held[g] = true
	}
	// §17.1: a title's saving is its classical bytes less its pinned bytes;
	// both are 0 to 2^63 − 1, so the difference fits int64.
	saving := func(t Title) int64 { return t.Classical - t.Pinned }
	var err error
	// §17.2 step 1: a generation's saving sums fetches × saving over its
	// titles whose saving is above 0.
	for _, f := range s.Fetches {
		t := p.Titles[f.Title]
		if saving(t) <= 0 {
			continue
		}
		what := "sink " + s.ID + "'s saving of generation " + p.Generations[t.Generation].ID
		x, err := mul(f.Count, saving(t), what)
		if err != nil {
			return so, err
		}
		g := &so.Generations[t.Generation]
		if g.Saving, err = add(g.Saving, x, what); err != nil {
			return so, err
		}
	}
	// §17.1's cost, taken before any eviction (§17.2 step 3): 0 for a held
	// set; the coded bytes when the set it is coded against is held; the
	// set's bytes otherwise. Step 2: net = saving − cost, worth holding
	// above 0; both are 0 to 2^63 − 1, so the net fits int64.
	var worth []int
	for i, g := range p.Generations {
		o := &so.Generations[i]
		switch {
		case held[i]:
			o.Cost = 0
		case g.CodedAgainst >= 0 && held[g.CodedAgainst]:
			o.Cost = g.CodedBytes
		default:
			o.Cost = g.SetBytes
		}
		o.Net = o.Saving - o.Cost
		if o.WorthHolding = o.Net > 0; o.WorthHolding {
			worth = append(worth, i)
		}
	}
	// Step 3: the largest net first, the later generation first on an equal
	// net, at most the cap; then the held generations, the later first,
	// until the cap.
	slices.SortFunc(worth, func(a, b int) int {
		if na, nb := so.Generations[a].Net, so.Generations[b].Net; na != nb {
			if na > nb {
				return -1
			}
			return 1
		}
		return b - a
	})
	kept := make([]bool, len(p.Generations))
	n := int64(0)
	for _, i := range worth {
		if n == p.Cap {
			break
		}
		kept[i] = true
		n++
	}
	for i := len(p.Generations) - 1; i >= 0 && n < p.Cap; i-- {
		if held[i] && !kept[i] {
			kept[i] = true
			n++
		}
	}
	for i := range p.Generations {
		switch {
		case kept[i] && !held[i]:
			so.Fetched = append(so.Fetched, i)
			if so.BytesReceived, err = add(so.BytesReceived, so.Generations[i].Cost, "sink "+s.ID+"'s bytes received"); err != nil {
				return so, err
			}
		case held[i] && !kept[i]:
			so.Evicted = append(so.Evicted, i)
		}
		if kept[i] {
			so.Kept = append(so.Kept, i)
		}
	}
	// Step 4: a title is decoded against its set when its generation is
	// kept and its saving is above 0.
	for i, t := range p.Titles {
		so.Pinned[i] = kept[t.Generation] && saving(t) > 0
	}
	for _, f := range s.Fetches {
		t := p.Titles[f.Title]
		rendition := t.Classical
		if so.Pinned[f.Title] {
			rendition = t.Pinned
		}
		x, err := mul(f.Count, rendition, "sink "+s.ID+"'s bytes received")
		if err != nil {
			return so, err
		}
		if so.BytesReceived, err = add(so.BytesReceived, x, "sink "+s.ID+"'s bytes received"); err != nil {
			return so, err
		}
		if x, err = mul(f.Count, t.Classical, "sink "+s.ID+"'s bytes without a set"); err != nil {
			return so, err
		}
		if so.BytesWithoutSet, err = add(so.BytesWithoutSet, x, "sink "+s.ID+"'s bytes without a set"); err != nil {
			return so, err
		}
	}
	return so, nil
}

// JSON is the outcome's canonical JSON (integer-operators §8.5): sinks in
// plan order, each with its generations and id lists in epoch order and
// its titles in plan order.
func (o *Outcome) JSON() ([]byte, error) {
	p := o.plan
	ids := func(is []int) []any {
		l := []any{}
		for _, i := range is {
			l = append(l, p.Generations[i].ID)
		}
		return l
	}
	sinks := []any{}
	for _, s := range o.Sinks {
		gens := []any{}
		for i, g := range s.Generations {
			gens = append(gens, map[string]any{
				"cost": g.Cost, "id": p.Generations[i].ID, "net": g.Net,
				"saving": g.Saving, "worth_holding": g.WorthHolding,
			})
		}
		titles := []any{}
		for i, t := range p.Titles {
			r := "classical"
			if s.Pinned[i] {
				r = "pinned"
			}
			titles = append(titles, map[string]any{"id": t.ID, "rendition": r})
		}
		sinks = append(sinks, map[string]any{
			"bytes_received": s.BytesReceived, "bytes_without_set": s.BytesWithoutSet,
			"evicted": ids(s.Evicted), "fetched": ids(s.Fetched), "generations": gens,
			"id": s.ID, "kept": ids(s.Kept), "titles": titles,
		})
	}
	return cjson.Marshal(map[string]any{"sinks": sinks, "span": map[string]any{"from": o.From, "to": o.To}})
}
