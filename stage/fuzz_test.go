package stage

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// Fuzz targets for the two stream decoders of §5E. Tables, modes and
// streams are all drawn from the fuzzer's bytes, so the table conditions
// are fuzzed as well as the streams. Seeds are the committed corpus's
// vectors (the committed vectors/stage files).

// ransTablesBytes lays tables out as the fuzz target reads them: per table
// a u16 entry count, the entries as u32 and the offset as i64.
func ransTablesBytes(tables []RansTable) []byte {
	var b []byte
	for _, t := range tables {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(t.CDF)))
		for _, v := range t.CDF {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(t.Offset))
	}
	return b
}

// ransTablesOf reads ransTablesBytes's layout; a table cut short ends it.
func ransTablesOf(b []byte) []RansTable {
	var tables []RansTable
	for len(b) >= 2 {
		n := int(binary.LittleEndian.Uint16(b))
		b = b[2:]
		if len(b) < 4*n+8 {
			break
		}
		t := RansTable{CDF: make([]int64, n)}
		for k := range t.CDF {
			t.CDF[k] = int64(binary.LittleEndian.Uint32(b[4*k:]))
		}
		t.Offset = int64(binary.LittleEndian.Uint64(b[4*n:]))
		b = b[4*n+8:]
		tables = append(tables, t)
	}
	return tables
}

// ransModeBits packs the three modes: bit 0 t2, bit 1 strict, bit 2
// final_only.
func ransModeBits(m RansModes) uint8 {
	var v uint8
	if m.Table == T2 {
		v |= 1
	}
	if m.Strict {
		v |= 2
	}
	if m.FinalOnly {
		v |= 4
	}
	return v
}

// FuzzRans64 decodes arbitrary streams against arbitrary tables under every
// mode (§5E E1). A refusal carries one of E1's codes at the index §14.1
// names; a decode's symbols are i32 (lenient) or in [lo, hi] (strict); a
// second decoder and a second decode give the same symbols; and a strict,
// canonical stream that starts in the coder's range re-encodes to its own
// bytes.
func FuzzRans64(f *testing.F) {
	for _, c := range committedVectors(f) {
		if c.op != "rans64_decode" {
			continue
		}
		m, err := RansModesOf(c.modes)
		if err != nil {
			continue
		}
		stream, tables, reads, err := RansInOf(c.in)
		if err != nil {
			continue
		}
		rb := make([]byte, len(reads))
		for i, r := range reads {
			rb[i] = byte(r)
		}
		f.Add(stream, ransTablesBytes(tables), rb, ransModeBits(m), m.Lo, m.Hi)
	}
	var d1, d2 RansDecoder
	f.Fuzz(func(t *testing.T, stream, tb, rb []byte, mode uint8, lo, hi int64) {
		tables := ransTablesOf(tb)
		reads := make([]int, len(rb))
		for i, r := range rb {
			reads[i] = int(r)
		}
		m := RansModes{Strict: mode&2 != 0, FinalOnly: mode&4 != 0, Lo: lo, Hi: hi}
		if mode&1 != 0 {
			m.Table = T2
		}
		if !m.Strict {
			m.Lo, m.Hi = minI32, maxI32
		}
		got, err := d1.Decode(stream, tables, reads, m)
		got = slices.Clone(got)
		again, err2 := d1.Decode(stream, tables, reads, m)
		other, err3 := d2.Decode(stream, tables, reads, m)
		if (err == nil) != (err2 == nil) || (err == nil) != (err3 == nil) ||
			!slices.Equal(got, again) || !slices.Equal(got, other) {
			t.Fatalf("decodes differ: %v / %v / %v", err, err2, err3)
		}
		if err != nil {
			r := spectest.Refusal(t, err, refusal.ModelMismatch, refusal.FieldRange, StreamExhausted, StreamNoncanonical)
			if r2 := spectest.Refusal(t, err2); r2.Code != r.Code || r2.At != r.At {
				t.Fatalf("refusals differ: %v at %d, %v at %d", r, r.At, r2, r2.At)
			}
			switch {
			case r.Code == refusal.ModelMismatch && r.At != -1:
				t.Fatalf("a condition refused at %d, not −1: %v", r.At, r)
			case r.Code != refusal.ModelMismatch && (r.At < 0 || r.At > int64(len(reads))):
				t.Fatalf("a stream refusal at %d of %d reads: %v", r.At, len(reads), r)
			}
			return
		}
		if len(got) != len(reads) {
			t.Fatalf("%d symbols for %d reads", len(got), len(reads))
		}
		for i, s := range got {
			if s < m.Lo || s > m.Hi {
				t.Fatalf("symbol %d = %d outside [%d, %d]", i, s, m.Lo, m.Hi)
			}
		}
		// §5E strict with the canonical end: the decode is one to one, so
		// the encoder gives the stream back when its first state lies in
		// [L, L·2^32), the range every encoder state lies in.
		if x := binary.LittleEndian.Uint64(stream); !m.Strict || m.FinalOnly || x < ransL || x>>32 >= ransL {
			return
		}
		var e RansEncoder
		for i, s := range got {
			if err := e.Symbol(tables[reads[i]], s); err != nil {
				t.Fatalf("symbol %d: %v", i, err)
			}
		}
		if b := e.Bytes(); !bytes.Equal(b, stream) {
			t.Fatalf("re-encoded\n%x\nfrom\n%x", b, stream)
		}
	})
}

