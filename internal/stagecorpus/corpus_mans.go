package stagecorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/waiops/waiops/stage"
)

// The mans_decode vectors: sgm with bounds 128 and 255 whose escapes are
// taken, spans of every remainder, fac rows with an escape, a zero tail and
// short streams (refused), and the conditions.

// mansPMF is the sgm corpus's rows P[σ], width 512:
// σ 0 puts all mass on column 255 (sym −128), so with bound 128 every masked
// position escapes; σ 1 on column 509 (sym −255), bound 255; σ 2 is spread
// over sym 0, −1, 1, −2, 2 with bound 2; σ 3 is all sym 0 with bound 0
// (every position escapes); σ 4 is random.
func mansPMF(rng *rand.Rand) ([][]int64, []int64) {
	const w = 512
	rows := make([][]int64, 5)
	for i := range rows {
		rows[i] = make([]int64, w)
	}
	rows[0][255] = 256
	rows[1][509] = 256
	copy(rows[2], []int64{100, 60, 60, 20, 16})
	rows[3][0] = 256
	for range 256 {
		rows[4][rng.IntN(24)]++
	}
	return rows, []int64{128, 255, 2, 0, 3}
}

func randMemory(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	if n > 0 && b[n-1] == 0 {
		b[n-1] = 1
	}
	return b
}

// sgmIn is the §14.1 in of an sgm decode.
func sgmIn(mem []byte, pmf [][]int64, bounds []int64, spans []stage.Span) map[string]any {
	ps := make([]any, len(pmf))
	for i, r := range pmf {
		ps[i] = r
	}
	ss := make([]any, len(spans))
	for i, sp := range spans {
		mask := make([]any, len(sp.Mask))
		for k, m := range sp.Mask {
			mask[k] = m
		}
		ss[i] = map[string]any{"mask": mask, "sigma": sp.Sigma}
	}
	return map[string]any{"memory": fmt.Sprintf("%x", mem), "mode": "sgm", "pmf": ps, "bounds": bounds, "spans": ss}
}

// facIn is the §14.1 in of a fac decode.
func facIn(mem []byte, rows []stage.FacRow, lengths []int64) map[string]any {
	rs := make([]any, len(rows))
	for i, r := range rows {
		rs[i] = append([]int64(nil), r[:]...)
	}
	return map[string]any{"memory": fmt.Sprintf("%x", mem), "mode": "fac", "rows": rs, "lengths": lengths}
}

// randSpan is a span of n positions, each masked with probability 3/4,
// with σ drawn from sigmas.
func randSpan(rng *rand.Rand, n int, sigmas []int64) stage.Span {
	sp := stage.Span{Mask: make([]bool, n), Sigma: make([]int64, n)}
	for i := range n {
		sp.Mask[i] = rng.IntN(4) != 0
		sp.Sigma[i] = sigmas[rng.IntN(len(sigmas))]
	}
	return sp
}

func randFacRow(rng *rand.Rand) stage.FacRow {
	var r stage.FacRow
	var c int64
	for a := range r {
		c = min(c+rng.Int64N(9), 255)
		r[a] = c
	}
	return r
}

func mansCase(id string, in map[string]any, want string, at int64) corpusCase {
	return corpusCase{op: "mans_decode", id: id, modes: map[string]any{}, in: in, want: want, wantAt: at}
}

