package stage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
)

// An independent reading of E1 and E8, written line by line from §5E,
// docs/READINGS.md D-B and §14.1's at rules, with none of the decoders' shortcuts
// (a linear cdf search, no reused buffers, a refusal raised at the step
// that needs it). The tests compare the decoders with it on seeded random
// streams that run out, escape, continue and saturate.

// litRefusal is a refusal the literal decoders raise: code at at.
type litRefusal struct {
	code refusal.Code
	at   int64
}

// litRans is E1 on one stream; its tables and modes meet E1's conditions.
func litRans(stream []byte, tables []RansTable, reads []int, m RansModes) ([]int64, *litRefusal) {
	w := make([]uint64, len(stream)/4)
	for i := range w {
		w[i] = uint64(binary.LittleEndian.Uint32(stream[4*i:]))
	}
	x, p := w[0]|w[1]<<32, 2 // D-B init
	out, symOut := false, false
	renorm := func() {
		// x < 2^31, written as no bit at or above 31 (see RansDecoder.renorm:
		// Go 1.26 for s390x folds x/16 < 2^31 to true).
		if x>>31 == 0 {
			if p < len(w) {
				x, p = x<<32|w[p], p+1
			} else {
				out, symOut = true, true // run out: x stays as it stands
			}
		}
	}
	bits4 := func() int64 {
		v := int64(x % 16)
		x /= 16
		renorm()
		return v
	}
	sat := func(v int64) int64 { return min(max(v, -1<<31), 1<<31-1) }
	value := func(raw int64, n int) int64 {
		if raw%2 == 1 {
			return -(raw / 2) - 1
		}
		return raw/2 + int64(n-2)
	}
	var syms []int64
	for i, r := range reads {
		cdf, o, n := tables[r].CDF, tables[r].Offset, len(tables[r].CDF)
		symOut = false
		f := int64(x % (1 << 16))
		s := 0
		for k := range n {
			if cdf[k] <= f {
				s = k
			}
		}
		x = uint64(cdf[s+1]-cdf[s])*(x>>16) + uint64(f-cdf[s])
		renorm()
		escape := s == n-2
		var sym int64
		if !m.Strict {
			sym = sat(int64(s) + o)
			if escape {
				count := bits4()
				last := count
				for k := 0; last == 15 && !out && k < 8; k++ {
					last = bits4()
					count += last
				}
				var raw int64
				for j := range min(count, 8) {
					raw += bits4() << (4 * j)
				}
				sym = sat(sat(value(raw, n)) + o)
			}
			if !m.FinalOnly && symOut {
				return nil, &litRefusal{StreamExhausted, int64(i)}
			}
			syms = append(syms, sym)
			continue
		}
		var count, last, raw int64
		sym = int64(s) + o
		if escape {
			if count = bits4(); count <= 8 {
				for j := range count {
					last = bits4()
					raw += last << (4 * j)
				}
			}
			sym = value(raw, n) + o
		}
		switch {
		case !m.FinalOnly && symOut:
			return nil, &litRefusal{StreamExhausted, int64(i)}
		case escape && count > 8:
			return nil, &litRefusal{StreamNoncanonical, int64(i)}
		case escape && count >= 1 && last == 0:
			return nil, &litRefusal{StreamNoncanonical, int64(i)}
		case sym < m.Lo || sym > m.Hi:
			return nil, &litRefusal{refusal.FieldRange, int64(i)}
		}
		syms = append(syms, sym)
	}
	end := int64(len(reads))
	if m.FinalOnly && out {
		return nil, &litRefusal{StreamExhausted, end}
	}
	if !m.FinalOnly && (x != 1<<31 || p != len(w)) {
		return nil, &litRefusal{StreamNoncanonical, end}
	}
	return syms, nil
}

// litWindow is E8's memory and window; a refused operation panics with a
// litRefusal at the position in at, which the decode sets before each step.
type litWindow struct {
	mem   []byte
	p     int
	h     uint64
	b     int
	s     [2]uint64
	at    int64
	table []uint32 // fac: T_z
}

func (w *litWindow) refuse() { panic(&litRefusal{StreamExhausted, w.at}) }

func (w *litWindow) le64(i int) uint64 { return binary.LittleEndian.Uint64(w.mem[i:]) }

func (w *litWindow) init(stream []byte) {
	w.mem = append(make([]byte, 8), stream...)
	w.p = len(stream)
	if w.h = w.le64(w.p); w.h == 0 {
		w.refuse()
	}
	w.b = bits.Len64(w.h) - 1
	w.h -= 1 << w.b
	w.s[0] = w.read(8)
	w.s[1] = w.read(8)
	w.flush()
}

func (w *litWindow) read(k int) uint64 {
	if k > w.b {
		w.refuse()
	}
	w.b -= k
	r := w.h / (1 << w.b)
	w.h -= r << w.b
	return r
}

