package stagecorpus

import (
	"fmt"
	"math"
	"math/big"

	"github.com/waiops/waiops/refusal"
)

// The vectors of the sample-domain operators E2–E7 and E9–E13: values at
// the ends of each rule, and each operator's conditions (at −1).

const (
	mm = string(refusal.ModelMismatch)
	fr = string(refusal.FieldRange)
	gm = string(refusal.GeometryMismatch)
	tl = string(refusal.TooLarge)
)

// simple makes a case with empty modes.
func simple(op, id string, in map[string]any, want string, at int64) corpusCase {
	return corpusCase{op: op, id: id, modes: map[string]any{}, in: in, want: want, wantAt: at}
}

func dequantizeCases() []corpusCase {
	c := func(id string, sym, f, base int64, want string) corpusCase {
		return simple("dequantize", id, map[string]any{"sym": sym, "f": f, "base": base}, want, 0)
	}
	cs := []corpusCase{
		c("sym5_f0_base0", 5, 0, 0, ""),
		c("sym-7_f4_base3", -7, 4, 3, ""),
		c("sym1_f62_base2p62-1_max", 1, 62, 1<<62-1, ""),
		c("sym1_f62_base2p62_past_max", 1, 62, 1<<62, fr),
		c("sym-2_f62_base0_min", -2, 62, 0, ""),
		c("sym-2_f62_base-1_past_min", -2, 62, -1, fr),
		c("sym2p62_f1_base-1_wide_intermediate", 1<<62, 1, -1, ""),
		c("sym-3_f62_base0", -3, 62, 0, fr),
		c("sym0_f62_base_min", 0, 62, math.MinInt64, ""),
		c("sym1_f63", 1, 63, 0, fr),
		c("sym0_f-1", 0, -1, 0, fr),
	}
	rng := newRand(2)
	for i := range 8 {
		f := rng.Int64N(63)
		sym := rng.Int64N(1<<20) - 1<<19
		cs = append(cs, c(fmt.Sprintf("random%d_f%d", i, f), sym, f, rng.Int64N(1<<40)-1<<39, anyOutcome))
	}
	// E2's operands are exact integers: one past i64 is E2's field_range
	// at 0 (docs/READINGS.md D-E, §14.1), and a sym or base past i64 whose value fits
	// gives the value.
	p := func(k uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), k) }
	n := func(x *big.Int) *big.Int { return new(big.Int).Neg(x) }
	add := func(x *big.Int, d int64) *big.Int { return new(big.Int).Add(x, big.NewInt(d)) }
	w := func(id string, sym, f, base *big.Int, want string) corpusCase {
		return simple("dequantize", id, map[string]any{"sym": sym, "f": f, "base": base}, want, 0)
	}
	cs = append(cs,
		w("sym1_f2p64_base0", big.NewInt(1), p(64), big.NewInt(0), fr),
		w("sym1_f-2p64_base0", big.NewInt(1), n(p(64)), big.NewInt(0), fr),
		w("sym0_f2p63_base0", big.NewInt(0), p(63), big.NewInt(0), fr),
		w("sym2p63_f0_base-1_max", p(63), big.NewInt(0), big.NewInt(-1), ""),
		w("sym-2p63-1_f0_base1_min", n(add(p(63), 1)), big.NewInt(0), big.NewInt(1), ""),
		w("sym2p63_f0_base0_past_max", p(63), big.NewInt(0), big.NewInt(0), fr),
		w("sym0_f0_base-2p63-1_past_min", big.NewInt(0), big.NewInt(0), n(add(p(63), 1)), fr),
		w("sym2p100_f62_base-2p162_zero", p(100), big.NewInt(62), n(p(162)), ""),
		w("sym1_f0_base2p64_past_max", big.NewInt(1), big.NewInt(0), p(64), fr),
	)
	cs = append(cs, simple("dequantize", "sym_not_integer", map[string]any{"sym": "1.5", "f": int64(0), "base": int64(0)}, mm, -1))
	return cs
}

// anyOutcome marks a random case whose outcome the test does not fix.
const anyOutcome = "*"