// sgmPMFBytes lays pmf rows out for the target: the width, then each
// entry as a u16.
func sgmPMFBytes(pmf [][]int64) []byte {
	var b []byte
	if len(pmf) > 0 {
		b = append(b, byte(len(pmf[0])))
	}
	for _, row := range pmf {
		for _, v := range row {
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		}
	}
	return b
}

// sgmPMFOf reads sgmPMFBytes's layout. With fix, each row's last entry is
// set so that the row sums to 256 where that is a non-negative entry.
func sgmPMFOf(b []byte, fix bool) [][]int64 {
	if len(b) == 0 {
		return nil
	}
	w := int(b[0])
	b = b[1:]
	if w == 0 {
		return [][]int64{{}}
	}
	var pmf [][]int64
	for len(b) >= 2*w {
		row := make([]int64, w)
		sum := int64(0)
		for k := range row {
			row[k] = int64(binary.LittleEndian.Uint16(b[2*k:]))
			sum += row[k]
		}
		if fix && sum-row[w-1] <= 256 {
			row[w-1] = 256 - (sum - row[w-1])
		}
		pmf = append(pmf, row)
		b = b[2*w:]
	}
	return pmf
}

// FuzzMansSgm runs mans_decode sgm (§5E E8) on arbitrary streams, rows,
// bounds and spans. A refusal is model_mismatch at −1 or stream_exhausted
// at a position; a decode gives a symbol per position, 0 where unmasked, and
// the same symbols on a second decode.
func FuzzMansSgm(f *testing.F) {
	for _, c := range committedVectors(f) {
		in := &operands{op: "mans_decode", m: c.in}
		if c.op != "mans_decode" || in.str("mode") != "sgm" {
			continue
		}
		mem, pmf, bounds := in.hex("memory"), in.rows("pmf"), in.ints("bounds")
		var bb, sb []byte
		for _, v := range bounds {
			bb = binary.LittleEndian.AppendUint16(bb, uint16(v))
		}
		for _, sv := range in.list("spans") {
			so := &operands{m: sv.(map[string]any)}
			sigma, mask := so.ints("sigma"), so.list("mask")
			sb = append(sb, byte(len(sigma)))
			for k, s := range sigma {
				mb := byte(0)
				if k < len(mask) && mask[k] == true {
					mb = 1
				}
				sb = append(sb, mb, byte(s))
			}
		}
		if in.err == nil {
			f.Add(mem, sgmPMFBytes(pmf), bb, sb, false)
		}
	}
	var d MansDecoder
	f.Fuzz(func(t *testing.T, mem, pb, bb, sb []byte, fix bool) {
		pmf := sgmPMFOf(pb, fix)
		bounds := make([]int64, len(bb)/2)
		for i := range bounds {
			bounds[i] = int64(binary.LittleEndian.Uint16(bb[2*i:]))
		}
		var spans []Span
		total := 0
		for len(sb) > 0 {
			n := int(sb[0])
			sb = sb[1:]
			sp := Span{Mask: make([]bool, 0, n), Sigma: make([]int64, 0, n)}
			for k := 0; k < n && len(sb) >= 2; k++ {
				sp.Mask = append(sp.Mask, sb[0]&1 == 1)
				sp.Sigma = append(sp.Sigma, int64(sb[1]))
				sb = sb[2:]
			}
			spans = append(spans, sp)
			total += len(sp.Mask)
		}
		tab, err := NewSgmTables(pmf, bounds)
		if err != nil {
			if r := spectest.Refusal(t, err, refusal.ModelMismatch); r.At != -1 {
				t.Fatalf("a table condition refused at %d: %v", r.At, r)
			}
			return
		}
		got, ok := decodeTwice(t, total, func() ([]int64, error) { return d.Sgm(mem, tab, spans) })
		if !ok {
			return
		}
		pos := 0
		for _, sp := range spans {
			for k, m := range sp.Mask {
				if !m && got[pos+k] != 0 {
					t.Fatalf("unmasked position %d decoded %d", pos+k, got[pos+k])
				}
			}
			pos += len(sp.Mask)
		}
	})
}