func (w *litWindow) flush() {
	d := 7 ^ w.b/8
	if d > w.p {
		w.refuse()
	}
	w.p -= d
	w.h = w.le64(w.p) % (1 << (56 + w.b%8))
	w.b = 56 + w.b%8
}

// in is E8's in(which, i) on entry t; it returns t mod 2^16.
func (w *litWindow) in(which int, t uint32) uint32 {
	w.s[which] = (uint64(t/(1<<16)) | w.read(int(t/(1<<24)))) % 256
	return t % (1 << 16)
}

// litRun runs a decode and turns a window refusal into its litRefusal.
func litRun(decode func()) (r *litRefusal) {
	defer func() {
		if v := recover(); v != nil {
			r = v.(*litRefusal)
		}
	}()
	decode()
	return nil
}

func wrap16(v int64) int64 { return int64(int16(uint16(v))) }

// litLatentTable is T_y[σ] from row P, by §5E "Building the latent tables".
func litLatentTable(P []int64) []uint32 {
	t := make([]uint32, 256)
	C := []int64{0}
	for _, v := range P {
		C = append(C, C[len(C)-1]+v)
	}
	F := func(k int) int64 { return C[k] - C[k]/2 }
	G := func(k int) int64 { return C[k]/2 + 128 }
	entry := func(next, sym int64) uint32 {
		nb := int64(0)
		for next<<nb < 256 {
			nb++
		}
		return uint32(nb<<24 + ((next<<nb)^256)<<16 + (sym & 0xffff))
	}
	for k := 0; k < len(P) && C[k] < 256; k++ {
		sym := int64(k / 2)
		if k%2 == 1 {
			sym = -int64(k+1) / 2
		}
		for u := F(k); u < F(k+1); u++ {
			t[u] = entry(P[k]+(u-F(k)), sym)
		}
		for u := G(k); u < G(k+1); u++ {
			t[u] = entry(P[k]+(F(k+1)-F(k))+(u-G(k)), sym)
		}
	}
	return t
}

// litSgm is E8 in sgm mode; the operands meet E8's conditions.
func litSgm(stream []byte, pmf [][]int64, bounds []int64, spans []Span) ([]int64, *litRefusal) {
	ty := make([][]uint32, len(pmf))
	for s, row := range pmf {
		ty[s] = litLatentTable(row)
	}
	var w litWindow
	var out []int64
	r := litRun(func() {
		w.init(stream)
		pos := int64(0)
		for _, sp := range spans {
			n := len(sp.Mask)
			sym := make([]int64, n)
			in := func(which, i int) {
				if sp.Mask[i] {
					w.at = pos + int64(i)
					sym[i] = wrap16(int64(w.in(which, ty[sp.Sigma[i]][w.s[which]])))
				}
			}
			outStep := func(i int) {
				beta := bounds[sp.Sigma[i]]
				if !sp.Mask[i] || sym[i]+beta != 0 {
					return
				}
				w.at = pos + int64(i)
				k := 16
				if w.read(1) == 1 {
					k = 3
				}
				v := int64(w.read(k))
				if v%2 == 0 {
					sym[i] = wrap16(v/2 + beta)
				} else {
					sym[i] = wrap16(-(v / 2) - beta)
				}
				w.flush()
			}
			i := 0
			for ; i+4 <= n; i += 4 {
				in(0, i)
				in(1, i+1)
				in(0, i+2)
				in(1, i+3)
				w.at = pos + int64(i+3)
				w.flush()
				for k := range 4 {
					outStep(i + k)
				}
			}
			if n%4 >= 2 {
				in(0, i)
				outStep(i)
				in(1, i+1)
				outStep(i + 1)
				w.at = pos + int64(i+1)
				w.flush()
				i += 2
			}
			if n%2 == 1 {
				in(0, i)
				outStep(i)
				w.at = pos + int64(i)
				w.flush()
			}
			out = append(out, sym...)
			pos += int64(n)
		}
	})
	return out, r
}

// litZp is §5E's Zp[1..511].
func litZp() []uint32 {
	z := make([]uint32, 512)
	nb := 0
	for i := 511; i >= 1; i-- {
		if i<<nb < 256 {
			nb++
		}
		z[i] = uint32((i << nb) ^ 256 + 256*nb)
	}
	return z
}