func bucketCases() []corpusCase {
	c := func(rule, id string, sigma int64, edges []int64, want string) corpusCase {
		return corpusCase{op: "bucket", id: rule + "_" + id, modes: map[string]any{"bucket": rule},
			in: map[string]any{"sigma": sigma, "edges": edges}, want: want, wantAt: -1}
	}
	e := []int64{10, 20, 30, 40}
	return []corpusCase{
		c("ceil", "at_edge_20", 20, e, ""),
		c("ceil", "above_edge_21", 21, e, ""),
		c("ceil", "at_edge_10_first", 10, e, ""),
		c("ceil", "below_first_5", 5, e, ""),
		c("ceil", "at_last_edge_40", 40, e, ""),
		c("ceil", "above_last_100", 100, e, ""),
		c("ceil", "unsorted_edges", 25, []int64{30, 10, 40, 20}, ""),
		c("ceil", "one_edge", -5, []int64{7}, ""),
		c("ceil", "no_edges", 1, []int64{}, mm),
		c("floor", "at_edge_20", 20, e[:3], ""),
		c("floor", "below_edge_19", 19, e[:3], ""),
		c("floor", "below_first_9", 9, e[:3], ""),
		c("floor", "at_last_edge_30", 30, e[:3], ""),
		c("floor", "equal_edges", 20, []int64{20, 20, 30}, ""),
		c("floor", "decreasing_edges", 20, []int64{10, 30, 20}, mm),
		c("floor", "no_edges", 1, []int64{}, mm),
		c("round", "unknown_rule", 1, e, mm),
	}
}

func codedCases() []corpusCase {
	c := func(id string, v, thr int64) corpusCase {
		return simple("coded", id, map[string]any{"v": v, "thr": thr}, "", 0)
	}
	return []corpusCase{
		c("v383_thr382", 383, 382),
		c("v382_thr382", 382, 382),
		c("v-1_thr-2", -1, -2),
		c("v_min_thr_min", math.MinInt64, math.MinInt64),
		c("v_max_thr_min", math.MaxInt64, math.MinInt64),
		simple("coded", "v_not_integer", map[string]any{"v": "0x10", "thr": int64(0)}, mm, -1),
		simple("coded", "thr_past_i64", map[string]any{"v": int64(0), "thr": "9223372036854775808"}, mm, -1),
	}
}

func scaleIndexCases() []corpusCase {
	c := func(v, s, n int64, want string) corpusCase {
		return simple("scale_index", fmt.Sprintf("v%d_s%d_n%d", v, s, n), map[string]any{"v": v, "s": s, "n": n}, want, -1)
	}
	return []corpusCase{
		c(1000, 0, 32, ""),
		c(5, 1, 10, ""),
		c(3, 1, 10, ""),  // tie rounds up: 2
		c(-3, 1, 10, ""), // tie to +∞: −1, clamped to 0
		c(2000, 7, 32, ""),
		c(1<<62, 63, 4, ""),
		c(math.MaxInt64, 1, 1<<62+7, ""),
		c(math.MaxInt64, 64, 5, ""),
		c(math.MinInt64, 127, 5, ""),
		c(100, 3, 1, ""),
		c(1, 128, 5, mm),
		c(1, -1, 5, mm),
		c(1, 0, 0, mm),
	}
}

func blockStatCases() []corpusCase {
	rng := newRand(3)
	c := func(id string, sh [3]int, data []int64, b, s, lo, hi int64, want string) corpusCase {
		return simple("block_stat", id, map[string]any{"x": tensorIn(sh[0], sh[1], sh[2], data), "b": b, "s": s, "lo": lo, "hi": hi}, want, -1)
	}
	randData := func(n int, span int64) []int64 {
		d := make([]int64, n)
		for i := range d {
			d[i] = rng.Int64N(2*span+1) - span
		}
		return d
	}
	big := make([]int64, 6)
	for i := range big {
		big[i] = maxI32
	}
	return []corpusCase{
		c("x2x5x7_b3_s2_partial_blocks", [3]int{2, 5, 7}, randData(70, 20), 3, 2, -50, 50, ""),
		c("x1x8x8_b8_s6_lo0_hi4351", [3]int{1, 8, 8}, randData(64, 4000), 8, 6, 0, 4351, ""),
		c("x1x9x10_b8_s6_partial", [3]int{1, 9, 10}, randData(90, 4000), 8, 6, 0, 4351, ""),
		c("x1x3x3_b1_s0", [3]int{1, 3, 3}, randData(9, 100), 1, 0, -100, 100, ""),
		c("x1x3x4_b10_block_past_plane", [3]int{1, 3, 4}, randData(12, 100), 10, 1, -1000, 1000, ""),
		c("x1x2x3_b2_s127", [3]int{1, 2, 3}, randData(6, 100), 2, 127, -5, 5, ""),
		c("x1x2x3_lo_eq_hi", [3]int{1, 2, 3}, randData(6, 100), 2, 0, 7, 7, ""),
		c("x1x2x3_i32_max", [3]int{1, 2, 3}, big, 2, 0, math.MinInt64, math.MaxInt64, ""),
		c("b0", [3]int{1, 1, 1}, []int64{1}, 0, 0, 0, 1, mm),
		c("s128", [3]int{1, 1, 1}, []int64{1}, 1, 128, 0, 1, mm),
		c("lo_above_hi", [3]int{1, 1, 1}, []int64{1}, 1, 0, 2, 1, mm),
		c("element_past_i32", [3]int{1, 1, 2}, []int64{1, maxI32 + 1}, 1, 0, 0, 1, mm),
		c("data_short_of_shape", [3]int{1, 2, 2}, []int64{1, 2, 3}, 1, 0, 0, 1, mm),
	}
}

