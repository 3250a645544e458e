package stagecorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
)

// The rans64_decode vectors: every mode (table × escape × end), under strict
// each refusal of E1 alone and each pair one symbol can give under both end
// rules, lenient's acceptances, the end rules, and the conditions.

// anyAt accepts any refusal index in a case's intent.
const anyAt = -2

// Strict bounds of the corpus: strict(−3, 5).
const strictLo, strictHi = -3, 5

// ransTableSets are each table rule's corpus tables. Table 2's escape with
// no groups (value n − 2 + o) lies above hi, so a count over 8 also
// breaks the range; under t2, table 0 has n = 2 (every symbol escapes).
var ransTableSets = map[string][]stage.RansTable{
	"t4097": {
		{CDF: []int64{0, 16384, 32768, 49152, 65536}, Offset: 0},
		{CDF: []int64{0, 40000, 65000, 65536}, Offset: -2},
		{CDF: []int64{0, 32768, 65536}, Offset: 10},
	},
	"t2": {
		{CDF: []int64{0, 65536}, Offset: 0},
		{CDF: []int64{0, 30000, 65536}, Offset: 1},
		{CDF: []int64{0, 65536}, Offset: 20},
	},
}

type ransMode struct{ table, escape, end string }

func (m ransMode) id() string {
	esc := m.escape
	if esc == "strict" {
		esc = fmt.Sprintf("strict_lo%d_hi%d", strictLo, strictHi)
	}
	return m.table + "_" + esc + "_" + m.end
}

func (m ransMode) modes() map[string]any {
	mm := map[string]any{"table": m.table, "escape": m.escape, "end": m.end}
	if m.escape == "strict" {
		mm["lo"], mm["hi"] = int64(strictLo), int64(strictHi)
	}
	return mm
}

func ransIn(stream []byte, tables []stage.RansTable, reads []int) map[string]any {
	ts := make([]any, len(tables))
	for i, t := range tables {
		ts[i] = map[string]any{"cdf": t.CDF, "offset": t.Offset}
	}
	return map[string]any{"stream": fmt.Sprintf("%x", stream), "tables": ts, "reads": reads}
}

func ransCase(m ransMode, name string, in map[string]any, want refusal.Code, at int64) corpusCase {
	return corpusCase{op: "rans64_decode", id: m.id() + "_" + name, modes: m.modes(), in: in, want: string(want), wantAt: at}
}

func ransCases() []corpusCase {
	var cs []corpusCase
	rng := newRand(1)
	for _, tr := range []string{"t4097", "t2"} {
		for _, esc := range []string{"lenient", "strict"} {
			for _, end := range []string{"canonical", "final_only"} {
				m := ransMode{tr, esc, end}
				cs = append(cs, ransCase(m, "roundtrip", ransRoundTrip(rng, ransTableSets[tr], esc == "strict"), "", 0))
			}
		}
	}
	for _, tr := range []string{"t4097", "t2"} {
		for _, sc := range strictScenarios {
			cs = append(cs, strictPair(rng, tr, sc)...)
		}
		cs = append(cs, lenientCases(rng, tr)...)
		cs = append(cs, endCases(rng, tr)...)
	}
	return append(cs, ransConditionCases()...)
}

// randSymbol is a symbol of table t: in [lo, hi] under strict, otherwise a
// table symbol or an escape of any size an i32 symbol allows.
func randSymbol(rng *rand.Rand, t stage.RansTable, strict bool) int64 {
	if strict {
		return strictLo + rng.Int64N(strictHi-strictLo+1)
	}
	switch rng.IntN(8) {
	case 0:
		return t.Offset - 1 - rng.Int64N(1<<uint(rng.IntN(30)))
	case 1:
		return t.Offset + int64(len(t.CDF)) + rng.Int64N(1<<uint(rng.IntN(30)))
	}
	return t.Offset + rng.Int64N(int64(len(t.CDF)-1))
}

// encodeRandom queues count random symbols and returns their reads.
func encodeRandom(rng *rand.Rand, e *stage.RansEncoder, tables []stage.RansTable, count int, strict bool) []int {
	reads := make([]int, count)
	for i := range reads {
		reads[i] = rng.IntN(len(tables))
		if err := e.Symbol(tables[reads[i]], randSymbol(rng, tables[reads[i]], strict)); err != nil {
			panic(err) // randSymbol keeps every escape within 32 bits
		}
	}
	return reads
}

