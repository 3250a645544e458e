package stage

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// quarter is a t4097 table of four equal slots: n = 5, escape index 3.
var quarter = RansTable{CDF: []int64{0, 16384, 32768, 49152, 65536}}

// allEscape is the t2 table n = 2: every symbol escapes, and its table
// step (freq 65536) leaves x as it stands.
var allEscape = RansTable{CDF: []int64{0, 65536}}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantRefusal checks err is a refusal with code at at.
func wantRefusal(t *testing.T, name string, err error, code refusal.Code, at int64) {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != code || r.At != at {
		t.Errorf("%s: got %v (at %v), want %s at %d", name, err, atOf(err), code, at)
	}
}

func atOf(err error) any {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.At
	}
	return nil
}

var (
	lenientCanonical = RansModes{}
	lenientFinal     = RansModes{FinalOnly: true}
)

func strictModes(lo, hi int64, final bool) RansModes {
	return RansModes{Strict: true, Lo: lo, Hi: hi, FinalOnly: final}
}

// TestRansHandWorked decodes streams worked by hand from docs/READINGS.md D-B.
func TestRansHandWorked(t *testing.T) {
	var d RansDecoder
	// Symbol 1 of quarter, encoded from x = 2^31: x = ⌊2^31/16384⌋·2^16 +
	// 2^31 mod 16384 + 16384 = 2^33 + 2^14. Decode: f = 2^14, s = 1;
	// x = 16384·⌊x/2^16⌋ + 0 = 2^31: canonical, both words read.
	got, err := d.Decode(mustHex(t, "0040000002000000"), []RansTable{quarter}, []int{0}, lenientCanonical)
	if err != nil || !slices.Equal(got, []int64{1}) {
		t.Errorf("quarter sym 1: got %v, %v", got, err)
	}
	// Escape of symbol 3 under allEscape: value 3 ≥ n − 2 = 0, raw 6, one
	// group: count 1, group 6. x = (2^31·16 + 6)·16 + 1 = 2^39 + 97; the
	// decode reads 1, then 6 (even: 6/2 + 0 = 3), leaving x = 2^31.
	s3 := mustHex(t, "6100000080000000")
	for _, m := range []RansModes{lenientCanonical, lenientFinal, strictModes(0, 5, false), strictModes(3, 3, true)} {
		m.Table = T2
		got, err := d.Decode(s3, []RansTable{allEscape}, []int{0}, m)
		if err != nil || !slices.Equal(got, []int64{3}) {
			t.Errorf("escape 3 under %+v: got %v, %v", m, got, err)
		}
	}
	_, err = d.Decode(s3, []RansTable{allEscape}, []int{0}, RansModes{Table: T2, Strict: true, Lo: 0, Hi: 2})
	wantRefusal(t, "escape 3 above hi 2", err, refusal.FieldRange, 0)
	// Offset −10: symbol 3 − 10 = −7.
	got, err = d.Decode(s3, []RansTable{{CDF: allEscape.CDF, Offset: -10}}, []int{0}, RansModes{Table: T2})
	if err != nil || !slices.Equal(got, []int64{-7}) {
		t.Errorf("escape with offset −10: got %v, %v", got, err)
	}

	// Non-minimal escape: x = 2^43 + 0x062: count 2, groups 6 then 0.
	// Lenient accepts it (raw 6, symbol 3); strict refuses it.
	nm := mustHex(t, "6200000000080000")
	got, err = d.Decode(nm, []RansTable{allEscape}, []int{0}, RansModes{Table: T2})
	if err != nil || !slices.Equal(got, []int64{3}) {
		t.Errorf("non-minimal lenient: got %v, %v", got, err)
	}
	_, err = d.Decode(nm, []RansTable{allEscape}, []int{0}, RansModes{Table: T2, Strict: true, Lo: -100, Hi: 100})
	wantRefusal(t, "non-minimal strict", err, StreamNoncanonical, 0)
	// Non-minimal and out of range at once: the non-minimal check is first.
	_, err = d.Decode(nm, []RansTable{allEscape}, []int{0}, RansModes{Table: T2, Strict: true, Lo: 4, Hi: 100})
	wantRefusal(t, "non-minimal and out of range", err, StreamNoncanonical, 0)

	// Count 9: x = 2^35 + 9. Strict reads no group, leaves x = 2^31
	// (a canonical end) and refuses the count. Lenient clamps to 8 groups;
	// the first bits leave x = 2^27 with no word left: the stream runs out.
	c9 := mustHex(t, "0900000008000000")
	for _, final := range []bool{false, true} {
		_, err = d.Decode(c9, []RansTable{allEscape}, []int{0}, RansModes{Table: T2, Strict: true, Lo: -5, Hi: 5, FinalOnly: final})
		wantRefusal(t, "count 9 strict", err, StreamNoncanonical, 0)
	}
	_, err = d.Decode(c9, []RansTable{allEscape}, []int{0}, RansModes{Table: T2})
	wantRefusal(t, "count 9 lenient canonical", err, StreamExhausted, 0)
	_, err = d.Decode(c9, []RansTable{allEscape}, []int{0}, RansModes{Table: T2, FinalOnly: true})
	wantRefusal(t, "count 9 lenient final_only", err, StreamExhausted, 1)
	// Count 9 with the range broken too (n − 2 + o = 20 > 5): still the count.
	_, err = d.Decode(c9, []RansTable{{CDF: allEscape.CDF, Offset: 20}}, []int{0}, RansModes{Table: T2, Strict: true, Lo: -5, Hi: 5})
	wantRefusal(t, "count 9 and out of range", err, StreamNoncanonical, 0)

	// Canonical end: the stream of symbol 1 read for no symbol leaves
	// x = 2^33 + 2^14 ≠ 2^31.
	_, err = d.Decode(mustHex(t, "0040000002000000"), []RansTable{quarter}, nil, lenientCanonical)
	wantRefusal(t, "no reads, x ≠ 2^31", err, StreamNoncanonical, 0)
	// A word left over is not a canonical end, and final_only ignores it.
	_, err = d.Decode(mustHex(t, "004000000200000000000000"), []RansTable{quarter}, []int{0}, lenientCanonical)
	wantRefusal(t, "word left over", err, StreamNoncanonical, 1)
	got, err = d.Decode(mustHex(t, "004000000200000000000000"), []RansTable{quarter}, []int{0}, lenientFinal)
	if err != nil || !slices.Equal(got, []int64{1}) {
		t.Errorf("word left over, final_only: got %v, %v", got, err)
	}
}