// decodeTwice runs a mans_decode twice on the same operands: both runs give
// the same symbols or both refuse, a refusal by checkMansRefusal (ok
// false), and a decode gives total symbols.
func decodeTwice(t *testing.T, total int, decode func() ([]int64, error)) (got []int64, ok bool) {
	t.Helper()
	got, err := decode()
	got = slices.Clone(got)
	again, err2 := decode()
	if (err == nil) != (err2 == nil) || !slices.Equal(got, again) {
		t.Fatalf("decodes differ: %v / %v", err, err2)
	}
	if err != nil {
		checkMansRefusal(t, err, total)
		return nil, false
	}
	if len(got) != total {
		t.Fatalf("%d symbols for %d positions", len(got), total)
	}
	return got, true
}

// checkMansRefusal: E8's codes at §14.1's index, with positions below
// total (0 when there are none).
func checkMansRefusal(t *testing.T, err error, total int) {
	t.Helper()
	r := spectest.Refusal(t, err, refusal.ModelMismatch, StreamExhausted, refusal.TooLarge)
	switch {
	case r.Code != StreamExhausted && r.At != -1:
		t.Fatalf("a condition refused at %d: %v", r.At, r)
	case r.Code == StreamExhausted && (r.At < 0 || r.At >= int64(max(total, 1))):
		t.Fatalf("stream refusal at %d of %d positions: %v", r.At, total, r)
	}
}

// FuzzMansFac runs mans_decode fac (§5E E8) on arbitrary streams, rows (63
// counts of a byte each) and lengths (u16 each). A decode gives
// Σ lengths symbols, each in 0..=63.
func FuzzMansFac(f *testing.F) {
	for _, c := range committedVectors(f) {
		in := &operands{op: "mans_decode", m: c.in}
		if c.op != "mans_decode" || in.str("mode") != "fac" {
			continue
		}
		mem, rows, lengths := in.hex("memory"), in.rows("rows"), in.ints("lengths")
		var rb, lb []byte
		for _, r := range rows {
			row := make([]byte, 63)
			for k := range min(len(r), 63) {
				row[k] = byte(r[k])
			}
			rb = append(rb, row...)
		}
		for _, n := range lengths {
			lb = binary.LittleEndian.AppendUint16(lb, uint16(n))
		}
		if in.err == nil {
			f.Add(mem, rb, lb)
		}
	}
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, make([]byte, 63), []byte{4, 0})
	var d MansDecoder
	f.Fuzz(func(t *testing.T, mem, rb, lb []byte) {
		rows := make([]FacRow, len(rb)/63)
		for r := range rows {
			for k := range 63 {
				rows[r][k] = int64(rb[63*r+k])
			}
		}
		lengths := make([]int64, len(lb)/2)
		total := 0
		for i := range lengths {
			lengths[i] = int64(binary.LittleEndian.Uint16(lb[2*i:]))
			total += int(lengths[i])
		}
		got, ok := decodeTwice(t, total, func() ([]int64, error) { return d.Fac(mem, rows, lengths) })
		if !ok {
			return
		}
		for i, s := range got {
			if s < 0 || s > 63 {
				t.Fatalf("symbol %d = %d outside 0..=63", i, s)
			}
		}
	})
}