// litFac is E8 in fac mode; the operands meet E8's conditions.
func litFac(stream []byte, rows []FacRow, lengths []int64) ([]int64, *litRefusal) {
	zp := litZp()
	w := litWindow{table: make([]uint32, 256)}
	var out []int64
	r := litRun(func() {
		w.init(stream)
		pos, last := int64(0), int64(-1)
		for ri, row := range rows {
			prev := int64(0)
			for a, c := range row {
				for j := prev; j < c; j++ {
					w.table[j] = zp[c-prev+j-prev]<<16 + uint32(a)
				}
				prev = c
			}
			w.table[255] = zp[1]<<16 + 63
			n := int(lengths[ri])
			sym := make([]int64, n)
			in := func(which, i int) {
				w.at, last = pos+int64(i), pos+int64(i)
				sym[i] = int64(w.in(which, w.table[w.s[which]]) % 256)
			}
			outStep := func(i int) {
				w.at = pos + int64(i)
				if sym[i] == 63 {
					sym[i] = int64(w.read(6))
				}
			}
			i := 0
			for ; i+4 <= n; i += 4 {
				for k := range 4 {
					in(k%2, i+k)
				}
				for k := range 4 {
					outStep(i + k)
				}
				w.at = pos + int64(i+3)
				w.flush()
			}
			if n%4 >= 2 {
				in(0, i)
				outStep(i)
				in(1, i+1)
				outStep(i + 1)
				i += 2
			}
			if n%2 == 1 {
				in(0, i)
				outStep(i)
			}
			// The row's flush: at the last position whose in step ran
			// (this package's reading: 0 before any has).
			w.at = max(last, 0)
			w.flush()
			out = append(out, sym...)
			pos += int64(n)
		}
	})
	return out, r
}

// sameOutcome compares a decoder's result with the literal one's.
func sameOutcome(got []int64, err error, want []int64, wr *litRefusal) bool {
	if wr != nil {
		var r *refusal.Error
		return errors.As(err, &r) && r.Code == wr.code && r.At == wr.at
	}
	return err == nil && slices.Equal(got, want)
}

// randWords is a stream of n words, each 0, 1, 15, 2^31, 2^32 − 1 or
// random, so that states run small, bits read 15 and streams run out.
func randWords(rng *rand.Rand, n int) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		v := []uint32{0, 1, 15, 1 << 31, 1<<32 - 1, 0xfffffff0, rng.Uint32(), rng.Uint32() & 0xff}[rng.IntN(8)]
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func randRansTable(rng *rand.Rand, t2 bool) RansTable {
	n := 3 + rng.IntN(4)
	if t2 {
		n = 2 + rng.IntN(4)
	}
	span := int64(65535)
	if rng.IntN(2) == 0 {
		span = 2000 // a wide escape slot: most symbols escape
	}
	cdf := []int64{0}
	for len(cdf) < n-1 {
		if v := 1 + rng.Int64N(span); !slices.Contains(cdf, v) {
			cdf = append(cdf, v)
		}
	}
	slices.Sort(cdf)
	offsets := []int64{0, 5, -7, 1<<31 - 1, -1 << 31, 1<<31 - 3}
	return RansTable{CDF: append(cdf, 65536), Offset: offsets[rng.IntN(len(offsets))]}
}

// TestRansMatchesLiteral compares Decode with litRans in every mode.
func TestRansMatchesLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	var d RansDecoder
	cases := 4000
	if testing.Short() {
		cases = 400
	}
	for c := range cases {
		m := RansModes{Table: TableRule(rng.IntN(2)), Strict: rng.IntN(2) == 0, FinalOnly: rng.IntN(2) == 0}
		if m.Strict {
			m.Lo = []int64{-10, -1 << 31, 0}[rng.IntN(3)]
			m.Hi = []int64{10, 1<<31 - 1, 100000}[rng.IntN(3)]
		}
		tables := make([]RansTable, 1+rng.IntN(3))
		for i := range tables {
			tables[i] = randRansTable(rng, m.Table == T2)
		}
		reads := make([]int, rng.IntN(13))
		for i := range reads {
			reads[i] = rng.IntN(len(tables))
		}
		stream := randWords(rng, 2+rng.IntN(5))
		got, err := d.Decode(stream, tables, reads, m)
		want, wr := litRans(stream, tables, reads, m)
		if !sameOutcome(got, err, want, wr) {
			t.Fatalf("case %d, modes %+v, stream %x, tables %v, reads %v: got %v, %v; want %v, %v", c, m, stream, tables, reads, got, err, want, wr)
		}
	}
}

