package dcz

import (
	"bytes"
	"crypto/sha256"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestFrameWindow holds frameWindow to windows and descriptors worked out
// by hand from H5's limit and RFC 8878 §3.1.1.1.2 (Exponent in bits 7-3,
// Mantissa in bits 2-0, window 2^(10+E) + 2^(10+E)/8 × M).
func TestFrameWindow(t *testing.T) {
	for _, c := range []struct {
		dict, window uint64
		desc         byte
	}{
		{0, 8 << 20, 13 << 3},                // limit 8 MiB = 2^23
		{1 << 20, 8 << 20, 13 << 3},          // still 8 MiB
		{8 << 20, 10 << 20, 13<<3 | 2},       // limit 10 MiB = 8 + 2 × 1 MiB
		{10<<20 + 3, 12 << 20, 13<<3 | 4},    // limit 13 107 203: 8 MiB + 4 × 1 MiB below it
		{12 << 20, 15 << 20, 13<<3 | 7},      // limit 15 MiB = 8 + 7 × 1 MiB
		{64 << 20, 80 << 20, 16<<3 | 2},      // limit 80 MiB = 64 + 2 × 8 MiB
		{100 << 20, 120 << 20, 16<<3 | 7},    // limit 125 MiB: 64 + 7 × 8 = 120 MiB
		{120 << 20, 128 << 20, 17 << 3},      // limit 128 MiB = 2^27
		{1 << 40, 128 << 20, 17 << 3},        // capped
		{102 << 20, 120 << 20, 16<<3 | 7},    // limit 127.5 MiB: 128 would pass it
		{103 << 20, 128 << 20, 17 << 3},      // 103 + 25.75 MiB, capped at 128
		{6710887, 8 << 20, 13 << 3},          // 1.25 × d just under 8 MiB
		{9 << 20, 11 << 20, 13<<3 | 3},       // limit 11.25 MiB
		{40 << 20, 48 << 20, 15<<3 | 4},      // limit 50 MiB = 32 + 4.5 × 4 MiB: 48
		{2 << 30, 128 << 20, 17 << 3},        // capped
		{96 << 20, 120 << 20, 16<<3 | 7},     // limit 120 MiB exactly
		{(1 << 23) + 1, 10 << 20, 13<<3 | 2}, // limit 10 MiB + 1
	} {
		w, d := frameWindow(c.dict)
		if w != c.window || d != c.desc {
			t.Errorf("frameWindow(%d) = %d, %#x; want %d, %#x", c.dict, w, d, c.window, c.desc)
		}
		if w > WindowLimit(c.dict) {
			t.Errorf("frameWindow(%d) = %d, past the limit %d", c.dict, w, WindowLimit(c.dict))
		}
	}
}

// TestCodes holds the length and offset codes to RFC 8878
// §3.1.1.3.2.1.1's tables, read by hand.
func TestCodes(t *testing.T) {
	type cx struct {
		code  uint8
		extra uint32
		nb    uint8
	}
	check := func(name string, f func(uint32) (uint8, uint32, uint8), n uint32, want cx) {
		if c, x, b := f(n); (cx{c, x, b}) != want {
			t.Errorf("%s(%d) = %d, %d, %d; want %v", name, n, c, x, b, want)
		}
	}
	for n, want := range map[uint32]cx{0: {0, 0, 0}, 15: {15, 0, 0}, 16: {16, 0, 1}, 17: {16, 1, 1},
		27: {20, 3, 2}, 28: {21, 0, 2}, 63: {24, 15, 4}, 64: {25, 0, 6}, 65535: {34, 32767, 15}, 131071: {35, 65535, 16}} {
		check("llCode", llCode, n, want)
	}
	for n, want := range map[uint32]cx{3: {0, 0, 0}, 34: {31, 0, 0}, 35: {32, 0, 1}, 36: {32, 1, 1},
		1000: {45, 485, 9}, 131074: {52, 65535, 16}, 130: {42, 31, 5}, 131: {43, 0, 7}} {
		check("mlCode", mlCode, n, want)
	}
	for n, want := range map[uint32]cx{1: {0, 0, 0}, 3: {1, 1, 1}, 4: {2, 0, 2}, 7: {2, 3, 2},
		128<<20 + 3: {27, 3, 27}} {
		check("ofCode", ofCode, n, want)
	}
}

// TestSpread holds the predefined offset distribution's decoding table to
// RFC 8878 Appendix A's symbols, state by state.
func TestSpread(t *testing.T) {
	want := []uint8{0, 6, 9, 15, 21, 3, 7, 12, 18, 23, 5, 8, 14, 20, 2, 7, 11, 17, 22, 4, 8, 13,
		19, 1, 6, 10, 16, 28, 27, 26, 25, 24}
	if got := ofNorm.spread(); !slices.Equal(got, want) {
		t.Errorf("offset codes' table %v, want %v", got, want)
	}
}

// TestFSECoder decodes what each predefined coder writes as RFC 8878 §4.1
// has a decoder read it (the decoding table built from the spread:
// Number_of_Bits = log - ⌊log2 next⌋, Baseline = next << Number_of_Bits -
// 2^log), for random symbol strings.
func TestFSECoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []fseNorm{llNorm, mlNorm, ofNorm} {
		f := newFSECoder(n)
		size := 1 << n.log
		cells := n.spread()
		next := make([]int, len(n.counts))
		for s, c := range n.counts {
			next[s] = int(max(c, 1))
		}
		nb, baseline := make([]uint, size), make([]int, size)
		for u, s := range cells {
			x := next[s]
			next[s]++
			nb[u] = n.log - uint(bits.Len(uint(x))-1)
			baseline[u] = x<<nb[u] - size
		}
		for range 200 {
			syms := make([]uint8, 1+rng.IntN(300))
			for i := range syms {
				syms[i] = uint8(rng.IntN(len(n.counts)))
			}
			// Written last symbol first; the decoder reads the first first.
			var w bitWriter
			state := f.first(syms[len(syms)-1])
			for i := len(syms) - 2; i >= 0; i-- {
				state = f.code(&w, state, syms[i])
			}
			f.flush(&w, state)
			w.close()
			r := newBackReader(t, w.out)
			u := r.read(n.log)
			for i, s := range syms {
				if cells[u] != s {
					t.Fatalf("log %d: symbol %d decodes as %d, want %d", n.log, i, cells[u], s)
				}
				if i < len(syms)-1 {
					u = baseline[u] + r.read(nb[u])
				}
			}
			if r.left != 0 {
				t.Fatalf("log %d: %d bits left over", n.log, r.left)
			}
		}
	}
}

