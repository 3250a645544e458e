package gen

import (
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

// TestCommittedCorpusChecks recomputes every committed vector (§14.1 "Who
// writes the vectors"): the files must come back byte-identical.
func TestCommittedCorpusChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("recomputes the whole corpus")
	}
	c, err := vectors.Project("..")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	// Every operator has its file, and the §14.2 graphs theirs.
	seen := map[string]bool{}
	for _, f := range c.Files {
		seen[f.Rel] = true
	}
	for _, code := range whg1.Opcodes {
		if !seen[op(code)] {
			t.Errorf("no %s", op(code))
		}
	}
	for _, n := range []string{"phase_form", "state", "load_checks", "run_steps"} {
		if !seen["graphs/"+n+".jsonl"] {
			t.Errorf("no graphs/%s.jsonl", n)
		}
	}
	t.Logf("%s", s)
}

// TestCorpusRegenerates: every part of the committed corpus (Parts) is
// byte-identical to a fresh generation, no file more or less (CI runs
// this).
func TestCorpusRegenerates(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the whole corpus")
	}
	parts, err := CheckParts("..")
	if err != nil {
		t.Fatalf("%v (regenerate with: go run ./cmd/waiops vectors gen --out vectors)", err)
	}
	if len(parts) != len(Parts) {
		t.Fatalf("%d of %d parts checked", len(parts), len(Parts))
	}
}

// TestCheckNamesTheLine: one expectation changed in a copy of a committed
// file fails the check at that line.
func TestCheckNamesTheLine(t *testing.T) {
	b, err := os.ReadFile("../graphs/state.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = strings.Replace(lines[1], `{"data":["6","7","8"]`, `{"data":["6","7","9"]`, 1)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "graphs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "graphs", "state.jsonl"), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := vectors.Project(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(c); err == nil || err.Error() != "graphs/state.jsonl: line 2 differs from its recomputation" {
		t.Fatalf("got %v", err)
	}
}

// TestCompute: outcomes worked by hand from the spec.
func TestCompute(t *testing.T) {
	// add: [1, 2] + [3, −7] = [4, −5]; every range fits i32: both profiles.
	add := one(whg1.OpAdd, nil, []whg1.Tensor{chk(1, -9, 9), chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)
	v := vectors.Vector{ID: "add", Graph: whg1.Encode(add), Decodes: []vectors.Decode{dec(nil, ten(1, 1, 2, 1, 2), ten(1, 1, 2, 3, -7)),
		dec(nil, ten(1, 1, 2, 1, 10), ten(1, 1, 2, 3, -7))}}
	if err := Compute(&v); err != nil {
		t.Fatal(err)
	}
	if v.Load != vectors.LoadOK || !reflect.DeepEqual(v.Profiles, certify.Profiles) ||
		!reflect.DeepEqual(v.Decodes[0].Outputs[0].Data, []int64{4, -5}) || v.Decodes[1].Refuse != "field_range" {
		t.Fatalf("%+v", v)
	}
	// abs over [−2^31, 9]: |−2^31| = 2^31 passes i32 (§7.1), so acc64 only.
	abs := one(whg1.OpAbs, nil, []whg1.Tensor{chk(1, math.MinInt32, 9)}, []whg1.Tensor{der(1)}, 0, 0)
	v = vectors.Vector{ID: "abs", Graph: whg1.Encode(abs), Decodes: []vectors.Decode{dec(nil, ten(1, 1, 2, math.MinInt32, 9))}}
	if err := Compute(&v); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.Profiles, []certify.Profile{certify.Acc64}) || !reflect.DeepEqual(v.Decodes[0].Outputs[0].Data, []int64{1 << 31, 9}) {
		t.Fatalf("%+v", v)
	}
	// A bad magic is refused at load: no decodes, both profiles (§14.1).
	v = vectors.Vector{ID: "bad", Graph: []byte("WHG2"), Decodes: v.Decodes}
	if err := Compute(&v); err != nil {
		t.Fatal(err)
	}
	if v.Load != "model_mismatch" || len(v.Decodes) != 0 || len(v.Profiles) != 2 {
		t.Fatalf("%+v", v)
	}
}

// TestTieValues: t·m lands on k·2^(s−1) and its neighbours, or no vector.
func TestTieValues(t *testing.T) {
	for _, c := range []struct {
		s    uint8
		k, m int64
		want []int64
	}{
		{0, 3, 1, []int64{0, 3}},
		{1, -1, 1, []int64{-2, -1, 0}},                                  // p ∈ {−2, −1, 0}: −1 is the tie of shift 1
		{32, 3, 1 << 30, []int64{5, 6, 7}},                              // 6·2^30 = 3·2^31
		{62, -1, math.MinInt32, []int64{1<<30 - 1, 1 << 30, 1<<30 + 1}}, // −2^61 = 2^30·(−2^31)
		{127, 1, math.MinInt64, []int64{math.MinInt64, math.MinInt64 + 1}},
		{127, -1, math.MinInt64, nil}, // −2^126 needs t = 2^63
		{31, 1, math.MinInt32, nil},   // 2^30 is not a multiple of 2^31
	} {
		if got, _ := tieValues(c.s, c.k, c.m); !reflect.DeepEqual(got, c.want) {
			t.Errorf("tieValues(%d, %d, %d) = %v, want %v", c.s, c.k, c.m, got, c.want)
		}
	}
}

// TestRoundingVectorsIndependently recomputes every committed rescale
// rounding vector with math/big straight from §2's definitions of R_floor,
// R_half_up and R_half_even: out = R(t·m, s).
func TestRoundingVectorsIndependently(t *testing.T) {
	b, err := os.ReadFile("../ops/rescale.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := vectors.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range f.Graph {
		if !strings.HasPrefix(v.ID, "rescale_round_") || v.Load != vectors.LoadOK {
			continue
		}
		g, err := whg1.Parse(v.Graph)
		if err != nil {
			t.Fatal(err)
		}
		rq := g.Ops[0].Params.(*whg1.Rescale).RQ
		m, s := big.NewInt(rq.MultOf(0)), rq.ShiftOf(0)
		d := v.Decodes[0]
		for i, x := range d.Inputs[0].Data {
			p := new(big.Int).Mul(big.NewInt(x), m)
			want := roundBig(p, s, rq.Round)
			if got := d.Outputs[0].Data[i]; !want.IsInt64() || want.Int64() != got {
				t.Errorf("%s element %d: R(%v, %d) = %v, corpus has %d", v.ID, i, p, s, want, got)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d rounding elements checked", n)
	}
}

// roundBig is §2's R_round(p, s); big.Int's Rsh is the floor division by
// 2^s.
func roundBig(p *big.Int, s uint, round whg1.Round) *big.Int {
	if s == 0 {
		return p
	}
	h := new(big.Int).Lsh(big.NewInt(1), s-1)
	switch round {
	case whg1.Floor:
		return new(big.Int).Rsh(p, s)
	case whg1.HalfUp:
		return new(big.Int).Rsh(new(big.Int).Add(p, h), s)
	}
	q := new(big.Int).Rsh(p, s)
	r := new(big.Int).Sub(p, new(big.Int).Lsh(q, s))
	if c := r.Cmp(h); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	return q
}
