package amortise

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// summary writes one sink's outcome compactly: each generation as
// saving/cost/net/worth, then the id lists, the pinned titles and the two
// byte counts.
func summary(p *Plan, s SinkOutcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", s.ID)
	for i, g := range s.Generations {
		w := "n"
		if g.WorthHolding {
			w = "y"
		}
		fmt.Fprintf(&b, " %s %d/%d/%d/%s", p.Generations[i].ID, g.Saving, g.Cost, g.Net, w)
	}
	list := func(name string, is []int) {
		fmt.Fprintf(&b, "; %s", name)
		for _, i := range is {
			fmt.Fprintf(&b, " %s", p.Generations[i].ID)
		}
	}
	list("kept", s.Kept)
	list("fetched", s.Fetched)
	list("evicted", s.Evicted)
	b.WriteString("; pinned")
	for i, pinned := range s.Pinned {
		if pinned {
			fmt.Fprintf(&b, " %s", p.Titles[i].ID)
		}
	}
	fmt.Fprintf(&b, "; received %d without %d", s.BytesReceived, s.BytesWithoutSet)
	return b.String()
}

// TestWorked: §17.4's worked plans against outcomes computed by hand from
// §17.2 (the arithmetic is in cases.go's comments).
func TestWorked(t *testing.T) {
	want := map[string][]string{
		"worth_and_not":      {"s1: g1 1500/1000/500/y g2 1000/5000/-4000/n; kept g1; fetched g1; evicted; pinned t1; received 3500 without 4000"},
		"net_zero":           {"s1: g1 1500/1500/0/n; kept; fetched; evicted; pinned; received 2000 without 2000"},
		"held_costs_nothing": {"s1: g1 300/0/300/y g2 0/0/0/n; kept g1 g2; fetched; evicted; pinned t1; received 100 without 400"},
		"pinned_larger": {
			"s1: g1 0/1000/-1000/n; kept; fetched; evicted; pinned; received 1200 without 1200",
			"s2: g1 0/0/0/n; kept g1; fetched; evicted; pinned; received 1200 without 1200",
		},
		"successor_coded": {
			"holds_g1: g1 0/0/0/n g2 3000/1000/2000/y; kept g2; fetched g2; evicted g1; pinned t2; received 2000 without 4000",
			"holds_none: g1 0/10000/-10000/n g2 3000/10000/-7000/n; kept; fetched; evicted; pinned; received 4000 without 4000",
		},
		"third_cap2":      {"s1: g1 300/0/300/y g2 500/0/500/y g3 2000/1000/1000/y; kept g2 g3; fetched g3; evicted g1; pinned t2 t3; received 4100 without 5600"},
		"third_cap3":      {"s1: g1 300/0/300/y g2 500/0/500/y g3 2000/1000/1000/y; kept g1 g2 g3; fetched g3; evicted; pinned t1 t2 t3; received 3800 without 5600"},
		"equal_net_later": {"s1: g1 1500/1000/500/y g2 1500/1000/500/y; kept g2; fetched g2; evicted; pinned t2; received 5500 without 6000"},
		"three_sinks_none": {
			"s1: g1 400/1000/-600/n; kept; fetched; evicted; pinned; received 800 without 800",
			"s2: g1 300/1000/-700/n; kept; fetched; evicted; pinned; received 600 without 600",
			"s3: g1 500/1000/-500/n; kept; fetched; evicted; pinned; received 1000 without 1000",
		},
		"fill_later_first": {"s1: g1 0/0/0/n g2 0/0/0/n g3 0/0/0/n g4 2000/1000/1000/y; kept g3 g4; fetched g4; evicted g1 g2; pinned t4; received 3000 without 4000"},
		"max_values":       {"s1: g1 9223372036854775807/9223372036854775807/0/n; kept; fetched; evicted; pinned; received 9223372036854775807 without 9223372036854775807"},
	}
	if len(want) != len(WorkedPlans) {
		t.Fatalf("%d expectations for %d worked plans", len(want), len(WorkedPlans))
	}
	for _, c := range WorkedPlans {
		p, err := Read([]byte(c.Plan))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		o, err := Apply(p)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if len(o.Sinks) != len(want[c.Name]) {
			t.Fatalf("%s: %d sinks", c.Name, len(o.Sinks))
		}
		for i, s := range o.Sinks {
			if got := summary(p, s); got != want[c.Name][i] {
				t.Errorf("%s:\n got %s\nwant %s", c.Name, got, want[c.Name][i])
			}
		}
	}
}