func bandLookupCases() []corpusCase {
	e := []int64{1003, 1352, 1937}
	tab := [][]int64{{-31, 20, 122, 181}, {-80, -31, 71, 130}}
	c := func(id string, v int64, edges []int64, table [][]int64, row int64, want string) corpusCase {
		t := make([]any, len(table))
		for i, r := range table {
			t[i] = r
		}
		return simple("band_lookup", id, map[string]any{"v": v, "edges": edges, "table": t, "row": row}, want, -1)
	}
	return []corpusCase{
		c("v1002_row0", 1002, e, tab, 0, ""),
		c("v1003_at_edge_row0", 1003, e, tab, 0, ""),
		c("v1352_at_edge_row1", 1352, e, tab, 1, ""),
		c("v1936_row1", 1936, e, tab, 1, ""),
		c("v1937_at_last_edge_row0", 1937, e, tab, 0, ""),
		c("v_max_row1", math.MaxInt64, e, tab, 1, ""),
		c("no_edges", 5, []int64{}, [][]int64{{9}}, 0, ""),
		c("other_row_short", 2000, e, [][]int64{{1, 2, 3, 4}, {1}}, 0, ""),
		c("row2_of_2", 5, e, tab, 2, mm),
		c("row-1", 5, e, tab, -1, mm),
		c("selected_row_short", 5, e, [][]int64{{1, 2, 3, 4}, {1}}, 1, mm),
	}
}

func residualCases() []corpusCase {
	c := func(id string, pred, r, q, lo, hi int64, want string) corpusCase {
		return simple("residual_step", id, map[string]any{"pred": pred, "r": r, "q": q, "lo": lo, "hi": hi}, want, -1)
	}
	var cs []corpusCase
	// R = ⌊(hi − lo)/q⌋ + 1 for each range.
	for _, g := range []struct{ lo, hi, q, pred int64 }{
		{0, 255, 7, 100}, {0, 255, 1, 0}, {-32768, 32767, 3, 5}, {-32768, 32767, 65535, -32768},
	} {
		R := (g.hi-g.lo)/g.q + 1
		for _, r := range []int64{R, -R, R + 1, -(R + 1)} {
			cs = append(cs, c(fmt.Sprintf("lo%d_hi%d_q%d_pred%d_r%d", g.lo, g.hi, g.q, g.pred, r), g.pred, r, g.q, g.lo, g.hi, ""))
		}
	}
	top := int64(maxI32)
	cs = append(cs,
		c("lo0_hi255_r_i32_max_q65535", 128, maxI32, 65535, 0, 255, ""),
		c("lo0_hi255_r_i32_min_q65535", 128, minI32, 65535, 0, 255, ""),
		c("i32_top_lo2p31-65536_pred_hi_r2_q65535", top, 2, 65535, top-65535, top, ""),
		c("i32_top_lo2p31-65536_pred_lo_r-1_q1", top-65535, -1, 1, top-65535, top, ""),
		c("i32_bottom_lo-2p31_pred_lo_r-2_q65535", minI32, -2, 65535, minI32, minI32+65535, ""),
		c("i32_bottom_pred_lo_r1_q65535", minI32, 1, 65535, minI32, minI32+65535, ""),
		c("i64_ends_pred_hi_r1", math.MaxInt64, 1, 1, math.MinInt64, math.MaxInt64, ""),
		c("i64_ends_pred_lo_r_i32_min", math.MinInt64, minI32, 65535, math.MinInt64, math.MaxInt64, ""),
		c("lo_eq_hi", 5, 1, 1, 5, 5, mm),
		c("pred_below_lo", -1, 1, 1, 0, 255, mm),
		c("pred_above_hi", 256, 1, 1, 0, 255, mm),
		c("q0", 5, 1, 0, 0, 255, mm),
		c("q65536", 5, 1, 65536, 0, 255, mm),
		c("r2p31", 5, maxI32+1, 1, 0, 255, mm),
		c("r-2p31-1", 5, minI32-1, 1, 0, 255, mm),
	)
	return cs
}