func ransRoundTrip(rng *rand.Rand, tables []stage.RansTable, strict bool) map[string]any {
	var e stage.RansEncoder
	reads := encodeRandom(rng, &e, tables, 40, strict)
	if !strict {
		// The i32 ends, as escapes of 8 groups.
		for _, s := range []int64{maxI32, minI32} {
			reads = append(reads, 0)
			if err := e.Symbol(tables[0], s); err != nil {
				panic(err)
			}
		}
	}
	return ransIn(e.Bytes(), tables, reads)
}

// escapeSlot queues table t's escape step.
func escapeSlot(e *stage.RansEncoder, t stage.RansTable) {
	n := len(t.CDF)
	e.PutSymbol(uint32(t.CDF[n-2]), uint32(t.CDF[n-1]-t.CDF[n-2]))
}

// A strict scenario: one symbol's faults, the target it encodes, and the
// outcome under each end rule. exhaust truncates the stream so that it runs
// out in the target; canonical then refuses there, final_only refuses the
// target's other fault there or, with none, runs out at the end.
type strictScenario struct {
	name    string
	table   int // the target's table
	exhaust bool
	other   refusal.Code
	target  func(rng *rand.Rand, e *stage.RansEncoder, t stage.RansTable)
}

// inRangeSymbol queues a symbol in [lo, hi], escaped minimally if it must be.
func inRangeSymbol(rng *rand.Rand, e *stage.RansEncoder, t stage.RansTable) {
	if err := e.Symbol(t, strictLo+rng.Int64N(strictHi-strictLo+1)); err != nil {
		panic(err)
	}
}

// nonMinimal queues an escape whose last group is 0, with raw in or out of
// [lo, hi] as inRange says (raw < 16 in the first group).
func nonMinimal(inRange bool) func(*rand.Rand, *stage.RansEncoder, stage.RansTable) {
	return func(rng *rand.Rand, e *stage.RansEncoder, t stage.RansTable) {
		escapeSlot(e, t)
		n, o := int64(len(t.CDF)), t.Offset
		for {
			raw := rng.Int64N(16)
			v := stage.EscapeValue(raw, int(n)) + o
			if (v >= strictLo && v <= strictHi) == inRange {
				count := 2 + rng.IntN(7) // 2..8 groups: raw, then zeros
				e.PutBits(uint32(count))
				e.PutBits(uint32(raw))
				for range count - 1 {
					e.PutBits(0)
				}
				return
			}
		}
	}
}

func countOver8(rng *rand.Rand, e *stage.RansEncoder, t stage.RansTable) {
	escapeSlot(e, t)
	e.PutBits(uint32(9 + rng.IntN(7)))
}

func outOfRange(low bool) func(*rand.Rand, *stage.RansEncoder, stage.RansTable) {
	return func(rng *rand.Rand, e *stage.RansEncoder, t stage.RansTable) {
		s := strictHi + 1 + rng.Int64N(1000)
		if low {
			s = strictLo - 1 - rng.Int64N(1000)
		}
		if err := e.Symbol(t, s); err != nil {
			panic(err)
		}
	}
}

var strictScenarios = []strictScenario{
	{name: "exhausted", exhaust: true, target: inRangeSymbol},
	{name: "count_over_8", other: stage.StreamNoncanonical, target: countOver8},
	{name: "nonminimal", other: stage.StreamNoncanonical, target: nonMinimal(true)},
	{name: "low", other: refusal.FieldRange, target: outOfRange(true)},
	{name: "high", other: refusal.FieldRange, target: outOfRange(false)},
	{name: "exhausted_and_count_over_8", exhaust: true, other: stage.StreamNoncanonical, target: countOver8},
	{name: "exhausted_and_nonminimal", exhaust: true, other: stage.StreamNoncanonical, target: nonMinimal(true)},
	{name: "exhausted_and_low", exhaust: true, other: refusal.FieldRange, target: outOfRange(true)},
	{name: "exhausted_and_high", exhaust: true, other: refusal.FieldRange, target: outOfRange(false)},
	{name: "count_over_8_and_high", table: 2, other: stage.StreamNoncanonical, target: countOver8},
	{name: "nonminimal_and_out_of_range", other: stage.StreamNoncanonical, target: nonMinimal(false)},
}

