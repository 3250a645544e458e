package amortise

// Case is a named plan text: the corpus's worked plans (§17.4) and its
// plans refused plan_malformed (§20), shared by this package's tests and
// the corpus generator.
type Case struct {
	Name string
	Plan string
}

const span = `"span":{"from":"2026-01-01T00:00:00Z","to":"2026-02-01T00:00:00Z"}`

// WorkedPlans are §17.4's worked plans, in the order its corpus paragraph lists
// them. Every title below not otherwise stated has pinned 100 and classical
// 200 bytes, a saving of 100.
var WorkedPlans = []Case{
	// g1 saves 5 × 300 = 1500 for 1000 (net 500); g2 saves 10 × 100 = 1000
	// for 5000 (net −4000).
	{"worth_and_not", `{` + span + `,"cap":2,
		"generations":[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":"5000"}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":400},
			{"id":"t2","generation":"g2","pinned_bytes":100,"classical_bytes":200}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":5,"t2":10}}]}`},
	// 5 × 300 = 1500 for a set of 1500: net 0, not worth holding.
	{"net_zero", `{` + span + `,"cap":1,
		"generations":[{"id":"g1","set_bytes":1500}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":400}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":5}}]}`},
	// g1 held costs 0 (net 300); g2 held and not fetched from has net 0 and
	// is kept by step 3's fill under the cap of 2.
	{"held_costs_nothing", `{` + span + `,"cap":2,
		"generations":[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":400}],
		"sinks":[{"id":"s1","holds":["g1","g2"],"fetches":{"t1":1}}]}`},
	// A pinned rendition of 500 beside a classical one of 400: saving −100,
	// left out of step 1; classical for a sink that holds the set too.
	{"pinned_larger", `{` + span + `,"cap":1,
		"generations":[{"id":"g1","set_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":500,"classical_bytes":400}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":3}},{"id":"s2","holds":["g1"],"fetches":{"t1":3}}]}`},
	// g2 is coded against g1 in 1000 bytes: a sink holding g1 pays 1000 and
	// evicts g1 (cap 1) after the fetch; one holding nothing pays 10000.
	{"successor_coded", `{` + span + `,"cap":1,
		"generations":[{"id":"g1","set_bytes":10000},{"id":"g2","set_bytes":10000,"coded_against":"g1","coded_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":400},
			{"id":"t2","generation":"g2","pinned_bytes":100,"classical_bytes":400}],
		"sinks":[{"id":"holds_g1","holds":["g1"],"fetches":{"t2":10}},{"id":"holds_none","holds":[],"fetches":{"t2":10}}]}`},
	// Holding g1 (net 300) and g2 (net 500), g3 is worth fetching (2000 −
	// 1000 = 1000): cap 2 evicts g1, the smallest net; cap 3 keeps all.
	{"third_cap2", `{` + span + `,"cap":2,` + threeGenerations + `}`},
	{"third_cap3", `{` + span + `,"cap":3,` + threeGenerations + `}`},
	// g1 and g2 each save 15 × 100 = 1500 for 1000: equal nets of 500, the
	// later kept under a cap of 1.
	{"equal_net_later", `{` + span + `,"cap":1,
		"generations":[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":200},
			{"id":"t2","generation":"g2","pinned_bytes":100,"classical_bytes":200}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":15,"t2":15}}]}`},
	// Three sinks save 400, 300 and 500 of a 1000-byte set: 1200 together,
	// each less than the set; none fetches it.
	{"three_sinks_none", `{` + span + `,"cap":1,
		"generations":[{"id":"g1","set_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":200}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":4}},{"id":"s2","holds":[],"fetches":{"t1":3}},{"id":"s3","holds":[],"fetches":{"t1":5}}]}`},
	// Step 3's fill: g4 is worth fetching; of the held g1 to g3 (no
	// fetches, net 0) the later, g3, fills the cap of 2.
	{"fill_later_first", `{` + span + `,"cap":2,
		"generations":[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":1000},{"id":"g3","set_bytes":1000},{"id":"g4","set_bytes":1000}],
		"titles":[{"id":"t4","generation":"g4","pinned_bytes":100,"classical_bytes":200}],
		"sinks":[{"id":"s1","holds":["g1","g2","g3"],"fetches":{"t4":20}}]}`},
	// Counts and bytes at 2^63 − 1 that no sum passes.
	{"max_values", `{` + span + `,"cap":"9223372036854775807",
		"generations":[{"id":"g1","set_bytes":"9223372036854775807"}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":0,"classical_bytes":1}],
		"sinks":[{"id":"s1","holds":[],"fetches":{"t1":"9223372036854775807"}}]}`},
}

