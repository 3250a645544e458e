package stage

import (
	"fmt"

	"github.com/waiops/waiops/refusal"
)

// The §14.1 in/expect form of each operator. Each evaluator reads every
// operand first; a malformed one is refused model_mismatch at −1.

// RansModesOf reads E1's modes from a §14.1 modes object: "table",
// "escape", "end", and "lo", "hi" under strict.
func RansModesOf(modes map[string]any) (RansModes, error) {
	o := &operands{op: "rans64_decode", m: modes}
	return ransModes(o)
}

func ransModes(o *operands) (RansModes, error) {
	var m RansModes
	switch t := o.str("table"); t {
	case "t4097":
	case "t2":
		m.Table = T2
	default:
		o.fail("table", "unknown table rule %q", t)
	}
	switch e := o.str("escape"); e {
	case "lenient":
	case "strict":
		m.Strict = true
		m.Lo, m.Hi = o.int("lo"), o.int("hi")
	default:
		o.fail("escape", "unknown escape rule %q", e)
	}
	switch e := o.str("end"); e {
	case "canonical":
	case "final_only":
		m.FinalOnly = true
	default:
		o.fail("end", "unknown end rule %q", e)
	}
	return m, o.err
}

// RansInOf reads rans64_decode's in: the stream bytes, the tables and the
// reads.
func RansInOf(in map[string]any) ([]byte, []RansTable, []int, error) {
	o := &operands{op: "rans64_decode", m: in}
	stream := o.hex("stream")
	if o.err != nil {
		return nil, nil, nil, o.err
	}
	tables, reads, err := RansTablesOf(in)
	return stream, tables, reads, err
}

// RansTablesOf reads the "tables" and "reads" members of rans64_decode's in.
func RansTablesOf(in map[string]any) ([]RansTable, []int, error) {
	o := &operands{op: "rans64_decode", m: in}
	var tables []RansTable
	for i, t := range o.list("tables") {
		tm, ok := t.(map[string]any)
		if !ok {
			o.fail("tables", "[%d] is not an object", i)
			break
		}
		to := &operands{op: fmt.Sprintf("rans64_decode: tables[%d]", i), m: tm}
		tables = append(tables, RansTable{CDF: to.ints("cdf"), Offset: to.int("offset")})
		if to.err != nil {
			o.err = to.err
			break
		}
	}
	var reads []int
	for _, r := range o.ints("reads") {
		reads = append(reads, int(max(min(r, 1<<31), -1))) // out of range stays out of range
	}
	return tables, reads, o.err
}

func evalRans(modes, in *operands) (map[string]any, error) {
	m, err := ransModes(modes)
	if err != nil {
		return nil, err
	}
	stream, tables, reads, err := RansInOf(in.m)
	if err != nil {
		return nil, err
	}
	var d RansDecoder
	syms, err := d.Decode(stream, tables, reads, m)
	if err != nil {
		return nil, err
	}
	return map[string]any{"symbols": syms}, nil
}

func evalDequantize(_, in *operands) (map[string]any, error) {
	// E2's operands are read as exact integers: past i64 is E2's own
	// field_range, not a width refusal (docs/READINGS.md D-E, §5E widths).
	sym, f, base := in.bigInt("sym"), in.bigInt("f"), in.bigInt("base")
	if in.err != nil {
		return nil, in.err
	}
	v, err := DequantizeExact(sym, f, base)
	return map[string]any{"value": v}, err
}

func evalBucket(modes, in *operands) (map[string]any, error) {
	rule := modes.str("bucket")
	sigma, edges := in.int("sigma"), in.ints("edges")
	if modes.err != nil {
		return nil, modes.err
	}
	if in.err != nil {
		return nil, in.err
	}
	b, err := Bucket(sigma, edges, rule)
	return map[string]any{"index": b}, err
}

func evalCoded(_, in *operands) (map[string]any, error) {
	v, thr := in.int("v"), in.int("thr")
	if in.err != nil {
		return nil, in.err
	}
	return map[string]any{"coded": Coded(v, thr)}, nil
}

func evalScaleIndex(_, in *operands) (map[string]any, error) {
	v, s, n := in.int("v"), in.int("s"), in.int("n")
	if in.err != nil {
		return nil, in.err
	}
	idx, err := ScaleIndex(v, s, n)
	return map[string]any{"index": idx}, err
}

func evalBlockStat(_, in *operands) (map[string]any, error) {
	x := in.tensor("x", refusal.ModelMismatch)
	b, s, lo, hi := in.int("b"), in.int("s"), in.int("lo"), in.int("hi")
	if in.err != nil {
		return nil, in.err
	}
	out, err := BlockStat(x, b, s, lo, hi)
	if err != nil {
		return nil, err
	}
	return map[string]any{"out": out.JSON()}, nil
}