// backReader reads a backward bitstream (RFC 8878 §4.1): from the last
// byte's highest set bit, the end mark, down.
type backReader struct {
	b    []byte
	left int // bits not yet read
}

func newBackReader(t *testing.T, b []byte) *backReader {
	if len(b) == 0 || b[len(b)-1] == 0 {
		t.Fatal("a bitstream without its end mark")
	}
	return &backReader{b: b, left: (len(b)-1)*8 + bits.Len8(b[len(b)-1]) - 1}
}

func (r *backReader) read(n uint) int {
	v := 0
	for range n {
		r.left--
		v = v<<1 | int(r.b[r.left/8]>>(r.left%8)&1)
	}
	return v
}

// edited is a successor made from pred by random edits of every kind a
// re-tuned set may show: changed bytes, runs inserted and deleted, runs
// moved from elsewhere in pred, repeats of the successor's own bytes.
func edited(rng *rand.Rand, pred []byte, edits int) []byte {
	var s []byte
	p := 0
	for range edits {
		if len(pred) == 0 {
			break
		}
		keep := rng.IntN(len(pred)/edits + 2)
		s = append(s, pred[p:min(p+keep, len(pred))]...)
		p = min(p+keep, len(pred))
		switch rng.IntN(5) {
		case 0:
			s = append(s, byte(rng.Uint32()))
			p = min(p+1, len(pred))
		case 1:
			for range rng.IntN(100) {
				s = append(s, byte(rng.Uint32()))
			}
		case 2:
			p = min(p+rng.IntN(200), len(pred))
		case 3:
			q := rng.IntN(len(pred))
			s = append(s, pred[q:min(q+rng.IntN(5000), len(pred))]...)
		case 4:
			if len(s) > 0 {
				q := rng.IntN(len(s))
				s = append(s, s[q:min(q+rng.IntN(3000), len(s))]...)
			}
		}
	}
	return append(s, pred[p:]...)
}