// TestRansContinuationStopsWhenOut: with x = 0xF0F and no word left, the
// table step (allEscape leaves x) runs the stream out; the count group is
// 15 but no continuation group is read, so count 15 clamps to 8 and raw is
// the next 8 groups of 0xF0: 0, 15, 0, … = 0xF0 = 240, value 120. Had a
// continuation been read (group 0), raw would be 0xF = 15, value −8.
func TestRansContinuationStopsWhenOut(t *testing.T) {
	d := RansDecoder{stream: make([]byte, 8), nw: 2, p: 2, x: 0xF0F}
	sym, err := d.symbol([]uint32{0, 65536}, 0, RansModes{Table: T2, FinalOnly: true}, 0)
	if err != nil || sym != 120 || !d.ranOut {
		t.Errorf("got %d, %v, ran out %v; want 120, nil, true", sym, err, d.ranOut)
	}
}

// TestRansSaturation: lenient saturates the value and the symbol to i32;
// strict saturates nothing and refuses instead.
func TestRansSaturation(t *testing.T) {
	three := RansTable{CDF: []int64{0, 30000, 65536}, Offset: -1} // n = 3, escape index 1
	groups := func(e *RansEncoder, raw uint64) {
		e.PutSymbol(30000, 35536)
		e.PutBits(8)
		for j := range 8 {
			e.PutBits(uint32(raw>>(4*j)) & 15)
		}
	}
	var e RansEncoder
	groups(&e, 1<<32-2) // even: 2^31 − 1 + (n − 2) = 2^31 → 2^31 − 1, then −1
	groups(&e, 1<<32-1) // odd: −2^31, then −1 → −2^31 − 1 → −2^31
	e.PutSymbol(0, 30000)
	stream := e.Bytes()
	tables := []RansTable{three, {CDF: three.CDF, Offset: maxI32}}
	var d RansDecoder
	got, err := d.Decode(stream, tables, []int{0, 0, 1}, lenientCanonical)
	want := []int64{maxI32 - 1, minI32, maxI32} // 0 + (2^31 − 1)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("lenient: got %v, %v; want %v", got, err, want)
	}
	_, err = d.Decode(stream, tables, []int{0, 0, 1}, strictModes(minI32, maxI32, false))
	wantRefusal(t, "strict does not saturate", err, refusal.FieldRange, 1)
}