// strictPair searches (deterministically) for a stream on which scenario sc
// gives its outcome under both end rules, and returns the two vectors. The
// target follows k random in-range symbols and precedes a few more; an
// exhausting scenario drops the stream's last word, and the search keeps a
// stream only if it runs out in the target itself.
func strictPair(rng *rand.Rand, tr string, sc strictScenario) []corpusCase {
	tables := ransTableSets[tr]
	can := ransMode{tr, "strict", "canonical"}
	fin := ransMode{tr, "strict", "final_only"}
	for range 200000 {
		var e stage.RansEncoder
		k := rng.IntN(40)
		reads := encodeRandom(rng, &e, tables[:2], k, true)
		sc.target(rng, &e, tables[sc.table])
		reads = append(reads, sc.table)
		reads = append(reads, encodeRandom(rng, &e, tables[:2], rng.IntN(12), true)...)
		stream := e.Bytes()
		if sc.exhaust {
			if len(stream) < 12 {
				continue
			}
			stream = stream[:len(stream)-4]
		}
		in := ransIn(stream, tables, reads)
		var cc, fc corpusCase
		switch {
		case !sc.exhaust:
			cc = ransCase(can, sc.name, in, sc.other, int64(k))
			fc = ransCase(fin, sc.name, in, sc.other, int64(k))
		case sc.other == "":
			cc = ransCase(can, sc.name, in, stage.StreamExhausted, int64(k))
			fc = ransCase(fin, sc.name, in, stage.StreamExhausted, int64(len(reads)))
		default:
			cc = ransCase(can, sc.name, in, stage.StreamExhausted, int64(k))
			fc = ransCase(fin, sc.name, in, sc.other, int64(k))
		}
		if cc.meetsIntent() && fc.meetsIntent() {
			return []corpusCase{cc, fc}
		}
	}
	panic("stage: no stream found for strict scenario " + tr + " " + sc.name) // a generator bug
}

// meetsIntent reports whether the case evaluates to its intended outcome.
func (c corpusCase) meetsIntent() bool {
	if c.want == anyOutcome {
		return true
	}
	code, at := c.outcome()
	return code == c.want && (code == "" || c.wantAt == anyAt || at == c.wantAt)
}

// saturating is a table (n = 4, legal under both rules) whose non-escape
// symbols pass i32 once offset.
var saturating = stage.RansTable{CDF: []int64{0, 100, 200, 65536}, Offset: maxI32}

// lenientCases are the escapes lenient accepts and saturates, under both
// end rules.
func lenientCases(rng *rand.Rand, tr string) []corpusCase {
	tables := append(append([]stage.RansTable(nil), ransTableSets[tr]...), saturating)
	groups := func(e *stage.RansEncoder, raw uint64) {
		for j := range 8 {
			e.PutBits(uint32(raw>>(4*j)) & 15)
		}
	}
	cases := []struct {
		name  string
		table int
		ops   func(e *stage.RansEncoder, t stage.RansTable)
	}{
		{"count_12_clamped_to_8", 0, func(e *stage.RansEncoder, t stage.RansTable) {
			escapeSlot(e, t)
			e.PutBits(12)
			groups(e, rng.Uint64()&(1<<32-1))
		}},
		{"continuation_15_15_3", 1, func(e *stage.RansEncoder, t stage.RansTable) {
			escapeSlot(e, t)
			e.PutBits(15)
			e.PutBits(15)
			e.PutBits(3)
			groups(e, rng.Uint64()&(1<<32-1))
		}},
		{"nonminimal_accepted", 0, func(e *stage.RansEncoder, t stage.RansTable) {
			escapeSlot(e, t)
			e.PutBits(3)
			e.PutBits(uint32(1 + rng.IntN(15)))
			e.PutBits(uint32(rng.IntN(16)))
			e.PutBits(0)
		}},
		{"value_saturates_high", 0, func(e *stage.RansEncoder, t stage.RansTable) {
			escapeSlot(e, t)
			e.PutBits(8)
			groups(e, 1<<32-2) // ⌊raw/2⌋ + (n − 2) = 2^31 − 1 + n − 2
		}},
		{"symbol_saturates_low", 1, func(e *stage.RansEncoder, t stage.RansTable) {
			escapeSlot(e, t)
			e.PutBits(8)
			groups(e, 1<<32-1) // −⌊raw/2⌋ − 1 = −2^31, then + o = −2
		}},
		{"symbol_saturates_offset", 3, func(e *stage.RansEncoder, t stage.RansTable) {
			e.PutSymbol(uint32(t.CDF[1]), uint32(t.CDF[2]-t.CDF[1])) // 1 + (2^31 − 1)
		}},
	}
	var cs []corpusCase
	for _, c := range cases {
		var e stage.RansEncoder
		reads := encodeRandom(rng, &e, tables[:3], rng.IntN(4), false)
		c.ops(&e, tables[c.table])
		reads = append(reads, c.table)
		reads = append(reads, encodeRandom(rng, &e, tables[:3], 2, false)...)
		in := ransIn(e.Bytes(), tables, reads)
		for _, end := range []string{"canonical", "final_only"} {
			cs = append(cs, ransCase(ransMode{tr, "lenient", end}, c.name, in, "", 0))
		}
	}
	return cs
}