// TestRandomPairs: successors of every kind of edit, of predecessors from
// empty to 600 KiB, decode with klauspost's decoder (another
// implementation of RFC 8878) and through Decode, to the successor.
func TestRandomPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := 300
	if testing.Short() || raceEnabled {
		cases = 40
	}
	for k := range cases {
		n := rng.IntN(600 << 10)
		if k < 3 {
			n = k // empty and tiny predecessors
		}
		pred := make([]byte, n)
		for i := range pred {
			pred[i] = byte(rng.IntN(1 + rng.IntN(256))) // some runs compress, some not
		}
		succ := edited(rng, pred, 1+rng.IntN(200))
		if k%7 == 0 {
			succ = succ[:rng.IntN(len(succ)+1)]
		}
		body := encode(t, pred, succ)
		dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, pred), zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.DecodeAll(body[HeaderSize:], nil)
		dec.Close()
		if err != nil || !bytes.Equal(got, succ) {
			t.Fatalf("case %d (%d, %d bytes): klauspost's decoding: %v, equal %v", k, len(pred), len(succ), err, bytes.Equal(got, succ))
		}
		var out bytes.Buffer
		if err := Decode(bytes.NewReader(body), pred, sha256.Sum256(pred), &out); err != nil || !bytes.Equal(out.Bytes(), succ) {
			t.Fatalf("case %d: Decode: %v", k, err)
		}
	}
}

// TestMatchesInWindow: every match the coder makes reaches no further back
// than the window its frame states, nor before the predecessor's start,
// when the successor's bytes lie further back than that in a predecessor
// of 12 MiB (window 15 MiB): the successor is 5 MiB of new bytes, then the
// predecessor's first 2 MiB, 17 MiB back, then its bytes from 4 MiB + 1 on,
// 15 MiB - 1 back, the window's edge.
func TestMatchesInWindow(t *testing.T) {
	pred, _ := changedPair(12<<20, 0, false, 9)
	fresh, _ := changedPair(5<<20, 0, false, 10)
	succ := append(append(fresh, pred[:2<<20]...), pred[4<<20+1:8<<20]...)
	c := newCoder(pred)
	c.succ = succ
	d := len(pred)
	far, near := 0, 0
	for pos := 0; pos < len(succ); pos += blockMax {
		end := min(pos+blockMax, len(succ))
		rep := c.rep
		c.rep = c.block(pos, end, c.rep)
		i := pos
		for _, s := range c.seqs {
			i += int(s.ll)
			// RFC 8878 §3.1.2.5, as a decoder applies it.
			var dist int
			switch v := int(s.ofv); {
			case v > 3:
				dist = v - 3
				rep = [3]int{dist, rep[0], rep[1]}
			default:
				k := v - 1
				if s.ll == 0 {
					k++
				}
				if k == 3 {
					t.Fatal("the coder used rep[0] - 1")
				}
				dist = rep[k]
				switch k {
				case 1:
					rep = [3]int{rep[1], rep[0], rep[2]}
				case 2:
					rep = [3]int{rep[2], rep[0], rep[1]}
				}
			}
			if dist > c.window || dist > d+i || dist <= 0 {
				t.Fatalf("a match at %d reaches %d back: the window is %d", i, dist, c.window)
			}
			if i >= 5<<20 && i < 7<<20 {
				far += int(s.ml)
			}
			if i >= 7<<20 {
				near += int(s.ml)
			}
			i += int(s.ml)
		}
	}
	if far > 64 || near < 4<<20-4<<10 {
		t.Errorf("%d bytes matched where the source is out of the window, %d where it is in", far, near)
	}
}