func evalBandLookup(_, in *operands) (map[string]any, error) {
	v, edges, table, row := in.int("v"), in.ints("edges"), in.rows("table"), in.int("row")
	if in.err != nil {
		return nil, in.err
	}
	val, err := BandLookup(v, edges, table, row)
	return map[string]any{"value": val}, err
}

func evalMans(_, in *operands) (map[string]any, error) {
	var d MansDecoder
	return evalMansWith(&d, in)
}

// evalMansWith evaluates mans_decode's in on decoder d.
func evalMansWith(d *MansDecoder, in *operands) (map[string]any, error) {
	mem := in.hex("memory")
	var lens []int
	var syms []int64
	var err error
	switch mode := in.str("mode"); mode {
	case "sgm":
		pmf, bounds := in.rows("pmf"), in.ints("bounds")
		var spans []Span
		for i, sv := range in.list("spans") {
			sm, ok := sv.(map[string]any)
			if !ok {
				in.fail("spans", "[%d] is not an object", i)
				break
			}
			so := &operands{op: fmt.Sprintf("mans_decode: spans[%d]", i), m: sm}
			sp := Span{Sigma: so.ints("sigma")}
			for k, b := range so.list("mask") {
				mb, ok := b.(bool)
				if !ok {
					so.fail("mask", "[%d] is not true or false", k)
				}
				sp.Mask = append(sp.Mask, mb)
			}
			if so.err != nil {
				in.err = so.err
				break
			}
			spans = append(spans, sp)
			lens = append(lens, len(sp.Mask))
		}
		if in.err != nil {
			return nil, in.err
		}
		tab, terr := NewSgmTables(pmf, bounds)
		if terr != nil {
			return nil, terr
		}
		syms, err = d.Sgm(mem, tab, spans)
	case "fac":
		rows, lengths := in.rows("rows"), in.ints("lengths")
		fr := make([]FacRow, len(rows))
		for i, r := range rows {
			if len(r) != 63 && in.err == nil {
				in.err = cond(refusal.ModelMismatch, "mans_decode: row %d has %d counts, not 63", i, len(r))
			}
			copy(fr[i][:], r)
		}
		if in.err != nil {
			return nil, in.err
		}
		syms, err = d.Fac(mem, fr, lengths)
		for _, n := range lengths {
			lens = append(lens, int(n))
		}
	default:
		in.fail("mode", "unknown mode %q", mode)
		return nil, in.err
	}
	if err != nil {
		return nil, err
	}
	out := make([]any, len(lens))
	for i, n := range lens {
		out[i], syms = syms[:n], syms[n:]
	}
	return map[string]any{"symbols": out}, nil
}

func evalResidual(_, in *operands) (map[string]any, error) {
	pred, r, q, lo, hi := in.int("pred"), in.int("r"), in.int("q"), in.int("lo"), in.int("hi")
	if in.err != nil {
		return nil, in.err
	}
	v, err := ResidualStep(pred, r, q, lo, hi)
	return map[string]any{"value": v}, err
}

func evalMC(_, in *operands) (map[string]any, error) {
	frame := in.tensor("frame", refusal.ModelMismatch)
	y, x, c := in.int("y"), in.int("x"), in.int("c")
	dy, dx, prec := in.int("dy"), in.int("dx"), in.int("precision")
	if in.err != nil {
		return nil, in.err
	}
	v, err := MCPredict(frame, y, x, c, dy, dx, prec)
	return map[string]any{"value": v}, err
}

func evalUp2(_, in *operands) (map[string]any, error) {
	prev := in.tensor("prev", refusal.GeometryMismatch)
	d0, d1 := in.int("d0"), in.int("d1")
	if in.err != nil {
		return nil, in.err
	}
	out, err := Up2Predict(prev, d0, d1)
	if err != nil {
		return nil, err
	}
	return map[string]any{"out": out.JSON()}, nil
}

func evalRate(_, in *operands) (map[string]any, error) {
	prev := in.tensor("prev", refusal.GeometryMismatch)
	num, den, d0 := in.int("rate_num"), in.int("rate_den"), in.int("d0")
	if in.err != nil {
		return nil, in.err
	}
	out, err := RatePredict(prev, num, den, d0)
	if err != nil {
		return nil, err
	}
	return map[string]any{"out": out.JSON()}, nil
}

func evalOrder(_, in *operands) (map[string]any, error) {
	shape := in.ints("shape")
	order := in.str("order")
	if in.err == nil && len(shape) != 3 {
		in.fail("shape", "want three dimensions, have %d", len(shape))
	}
	anchor := false
	if order == OrderCheckerboard {
		anchor = in.boolean("anchor") // read for checkerboard only
	}
	if in.err != nil {
		return nil, in.err
	}
	idx, err := CodingOrder(shape[0], shape[1], shape[2], order, anchor)
	return map[string]any{"indices": idx}, err
}