// TestOutcomeJSON: the canonical JSON of a §17.2 outcome, as `waiops prior
// plan` prints it, by hand.
func TestOutcomeJSON(t *testing.T) {
	p, err := Read([]byte(WorkedPlans[0].Plan))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := Apply(p)
	b, err := o.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sinks":[{"bytes_received":"3500","bytes_without_set":"4000","evicted":[],"fetched":["g1"],` +
		`"generations":[{"cost":"1000","id":"g1","net":"500","saving":"1500","worth_holding":true},` +
		`{"cost":"5000","id":"g2","net":"-4000","saving":"1000","worth_holding":false}],` +
		`"id":"s1","kept":["g1"],"titles":[{"id":"t1","rendition":"pinned"},{"id":"t2","rendition":"classical"}]}],` +
		`"span":{"from":"2026-01-01T00:00:00Z","to":"2026-02-01T00:00:00Z"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// TestMalformed: every plan of MalformedPlans but "good" is plan_malformed, at
// Read or, for a sum past 2^63 − 1, at Apply; the reason names the rule.
func TestMalformed(t *testing.T) {
	reasons := map[string]string{
		"span_equal": "does not run forward", "span_backward": "does not run forward",
		"span_not_utc": "RFC 3339 UTC", "span_no_date": "RFC 3339 UTC", "span_missing_to": `no member "to"`,
		"cap_zero": "cap is 0", "generation_twice": "named twice", "generation_order": "not an earlier generation",
		"coded_against_self": "not an earlier generation", "coded_against_unknown": "not an earlier generation",
		"coded_bytes_alone": "without the other", "title_no_generation": "does not state",
		"title_twice": "named twice", "sink_holds_unstated": "does not state", "sink_fetches_unstated": "does not state",
		"sink_holds_twice": "twice", "sink_twice": "named twice", "sinks_empty": "one or more sinks",
		"cap_bool": "not an integer", "cap_negative": "not an integer", "cap_fraction": "not an integer",
		"cap_exponent": "not an integer", "cap_string_leading_zero": "leading zeros", "cap_string_sign": "not an integer",
		"set_bytes_2_63": "past 2^63 - 1", "set_bytes_null": "not an integer", "id_empty": "non-empty",
		"id_number": "not a string", "generations_object": "not an array", "holds_string": "not an array",
		"fetches_array": "not an object", "span_number": "not a string", "member_unknown": `member "epoch"`,
		"member_missing": `no member "classical_bytes"`, "member_twice": "named twice",
		"member_twice_nested": "named twice", "not_json": "not JSON", "not_object": "not an object",
		"saving_overflow": "saving of generation g1 passes", "received_overflow": "passes 2^63 - 1",
	}
	for _, c := range MalformedPlans {
		p, err := Read([]byte(c.Plan))
		if err == nil {
			_, err = Apply(p)
		}
		if c.Name == "good" {
			if err != nil {
				t.Errorf("good: %v", err)
			}
			continue
		}
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != Malformed {
			t.Errorf("%s: %v, want plan_malformed", c.Name, err)
			continue
		}
		if w, ok := reasons[c.Name]; !ok || !strings.Contains(r.Msg, w) {
			t.Errorf("%s: reason %q does not name %q", c.Name, r.Msg, w)
		}
	}
	if len(reasons) != len(MalformedPlans)-1 {
		t.Errorf("%d reasons for %d cases", len(reasons), len(MalformedPlans)-1)
	}
}

// TestCount: integers 0 to 2^63 − 1 as numbers or decimal strings, both
// sides of each edge.
func TestCount(t *testing.T) {
	for in, ok := range map[string]bool{
		`0`: true, `"0"`: true, `9223372036854775807`: true, `"9223372036854775807"`: true,
		`9223372036854775808`: false, `"9223372036854775808"`: false, `-0`: false, `"-1"`: false,
		`"00"`: false, `""`: false, `"1 "`: false, `1.5`: false, `true`: false,
	} {
		b := plan(span, `"cap":`+in, okGens, okTitles, okSinks)
		_, err := Read([]byte(b))
		if (err == nil) != (ok && in != `0` && in != `"0"`) {
			t.Errorf("cap %s: %v", in, err)
		}
	}
}

// TestSpanExact: §17.1's span runs "from one instant to a later one",
// compared exactly: instants that differ only past the ninth digit of
// their fraction (where a nanosecond clock stops) run forward one way and
// not the other, and "0.5" is "0.50".
func TestSpanExact(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"2026-01-01T00:00:00.1234567891Z", "2026-01-01T00:00:00.1234567892Z", true},
		{"2026-01-01T00:00:00.1234567892Z", "2026-01-01T00:00:00.1234567891Z", false},
		{"2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.50Z", false},
		{"2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.5000000000001Z", true},
		{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.0000000000001Z", true},
		{"2026-01-01T00:00:00.9999999999Z", "2026-01-01T00:00:01Z", true},
		{"2026-01-01T00:00:01Z", "2026-01-01T00:00:00.9999999999Z", false},
	} {
		b := plan(`"span":{"from":"`+c.from+`","to":"`+c.to+`"}`, okCap, okGens, okTitles, okSinks)
		_, err := Read([]byte(b))
		if (err == nil) != c.ok {
			t.Errorf("from %s to %s: %v, want ok %v", c.from, c.to, err, c.ok)
		}
	}
}