// TestPatchFromSize holds the bodies to the project's goal: at most 1.5×
// what `zstd -3 --patch-from` makes, for 0.1 % and 5 % of bytes changed
// (1 MiB and 12 MiB predecessors; docs/bench/dcz.md has 64 and 120), and
// stock zstd decodes each. The zstd CLI is required (scripts/setup.sh
// installs it).
func TestPatchFromSize(t *testing.T) {
	sizes := []int{1 << 20, 12 << 20}
	if testing.Short() {
		sizes = sizes[:1]
	}
	dir := t.TempDir()
	for _, n := range sizes {
		for _, perMille := range []int{1, 50} {
			pred, succ := changedPair(n, perMille, true, uint64(n+perMille))
			body := encode(t, pred, succ)
			pf, sf, zf := filepath.Join(dir, "pred"), filepath.Join(dir, "succ"), filepath.Join(dir, "succ.zst")
			os.WriteFile(pf, pred, 0o644)
			os.WriteFile(sf, succ, 0o644)
			if o, err := exec.Command("zstd", "-q", "-f", "-3", "--patch-from="+pf, sf, "-o", zf).CombinedOutput(); err != nil {
				t.Fatalf("zstd: %v: %s", err, o)
			}
			st, err := os.Stat(zf)
			if err != nil {
				t.Fatal(err)
			}
			peer := st.Size() + HeaderSize
			if 2*int64(len(body)) > 3*peer {
				t.Errorf("%d bytes, %d‰ changed: a %d-byte body, past 1.5× zstd's %d", n, perMille, len(body), peer)
			}
			stockDecodes(t, pred, body, succ)
		}
	}
}

// stockDecodes checks that the zstd CLI decodes the frame after the
// header against pred to succ.
func stockDecodes(t *testing.T, pred, body, succ []byte) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pred"), pred, 0o644)
	os.WriteFile(filepath.Join(dir, "frame"), body[HeaderSize:], 0o644)
	cmd := exec.Command("zstd", "-q", "-d", "--patch-from="+filepath.Join(dir, "pred"), "-o", filepath.Join(dir, "out"), filepath.Join(dir, "frame"))
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zstd: %v: %s", err, o)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out")); !bytes.Equal(got, succ) {
		t.Error("stock zstd's decoding is not the successor")
	}
}

// TestDescription reads the table descriptions description writes as RFC
// 8878 §4.1.1 has a decoder read them, for distributions normalize makes
// of random counts (some codes unseen, in runs), and checks each sums to
// its table's size with every seen code given a cell.
func TestDescription(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		counts := make([]int, 1+rng.IntN(53))
		total, seen := 0, 0
		for i := range counts {
			if rng.IntN(3) > 0 || i == len(counts)-1 {
				counts[i] = rng.IntN([]int{2, 50, 5000}[k%3]) + 1
				total += counts[i]
				seen++
			}
		}
		log := max(5, uint(bits.Len(uint(seen)))+1) + uint(rng.IntN(3))
		n := normalize(counts, total, log)
		sum := 0
		for s, c := range n.counts {
			if (c > 0) != (counts[s] > 0) {
				t.Fatalf("code %d seen %d times has %d cells", s, counts[s], c)
			}
			sum += int(c)
		}
		if sum != 1<<log || len(n.counts) != len(counts) {
			t.Fatalf("%d cells over %d codes, want %d over %d", sum, len(n.counts), 1<<log, len(counts))
		}
		desc := n.description(nil)
		r := &fwdReader{b: desc}
		got := readDescription(r)
		if got.log != n.log || !slices.Equal(got.counts, n.counts) {
			t.Fatalf("described %v (log %d), read back %v (log %d)", n.counts, n.log, got.counts, got.log)
		}
		if (r.pos+7)/8 != len(desc) {
			t.Fatalf("the description is %d bytes, the reader took %d bits", len(desc), r.pos)
		}
	}
}