// endCases are the end rules under lenient: a stream that runs out, one
// with a word left over, a decode that stops early, and no reads at all.
func endCases(rng *rand.Rand, tr string) []corpusCase {
	tables := ransTableSets[tr]
	can := ransMode{tr, "lenient", "canonical"}
	fin := ransMode{tr, "lenient", "final_only"}
	var cs []corpusCase

	var e stage.RansEncoder
	reads := encodeRandom(rng, &e, tables, 30, false)
	full := e.Bytes()
	short := full[:len(full)-4]
	cs = append(cs,
		ransCase(can, "exhausted", ransIn(short, tables, reads), stage.StreamExhausted, anyAt),
		ransCase(fin, "exhausted", ransIn(short, tables, reads), stage.StreamExhausted, int64(len(reads))))
	extra := append(append([]byte(nil), full...), 0, 0, 0, 0)
	cs = append(cs,
		ransCase(can, "word_left_over", ransIn(extra, tables, reads), stage.StreamNoncanonical, int64(len(reads))),
		ransCase(fin, "word_left_over", ransIn(extra, tables, reads), "", 0))
	early := reads[:len(reads)-1]
	cs = append(cs,
		ransCase(can, "stops_one_early", ransIn(full, tables, early), stage.StreamNoncanonical, int64(len(early))),
		ransCase(fin, "stops_one_early", ransIn(full, tables, early), "", 0))
	var none stage.RansEncoder
	cs = append(cs,
		ransCase(can, "no_reads", ransIn(none.Bytes(), tables, []int{}), "", 0),
		ransCase(fin, "no_reads", ransIn(none.Bytes(), tables, []int{}), "", 0))
	odd := []byte{1, 0, 0, 0, 0, 0, 0, 0} // x = 1: not the canonical 2^31
	cs = append(cs,
		ransCase(can, "no_reads_state_1", ransIn(odd, tables, []int{}), stage.StreamNoncanonical, 0),
		ransCase(fin, "no_reads_state_1", ransIn(odd, tables, []int{}), "", 0))
	return cs
}