// TestMansMatchesLiteral compares Sgm and Fac with litSgm and litFac.
func TestMansMatchesLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	var d MansDecoder
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	for c := range cases {
		mem := make([]byte, rng.IntN(41))
		for i := range mem {
			mem[i] = []byte{0, 0xff, 1, 0x80, byte(rng.Uint32())}[rng.IntN(5)]
		}
		if c%2 == 0 {
			w := 1 + rng.IntN(8)
			pmf := make([][]int64, 1+rng.IntN(3))
			bounds := make([]int64, len(pmf))
			for s := range pmf {
				pmf[s] = make([]int64, w)
				for range 256 {
					k := min(rng.IntN(w), rng.IntN(3))
					pmf[s][k]++
				}
				bounds[s] = []int64{0, 1, 2, 3, 128, 255}[rng.IntN(6)]
			}
			spans := make([]Span, rng.IntN(4))
			for k := range spans {
				n := rng.IntN(12)
				spans[k] = Span{Mask: make([]bool, n), Sigma: make([]int64, n)}
				for i := range n {
					spans[k].Mask[i] = rng.IntN(10) < 7
					spans[k].Sigma[i] = int64(rng.IntN(len(pmf)))
				}
			}
			tab, err := NewSgmTables(pmf, bounds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Sgm(mem, tab, spans)
			want, wr := litSgm(mem, pmf, bounds, spans)
			if !sameOutcome(got, err, want, wr) {
				t.Fatalf("sgm case %d, memory %x, pmf %v, bounds %v, spans %v: got %v, %v; want %v, %v", c, mem, pmf, bounds, spans, got, err, want, wr)
			}
			continue
		}
		rows := make([]FacRow, rng.IntN(5))
		lengths := make([]int64, len(rows))
		for r := range rows {
			step, cum := int64([]int{0, 1, 4, 9}[rng.IntN(4)]), int64(0)
			for a := range rows[r] {
				cum = min(cum+rng.Int64N(step+1), 255)
				rows[r][a] = cum
			}
			lengths[r] = rng.Int64N(10)
		}
		got, err := d.Fac(mem, rows, lengths)
		want, wr := litFac(mem, rows, lengths)
		if !sameOutcome(got, err, want, wr) {
			t.Fatalf("fac case %d, memory %x, rows %v, lengths %v: got %v, %v; want %v, %v", c, mem, rows, lengths, got, err, want, wr)
		}
	}
}

// litExpect is the §14.1 expect of a literal decode.
func litExpect(syms any, r *litRefusal) map[string]any {
	if r != nil {
		return map[string]any{"at": r.at, "refuse": string(r.code)}
	}
	return map[string]any{"symbols": syms}
}

// litMans decodes one committed mans_decode in with litSgm or litFac.
func litMans(in map[string]any) map[string]any {
	o := &operands{op: "mans_decode", m: in}
	mem := o.hex("memory")
	var lens []int
	var syms []int64
	var r *litRefusal
	if o.str("mode") == "sgm" {
		var spans []Span
		for _, sv := range o.list("spans") {
			so := &operands{op: "mans_decode", m: sv.(map[string]any)}
			sp := Span{Sigma: so.ints("sigma")}
			for _, b := range so.list("mask") {
				sp.Mask = append(sp.Mask, b.(bool))
			}
			spans = append(spans, sp)
			lens = append(lens, len(sp.Mask))
		}
		syms, r = litSgm(mem, o.rows("pmf"), o.ints("bounds"), spans)
	} else {
		rows := o.rows("rows")
		fr := make([]FacRow, len(rows))
		for i, row := range rows {
			copy(fr[i][:], row)
		}
		lengths := o.ints("lengths")
		for _, n := range lengths {
			lens = append(lens, int(n))
		}
		syms, r = litFac(mem, fr, lengths)
	}
	if r != nil {
		return litExpect(nil, r)
	}
	out := make([]any, len(lens))
	for i, n := range lens {
		out[i], syms = syms[:n], syms[n:]
	}
	return litExpect(out, nil)
}

// TestCommittedStreamsMatchLiteral recomputes the expect of every committed
// rans64_decode and mans_decode vector that gets past E1's and E8's
// conditions with the literal decoders, apart from Eval.
func TestCommittedStreamsMatchLiteral(t *testing.T) {
	for _, op := range []string{"rans64_decode", "mans_decode"} {
		data, err := os.ReadFile(filepath.Join(corpusDir, op+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		checked := 0
		for sc.Scan() {
			v, err := cjson.Unmarshal(sc.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			vec := v.(map[string]any)
			exp := vec["expect"].(map[string]any)
			if exp["at"] == "-1" {
				continue // a condition: no stream is decoded
			}
			in := vec["in"].(map[string]any)
			var got map[string]any
			if op == "mans_decode" {
				got = litMans(in)
			} else {
				m, err := RansModesOf(vec["modes"].(map[string]any))
				if err != nil {
					t.Fatal(err)
				}
				stream, tables, reads, err := RansInOf(in)
				if err != nil {
					t.Fatal(err)
				}
				syms, r := litRans(stream, tables, reads, m)
				got = litExpect(syms, r)
			}
			g, _ := cjson.Marshal(got)
			w, _ := cjson.Marshal(exp)
			if !bytes.Equal(g, w) {
				t.Errorf("%s %s: committed %s, literal %s", op, vec["id"], w, g)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no vector decoded a stream", op)
		}
		t.Logf("%s: %d vectors recomputed", op, checked)
	}
}