// TestRansRoundTrip encodes random symbols with the CompressAI-compatible
// encoder and decodes them under every mode.
func TestRansRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, rule := range []TableRule{T4097, T2} {
		tables := []RansTable{quarter, {CDF: []int64{0, 1, 2, 65535, 65536}, Offset: -3}, {CDF: []int64{0, 100, 65536}, Offset: 7}}
		if rule == T2 {
			tables = append(tables, RansTable{CDF: allEscape.CDF, Offset: 1000})
		}
		for _, strict := range []bool{false, true} {
			for _, final := range []bool{false, true} {
				m := RansModes{Table: rule, Strict: strict, Lo: -40, Hi: 300, FinalOnly: final}
				for range 20 {
					var e RansEncoder
					n := rng.IntN(300)
					reads, want := make([]int, n), make([]int64, n)
					for i := range reads {
						reads[i] = rng.IntN(len(tables))
						if strict {
							want[i] = m.Lo + rng.Int64N(m.Hi-m.Lo+1)
						} else {
							// In the table's range, or below or above it by up to
							// 2^30 (an escape), saturating where the offset is near i32's end.
							t := tables[reads[i]]
							switch rng.IntN(8) {
							case 0:
								want[i] = t.Offset - 1 - rng.Int64N(1<<uint(rng.IntN(30)))
							case 1:
								want[i] = t.Offset + int64(len(t.CDF)) + rng.Int64N(1<<uint(rng.IntN(30)))
							default:
								want[i] = t.Offset + rng.Int64N(int64(len(t.CDF)-1))
							}
						}
						if err := e.Symbol(tables[reads[i]], want[i]); err != nil {
							t.Fatal(err)
						}
					}
					var d RansDecoder
					got, err := d.Decode(e.Bytes(), tables, reads, m)
					if err != nil || !slices.Equal(got, want) {
						t.Fatalf("%+v: decode %v, %v; want %v", m, got, err, want)
					}
				}
			}
		}
	}
}

// TestRansConditions: each condition refuses model_mismatch at −1, before
// any symbol.
func TestRansConditions(t *testing.T) {
	var d RansDecoder
	good := mustHex(t, "0040000002000000")
	long := make([]int64, 65538)
	for i := range long {
		long[i] = int64(i)
	}
	long[len(long)-1] = 65536 // 65538 entries, strictly increasing
	for _, c := range []struct {
		name   string
		stream []byte
		tables []RansTable
		reads  []int
		m      RansModes
	}{
		{"length 7", good[:7], []RansTable{quarter}, []int{0}, lenientCanonical},
		{"t4097 n 2", good, []RansTable{allEscape}, []int{0}, lenientCanonical},
		{"t2 n 65538", good, []RansTable{{CDF: long}}, []int{0}, RansModes{Table: T2}},
		{"lo > hi", good, []RansTable{quarter}, []int{0}, strictModes(2, 1, false)},
		{"hi past i32", good, []RansTable{quarter}, []int{0}, strictModes(0, maxI32+1, false)},
		{"read past tables", good, []RansTable{quarter}, []int{1}, lenientCanonical},
	} {
		_, err := d.Decode(c.stream, c.tables, c.reads, c.m)
		wantRefusal(t, c.name, err, refusal.ModelMismatch, -1)
	}
	// n = 65537 is the largest t2 table.
	ok := long[:65537]
	ok[65536] = 65536
	var e RansEncoder
	if err := e.Symbol(RansTable{CDF: ok}, 65535); err != nil {
		t.Fatal(err)
	}
	got, err := d.Decode(e.Bytes(), []RansTable{{CDF: ok}}, []int{0}, RansModes{Table: T2})
	if err != nil || !slices.Equal(got, []int64{65535}) {
		t.Errorf("t2 n 65537: got %v, %v", got, err)
	}
}

// TestRansNoAllocation: a reused decoder allocates nothing per decode.
func TestRansNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var e RansEncoder
	reads := make([]int, 1000)
	for i := range reads {
		if err := e.Symbol(quarter, int64(i%3)); err != nil {
			t.Fatal(err)
		}
	}
	stream := e.Bytes()
	var d RansDecoder
	tables := []RansTable{quarter}
	if _, err := d.Decode(stream, tables, reads, lenientCanonical); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _, _ = d.Decode(stream, tables, reads, lenientCanonical) }); a != 0 {
		t.Errorf("%v allocations per decode of 1000 symbols", a)
	}
}