// ransConditionCases are E1's conditions (docs/READINGS.md D-E included), each
// refused model_mismatch at −1 before any symbol.
func ransConditionCases() []corpusCase {
	base := ransMode{"t4097", "lenient", "canonical"}
	tables := ransTableSets["t4097"]
	goodFor := func(t stage.RansTable) []byte { // a stream of symbol 5 against t
		var e stage.RansEncoder
		if err := e.Symbol(t, 5); err != nil {
			panic(err)
		}
		return e.Bytes()
	}
	good := goodFor(tables[0])
	one := []int{0}
	mm := refusal.ModelMismatch
	withTable := func(t stage.RansTable) []stage.RansTable { return []stage.RansTable{t} }
	long := make([]int64, 4098) // 4098 entries: t2 only
	for i := range long {
		long[i] = int64(i * 15)
	}
	long[len(long)-1] = 65536
	n2 := stage.RansTable{CDF: []int64{0, 65536}}
	cs := []corpusCase{
		ransCase(base, "stream_6_bytes", ransIn(good[:6], tables, one), mm, -1),
		ransCase(base, "stream_4_bytes", ransIn(good[:4], tables, one), mm, -1),
		ransCase(base, "stream_0_bytes", ransIn(nil, tables, []int{}), mm, -1),
		ransCase(base, "n2", ransIn(goodFor(n2), withTable(n2), one), mm, -1),
		ransCase(ransMode{"t2", "lenient", "canonical"}, "n2", ransIn(goodFor(n2), withTable(n2), one), "", 0),
		ransCase(base, "n4098", ransIn(goodFor(stage.RansTable{CDF: long}), withTable(stage.RansTable{CDF: long}), one), mm, -1),
		ransCase(ransMode{"t2", "lenient", "canonical"}, "n4098", ransIn(goodFor(stage.RansTable{CDF: long}), withTable(stage.RansTable{CDF: long}), one), "", 0),
		ransCase(base, "cdf0_nonzero", ransIn(good, withTable(stage.RansTable{CDF: []int64{1, 2, 65536}}), one), mm, -1),
		ransCase(base, "cdf_end_65535", ransIn(good, withTable(stage.RansTable{CDF: []int64{0, 2, 65535}}), one), mm, -1),
		ransCase(base, "cdf_not_increasing", ransIn(good, withTable(stage.RansTable{CDF: []int64{0, 7, 7, 65536}}), one), mm, -1),
		ransCase(base, "offset_2p31", ransIn(good, withTable(stage.RansTable{CDF: tables[0].CDF, Offset: maxI32 + 1}), one), mm, -1),
		ransCase(base, "offset_-2p31-1", ransIn(good, withTable(stage.RansTable{CDF: tables[0].CDF, Offset: minI32 - 1}), one), mm, -1),
		ransCase(base, "read_past_tables", ransIn(good, tables, []int{3}), mm, -1),
		ransCase(base, "read_negative", ransIn(good, tables, []int{-1}), mm, -1),
		// A table that fails is refused before a stream that runs out.
		ransCase(base, "bad_table_and_short_stream", ransIn(good[:8], append(append([]stage.RansTable(nil), tables...), stage.RansTable{CDF: []int64{0, 65536}}), one), mm, -1),
	}
	strict := ransMode{"t4097", "strict", "canonical"}
	for _, c := range []struct {
		name   string
		lo, hi int64
	}{{"lo6_hi5", 6, 5}, {"lo-2p31-1_hi0", minI32 - 1, 0}, {"lo0_hi2p31", 0, maxI32 + 1}} {
		m := strict.modes()
		m["lo"], m["hi"] = c.lo, c.hi
		cs = append(cs, corpusCase{op: "rans64_decode", id: "t4097_strict_" + c.name + "_canonical_bounds", modes: m,
			in: ransIn(good, tables, one), want: string(mm), wantAt: -1})
	}
	for _, c := range []struct{ name, key, value string }{
		{"table_t3", "table", "t3"}, {"escape_loose", "escape", "loose"}, {"end_never", "end", "never"},
	} {
		m := base.modes()
		m[c.key] = c.value
		cs = append(cs, corpusCase{op: "rans64_decode", id: "mode_" + c.name, modes: m, in: ransIn(good, tables, one), want: string(mm), wantAt: -1})
	}
	sm := strict.modes()
	delete(sm, "lo")
	cs = append(cs, corpusCase{op: "rans64_decode", id: "mode_strict_without_lo", modes: sm, in: ransIn(good, tables, one), want: string(mm), wantAt: -1})
	bad := ransIn(good, tables, one)
	bad["stream"] = "zz"
	cs = append(cs, ransCase(base, "stream_not_hex", bad, mm, -1))
	// §14.1: bytes are lowercase hexadecimal; uppercase digits are a
	// malformed operand (D-E), not the same bytes.
	upper := ransIn(good, tables, one)
	upper["stream"] = strings.ToUpper(upper["stream"].(string))
	cs = append(cs, ransCase(base, "stream_uppercase_hex", upper, mm, -1))
	return cs
}