const threeGenerations = `
		"generations":[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":1000},{"id":"g3","set_bytes":1000}],
		"titles":[{"id":"t1","generation":"g1","pinned_bytes":100,"classical_bytes":200},
			{"id":"t2","generation":"g2","pinned_bytes":100,"classical_bytes":200},
			{"id":"t3","generation":"g3","pinned_bytes":100,"classical_bytes":200}],
		"sinks":[{"id":"s1","holds":["g1","g2"],"fetches":{"t1":3,"t2":5,"t3":20}}]`

// plan is a small good plan with one part replaced, for MalformedPlans.
func plan(spanPart, capPart, gens, titles, sinks string) string {
	return `{` + spanPart + `,` + capPart + `,"generations":` + gens + `,"titles":` + titles + `,"sinks":` + sinks + `}`
}

const (
	okCap    = `"cap":1`
	okGens   = `[{"id":"g1","set_bytes":1000},{"id":"g2","set_bytes":1000,"coded_against":"g1","coded_bytes":10}]`
	okTitles = `[{"id":"t1","generation":"g1","pinned_bytes":1,"classical_bytes":2}]`
	okSinks  = `[{"id":"s1","holds":["g1"],"fetches":{"t1":1}}]`
)

// MalformedPlans are plans §20's plan_malformed refuses, one rule broken each,
// named after the clause.
var MalformedPlans = []Case{
	{"good", plan(span, okCap, okGens, okTitles, okSinks)}, // the base every other breaks
	// "a span that does not run forward"
	{"span_equal", plan(`"span":{"from":"2026-01-01T00:00:00Z","to":"2026-01-01T00:00:00Z"}`, okCap, okGens, okTitles, okSinks)},
	{"span_backward", plan(`"span":{"from":"2026-01-02T00:00:00Z","to":"2026-01-01T23:59:59.5Z"}`, okCap, okGens, okTitles, okSinks)},
	{"span_not_utc", plan(`"span":{"from":"2026-01-01T00:00:00+01:00","to":"2026-02-01T00:00:00Z"}`, okCap, okGens, okTitles, okSinks)},
	{"span_no_date", plan(`"span":{"from":"2026-02-30T00:00:00Z","to":"2026-03-01T00:00:00Z"}`, okCap, okGens, okTitles, okSinks)},
	{"span_missing_to", plan(`"span":{"from":"2026-01-01T00:00:00Z"}`, okCap, okGens, okTitles, okSinks)},
	// "a cap of 0"
	{"cap_zero", plan(span, `"cap":0`, okGens, okTitles, okSinks)},
	// "generations out of epoch order or named twice"
	{"generation_twice", plan(span, okCap, `[{"id":"g1","set_bytes":1},{"id":"g1","set_bytes":2}]`, okTitles, okSinks)},
	{"generation_order", plan(span, okCap, `[{"id":"g1","set_bytes":1,"coded_against":"g2","coded_bytes":1},{"id":"g2","set_bytes":1}]`, okTitles, okSinks)},
	// "a coding against a generation that is not an earlier one"
	{"coded_against_self", plan(span, okCap, `[{"id":"g1","set_bytes":1,"coded_against":"g1","coded_bytes":1}]`, okTitles, okSinks)},
	{"coded_against_unknown", plan(span, okCap, `[{"id":"g1","set_bytes":1,"coded_against":"g0","coded_bytes":1}]`, okTitles, okSinks)},
	{"coded_bytes_alone", plan(span, okCap, `[{"id":"g1","set_bytes":1,"coded_bytes":1}]`, okTitles, okSinks)},
	// "a title of no stated generation"
	{"title_no_generation", plan(span, okCap, okGens, `[{"id":"t1","generation":"g9","pinned_bytes":1,"classical_bytes":2}]`, okSinks)},
	{"title_twice", plan(span, okCap, okGens, `[{"id":"t1","generation":"g1","pinned_bytes":1,"classical_bytes":2},{"id":"t1","generation":"g2","pinned_bytes":1,"classical_bytes":2}]`, okSinks)},
	// "a sink that holds or fetches what the plan does not state"
	{"sink_holds_unstated", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":["g9"],"fetches":{}}]`)},
	{"sink_fetches_unstated", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":[],"fetches":{"t9":1}}]`)},
	{"sink_holds_twice", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":["g1","g1"],"fetches":{}}]`)},
	{"sink_twice", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":[],"fetches":{}},{"id":"s1","holds":[],"fetches":{}}]`)},
	{"sinks_empty", plan(span, okCap, okGens, okTitles, `[]`)},
	// "a member of another type"
	{"cap_bool", plan(span, `"cap":true`, okGens, okTitles, okSinks)},
	{"cap_negative", plan(span, `"cap":-1`, okGens, okTitles, okSinks)},
	{"cap_fraction", plan(span, `"cap":1.0`, okGens, okTitles, okSinks)},
	{"cap_exponent", plan(span, `"cap":1e2`, okGens, okTitles, okSinks)},
	{"cap_string_leading_zero", plan(span, `"cap":"01"`, okGens, okTitles, okSinks)},
	{"cap_string_sign", plan(span, `"cap":"+1"`, okGens, okTitles, okSinks)},
	{"set_bytes_2_63", plan(span, okCap, `[{"id":"g1","set_bytes":9223372036854775808}]`, okTitles, okSinks)},
	{"set_bytes_null", plan(span, okCap, `[{"id":"g1","set_bytes":null}]`, okTitles, okSinks)},
	{"id_empty", plan(span, okCap, `[{"id":"","set_bytes":1}]`, okTitles, okSinks)},
	{"id_number", plan(span, okCap, `[{"id":1,"set_bytes":1}]`, okTitles, okSinks)},
	{"generations_object", plan(span, okCap, `{}`, okTitles, okSinks)},
	{"holds_string", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":"g1","fetches":{}}]`)},
	{"fetches_array", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":[],"fetches":[]}]`)},
	{"span_number", plan(`"span":{"from":0,"to":"2026-02-01T00:00:00Z"}`, okCap, okGens, okTitles, okSinks)},
	{"member_unknown", plan(span, okCap, `[{"id":"g1","set_bytes":1,"epoch":1}]`, okTitles, okSinks)},
	{"member_missing", plan(span, okCap, okGens, `[{"id":"t1","generation":"g1","pinned_bytes":1}]`, okSinks)},
	{"member_twice", `{` + span + `,"cap":1,"cap":2,"generations":[],"titles":[],"sinks":[{"id":"s","holds":[],"fetches":{}}]}`},
	{"member_twice_nested", plan(span, okCap, okGens, okTitles, `[{"id":"s1","holds":[],"fetches":{"t1":1,"t\u0031":2}}]`)},
	{"not_json", `{"span":`},
	{"not_object", `[]`},
	// Sums past 2^63 − 1 (H6).
	{"saving_overflow", plan(span, okCap, okGens, `[{"id":"t1","generation":"g1","pinned_bytes":0,"classical_bytes":"4611686018427387904"}]`, `[{"id":"s1","holds":[],"fetches":{"t1":2}}]`)},
	{"received_overflow", plan(span, okCap, okGens, `[{"id":"t1","generation":"g1","pinned_bytes":"9223372036854775807","classical_bytes":"9223372036854775807"},{"id":"t2","generation":"g2","pinned_bytes":1,"classical_bytes":1}]`, `[{"id":"s1","holds":[],"fetches":{"t1":1,"t2":1}}]`)},
}