func mansCases() []corpusCase {
	rng := newRand(7)
	pmf, bounds := mansPMF(rng)
	ex := string(stage.StreamExhausted)
	var cs []corpusCase
	for _, c := range []struct {
		id     string
		sigmas []int64
	}{
		{"sgm_bound128_escape", []int64{0}},
		{"sgm_bound255_escape", []int64{1}},
		{"sgm_bound0_escape", []int64{3}},
		{"sgm_mixed", []int64{0, 1, 2, 3, 4}},
		{"sgm_spread", []int64{2, 4}},
	} {
		var spans []stage.Span
		for _, n := range []int{13, 16, 7, 6, 5, 0, 1, 2, 3} {
			spans = append(spans, randSpan(rng, n, c.sigmas))
		}
		cs = append(cs, mansCase(c.id+"_spans13_16_7_6_5_0_1_2_3", sgmIn(randMemory(rng, 600), pmf, bounds, spans), "", 0))
	}
	latent := make([]stage.Span, 4)
	for i := range latent {
		latent[i] = randSpan(rng, 256, []int64{2, 4})
	}
	cs = append(cs, mansCase("sgm_4_spans_of_256", sgmIn(randMemory(rng, 2000), pmf, bounds, latent), "", 0))
	unmasked := stage.Span{Mask: make([]bool, 9), Sigma: make([]int64, 9)}
	cs = append(cs,
		mansCase("sgm_all_unmasked", sgmIn(randMemory(rng, 16), pmf, bounds, []stage.Span{unmasked}), "", 0),
		mansCase("sgm_no_spans", sgmIn(randMemory(rng, 16), pmf, bounds, []stage.Span{}), "", 0))

	// Refusals of the window: a zero tail, no memory, short streams.
	some := []stage.Span{randSpan(rng, 40, []int64{0, 1, 2, 4})}
	zeroTail := append(randMemory(rng, 40), make([]byte, 8)...)
	cs = append(cs,
		mansCase("sgm_zero_tail", sgmIn(zeroTail, pmf, bounds, some), ex, 0),
		mansCase("sgm_empty_memory", sgmIn(nil, pmf, bounds, some), ex, 0),
		mansCase("sgm_one_byte_0x01_init_read", sgmIn([]byte{1}, pmf, bounds, some), ex, 0))
	for _, n := range []int{6, 12, 20} {
		cs = append(cs, mansCase(fmt.Sprintf("sgm_short_%d_bytes", n), sgmIn(randMemory(rng, n), pmf, bounds, some), ex, anyAt))
	}

	// fac: rows of 16 (and of each remainder) with an escape taken.
	for _, lengths := range [][]int64{{16, 16, 16}, {5, 7, 0, 3, 2, 1}} {
		for {
			rows := make([]stage.FacRow, len(lengths))
			for i := range rows {
				rows[i] = randFacRow(rng)
			}
			mem := randMemory(rng, 300)
			var d stage.MansDecoder
			if _, err := d.Fac(mem, rows, lengths); err == nil && d.Escapes > 0 {
				cs = append(cs, mansCase(fmt.Sprintf("fac_lengths%v_escape", lengths), facIn(mem, rows, lengths), "", 0))
				break
			}
		}
	}
	zeroRows := []stage.FacRow{{}, randFacRow(rng)}
	cs = append(cs,
		mansCase("fac_zero_rows_keep_slots", facIn(randMemory(rng, 100), zeroRows, []int64{8, 8}), "", 0),
		mansCase("fac_zero_tail", facIn(zeroTail, zeroRows, []int64{8, 8}), ex, 0),
		mansCase("fac_short_10_bytes", facIn(randMemory(rng, 10), []stage.FacRow{randFacRow(rng), randFacRow(rng)}, []int64{16, 16}), ex, anyAt))

	// Conditions, each model_mismatch at −1.
	m := mm
	sp := []stage.Span{randSpan(rng, 4, []int64{0})}
	mem := randMemory(rng, 64)
	badBound := append([]int64(nil), bounds...)
	badBound[2] = 256
	short := [][]int64{pmf[0], pmf[1][:511]}
	sum255 := [][]int64{{255, 0}}
	neg := [][]int64{{257, -1}}
	cs = append(cs,
		mansCase("sgm_bound_256", sgmIn(mem, pmf, badBound, sp), m, -1),
		mansCase("sgm_rows_of_two_widths", sgmIn(mem, short, bounds[:2], sp), m, -1),
		mansCase("sgm_row_sums_255", sgmIn(mem, sum255, bounds[:1], sp), m, -1),
		mansCase("sgm_negative_entry", sgmIn(mem, neg, bounds[:1], sp), m, -1),
		mansCase("sgm_width_0", sgmIn(mem, [][]int64{{}}, bounds[:1], sp), m, -1),
		mansCase("sgm_sigma_past_rows_unmasked", sgmIn(mem, pmf, bounds, []stage.Span{{Mask: []bool{false}, Sigma: []int64{5}}}), m, -1),
		mansCase("sgm_sigma_past_bounds", sgmIn(mem, pmf, bounds[:2], []stage.Span{{Mask: []bool{true}, Sigma: []int64{2}}}), m, -1),
		mansCase("sgm_mask_and_sigma_lengths_differ", sgmIn(mem, pmf, bounds, []stage.Span{{Mask: []bool{true, true}, Sigma: []int64{0}}}), m, -1),
		// Conditions come before the window: a zero tail with a bad table.
		mansCase("sgm_bound_256_and_zero_tail", sgmIn(zeroTail, pmf, badBound, sp), m, -1),
	)
	desc := randFacRow(rng)
	desc[10], desc[11] = 9, 8
	over := randFacRow(rng)
	over[62] = 256
	cs = append(cs,
		mansCase("fac_counts_decrease", facIn(mem, []stage.FacRow{desc}, []int64{4}), m, -1),
		mansCase("fac_count_256", facIn(mem, []stage.FacRow{over}, []int64{4}), m, -1),
		mansCase("fac_lengths_count_differs", facIn(mem, []stage.FacRow{randFacRow(rng)}, []int64{4, 4}), m, -1),
		mansCase("fac_negative_length", facIn(mem, []stage.FacRow{randFacRow(rng)}, []int64{-1}), m, -1),
	)
	r62 := facIn(mem, []stage.FacRow{randFacRow(rng)}, []int64{4})
	r62["rows"] = []any{make([]int64, 62)}
	cs = append(cs, mansCase("fac_row_of_62_counts", r62, m, -1))
	bad := sgmIn(mem, pmf, bounds, sp)
	bad["mode"] = "tans"
	cs = append(cs, mansCase("mode_tans", bad, m, -1))
	// §14.1: memory is lowercase hexadecimal; an uppercase digit is a
	// malformed operand (docs/READINGS.md D-E), under either mode.
	for _, in := range []map[string]any{sgmIn(mem, pmf, bounds, sp), facIn(mem, []stage.FacRow{randFacRow(rng)}, []int64{4})} {
		in["memory"] = strings.ToUpper(in["memory"].(string))
		cs = append(cs, mansCase(in["mode"].(string)+"_memory_uppercase_hex", in, m, -1))
	}
	return cs
}