func mcCases() []corpusCase {
	rng := newRand(4)
	frame := make([]int64, 3*4*5)
	for i := range frame {
		frame[i] = rng.Int64N(256)
	}
	c := func(id string, fr []int64, sh [3]int, y, x, ch, dy, dx, prec int64, want string) corpusCase {
		return simple("mc_predict", id, map[string]any{"frame": tensorIn(sh[0], sh[1], sh[2], fr),
			"y": y, "x": x, "c": ch, "dy": dy, "dx": dx, "precision": prec}, want, -1)
	}
	sh := [3]int{3, 4, 5}
	cs := []corpusCase{
		c("p1_inside", frame, sh, 1, 2, 0, 1, -1, 1, ""),
		c("p1_clamped_above_left", frame, sh, 0, 0, 1, -10, -10, 1, ""),
		c("p1_clamped_below_right", frame, sh, 3, 4, 2, 7, 9, 1, ""),
		c("p2_dy3_dx1", frame, sh, 1, 1, 0, 3, 1, 2, ""),
		c("p2_dy-3_dx-1", frame, sh, 2, 3, 1, -3, -1, 2, ""),
		c("p2_dy0_dx0", frame, sh, 2, 2, 2, 0, 0, 2, ""),
		c("p2_dy1_edge_y1_clamped", frame, sh, 3, 4, 0, 1, 1, 2, ""),
		c("p2_dy-1_top_y0_clamped", frame, sh, 0, 0, 1, -1, -1, 2, ""),
		c("p2_max_sum_4x255", []int64{255, 255, 255, 255, 255, 255}, [3]int{3, 1, 2}, 0, 0, 1, 1, 1, 2, ""),
		c("frame_2_channels", frame[:40], [3]int{2, 4, 5}, 0, 0, 0, 0, 0, 1, mm),
		c("c3", frame, sh, 0, 0, 3, 0, 0, 1, mm),
		c("y_outside", frame, sh, 4, 0, 0, 0, 0, 1, mm),
		c("x_negative", frame, sh, 0, -1, 0, 0, 0, 1, mm),
		c("precision3", frame, sh, 0, 0, 0, 0, 0, 3, mm),
		c("dy2p31", frame, sh, 0, 0, 0, maxI32+1, 0, 1, mm),
	}
	return cs
}

func up2Cases() []corpusCase {
	rng := newRand(5)
	c := func(id string, sh [3]int, d0, d1 int64, want string) corpusCase {
		data := make([]int64, sh[0]*sh[1]*sh[2])
		for i := range data {
			data[i] = rng.Int64N(65536) - 32768
		}
		return simple("up2_predict", id, map[string]any{"prev": tensorIn(sh[0], sh[1], sh[2], data), "d0": d0, "d1": d1}, want, -1)
	}
	cs := []corpusCase{
		c("prev2x3x2_d5_d4", [3]int{2, 3, 2}, 5, 4, ""),
		c("prev1x3x3_d6_d5", [3]int{1, 3, 3}, 6, 5, ""),
		c("prev1x1x1_d1_d2", [3]int{1, 1, 1}, 1, 2, ""),
		c("prev3x2x1_d4_d1", [3]int{3, 2, 1}, 4, 1, ""),
		c("d0_0", [3]int{1, 1, 1}, 0, 1, gm),
		c("d1_0", [3]int{1, 1, 1}, 1, 0, gm),
		c("prev_rows_not_ceil_half", [3]int{1, 3, 2}, 7, 4, gm),
		c("prev_cols_not_ceil_half", [3]int{1, 3, 2}, 6, 2, gm),
		c("d0_i64_max", [3]int{1, 1, 1}, math.MaxInt64, 1, gm),
	}
	bad := simple("up2_predict", "prev_data_short", map[string]any{"prev": tensorIn(1, 2, 2, []int64{1, 2, 3}), "d0": int64(3), "d1": int64(3)}, gm, -1)
	return append(cs, bad)
}