// readDescription is RFC 8878 §4.1.1's reading of a table description.
func readDescription(r *fwdReader) fseNorm {
	n := fseNorm{log: uint(r.read(4)) + 5}
	remaining, threshold, nb := 1<<n.log+1, 1<<n.log, n.log+1
	for remaining > 1 {
		most := 2*threshold - 1 - remaining
		v := r.read(nb - 1)
		if v >= most {
			v += r.read(1) << (nb - 1)
			if v >= threshold {
				v -= most
			}
		}
		c := v - 1
		remaining -= max(c, -c)
		n.counts = append(n.counts, int16(c))
		if c == 0 {
			for {
				f := r.read(2)
				for range f {
					n.counts = append(n.counts, 0)
				}
				if f != 3 {
					break
				}
			}
		}
		for remaining < threshold {
			nb--
			threshold >>= 1
		}
	}
	return n
}

// fwdReader reads bits least significant first, forward.
type fwdReader struct {
	b   []byte
	pos int
}

func (r *fwdReader) read(n uint) int {
	v := 0
	for i := range n {
		v |= int(r.b[r.pos/8]>>(r.pos%8)&1) << i
		r.pos++
	}
	return v
}

// TestLongSuccessor: a successor five windows long (40 MiB against a 1 MiB
// predecessor, window 8 MiB) is held to the window and its slack while it
// is coded, and still decodes, its runs repeated from within the window
// found and those from further back not reached.
func TestLongSuccessor(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pred, _ := changedPair(1<<20, 0, false, 14)
	var succ []byte
	for len(succ) < 40<<20 {
		switch k := rng.IntN(4); {
		case k == 0 || len(succ) < 1<<20: // new bytes
			fresh, _ := changedPair(1<<20, 0, false, rng.Uint64())
			succ = append(succ, fresh...)
		case k == 1: // a run from 1 to 7 MiB back, in the window
			q := len(succ) - (1+rng.IntN(7))<<20
			succ = append(succ, succ[max(q, 0):max(q, 0)+1<<20]...)
		case k == 2: // a run from 9 MiB or more back, past it
			if len(succ) > 10<<20 {
				q := rng.IntN(len(succ) - 9<<20 - 1<<20)
				succ = append(succ, succ[q:q+1<<20]...)
			}
		default: // the predecessor, changed
			_, s := changedPair(1<<20, 5, false, 14)
			succ = append(succ, s...)
		}
	}
	c := newCoder(pred)
	var body bytes.Buffer
	if err := c.frame(&body, bytes.NewReader(succ)); err != nil {
		t.Fatal(err)
	}
	if held, most := cap(c.succ), c.keep+4*blockMax; held > most {
		t.Errorf("the coder held %d bytes of the successor, past the window, its slack and two blocks: %d", held, most)
	}
	if c.drop == 0 {
		t.Error("nothing of the successor was let go")
	}
	if body.Len() > len(succ)*3/4 {
		t.Errorf("a %d-byte body of a %d-byte successor: the runs in the window were not found", body.Len(), len(succ))
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, pred), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := dec.DecodeAll(body.Bytes(), nil)
	if err != nil || !bytes.Equal(got, succ) {
		t.Fatalf("klauspost's decoding: %v, equal %v", err, bytes.Equal(got, succ))
	}
	withHeader := append(append(bytes.Clone(Magic[:]), make([]byte, 32)...), body.Bytes()...)
	sum := sha256.Sum256(pred)
	copy(withHeader[8:], sum[:])
	stockDecodes(t, pred, withHeader, succ)
}