func rateCases() []corpusCase {
	rng := newRand(6)
	c := func(id string, sh [3]int, num, den, d0 int64, want string) corpusCase {
		data := make([]int64, sh[0]*sh[1]*sh[2])
		for i := range data {
			data[i] = rng.Int64N(65536) - 32768
		}
		if len(data) >= 2 {
			data[0], data[1] = maxI16, minI16 // the widest step b − a
		}
		return simple("rate_predict", id, map[string]any{"prev": tensorIn(sh[0], sh[1], sh[2], data), "rate_num": num, "rate_den": den, "d0": d0}, want, -1)
	}
	return []corpusCase{
		c("c2_n5_num3_den2_d7", [3]int{2, 1, 5}, 3, 2, 7, ""),
		c("c1_n4_num2_den1_d7", [3]int{1, 1, 4}, 2, 1, 7, ""),
		c("c1_n7_num1_den1_d7", [3]int{1, 1, 7}, 1, 1, 7, ""),
		c("c3_n3_num5_den7_d2", [3]int{3, 1, 3}, 5, 7, 2, ""),
		c("c1_n1_num_u32max_den1_d5", [3]int{1, 1, 1}, 1<<32-1, 1, 5, ""),
		c("c1_n3_num_u32max_den_u32max-1_d3", [3]int{1, 1, 3}, 1<<32-1, 1<<32-2, 3, ""),
		c("num0", [3]int{1, 1, 1}, 0, 1, 1, gm),
		c("den0", [3]int{1, 1, 1}, 1, 0, 1, gm),
		c("d0_0", [3]int{1, 1, 1}, 1, 1, 0, gm),
		c("prev_two_rows", [3]int{1, 2, 3}, 1, 1, 3, gm),
		c("prev_n_wrong", [3]int{1, 1, 4}, 3, 2, 7, gm),
		c("d0_i64_max", [3]int{1, 1, 4}, 1, 1<<32-1, math.MaxInt64, gm),
		c("num_2p32", [3]int{1, 1, 1}, 1<<32, 1, 1, mm),
		simple("rate_predict", "sample_past_i16", map[string]any{"prev": tensorIn(1, 1, 2, []int64{0, maxI16 + 1}), "rate_num": int64(1), "rate_den": int64(1), "d0": int64(2)}, mm, -1),
	}
}

func orderCases() []corpusCase {
	c := func(id string, shape []int64, order string, anchor any, want string) corpusCase {
		in := map[string]any{"shape": shape, "order": order}
		if anchor != nil {
			in["anchor"] = anchor
		}
		return simple("coding_order", id, in, want, -1)
	}
	return []corpusCase{
		c("raster_2x3x4", []int64{2, 3, 4}, "raster", nil, ""),
		c("checkerboard_anchor_2x3x4", []int64{2, 3, 4}, "checkerboard", true, ""),
		c("checkerboard_nonanchor_2x3x4", []int64{2, 3, 4}, "checkerboard", false, ""),
		c("checkerboard_anchor_1x1x1", []int64{1, 1, 1}, "checkerboard", true, ""),
		c("checkerboard_nonanchor_1x1x1_empty", []int64{1, 1, 1}, "checkerboard", false, ""),
		c("checkerboard_nonanchor_3x1x5", []int64{3, 1, 5}, "checkerboard", false, ""),
		c("raster_anchor_ignored", []int64{1, 2, 2}, "raster", "not read", ""),
		c("dim0", []int64{0, 2, 2}, "raster", nil, mm),
		c("two_dims", []int64{2, 2}, "raster", nil, mm),
		c("order_zigzag", []int64{1, 2, 2}, "zigzag", nil, mm),
		c("checkerboard_without_anchor", []int64{1, 2, 2}, "checkerboard", nil, mm),
		c("past_2p26", []int64{1 << 13, 1 << 13, 2}, "raster", nil, tl),
	}
}
