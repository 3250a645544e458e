package prior

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/refusal"
)

func roundTrip(t *testing.T, vals []int64, g int) []byte {
	t.Helper()
	p, err := encodeInts(vals, g)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	got, err := decodeInts(p, g, uint64(len(vals)))
	if err != nil {
		t.Fatalf("decode %v (g %d): %v", vals[:min(len(vals), 8)], g, err)
	}
	for i, v := range vals {
		if w := int64(int32(binary.LittleEndian.Uint32(got[4*i:]))); w != v {
			t.Fatalf("element %d: got %d want %d", i, w, v)
		}
	}
	return p
}

func TestCABACRoundTripEdges(t *testing.T) {
	const m = 1<<31 - 1
	edges := []int64{0, 1, -1, 2, -2, 11, 12, 13, -12, -13, 127, -128, 32767, -32768, 1 << 30, -(1 << 30), m, -m, m - 1, -(m - 1), 0, m, m, -m, -m, 0, 0}
	for _, g := range []int{1, 2, 11, 256} {
		roundTrip(t, edges, g)
		for _, v := range edges {
			roundTrip(t, []int64{v}, g)
		}
	}
	roundTrip(t, []int64{0}, 11)
	roundTrip(t, make([]int64, 5000), 11)
}

func TestCABACRoundTripRandom(t *testing.T) {
	s := rand.New(rand.NewPCG(1, 0))
	for trial := range 200 {
		n := 1 + int(s.Uint64()%300)
		vals := make([]int64, n)
		for i := range vals {
			bitsN := s.Uint64() % 32
			v := int64(s.Uint64() & (1<<bitsN - 1))
			if v > 1<<31-1 {
				v = 1<<31 - 1
			}
			if s.Uint64()%2 == 0 {
				v = -v
			}
			if s.Uint64()%3 == 0 {
				v = 0
			}
			vals[i] = v
		}
		roundTrip(t, vals, []int{1, 3, 11, 40}[trial%4])
	}
}

func TestCABACRefusals(t *testing.T) {
	p := roundTrip(t, []int64{5, -7, 0, 300}, 11)
	for _, tc := range []struct {
		name    string
		payload []byte
		code    refusal.Code
	}{
		{"one byte", p[:1], NNCTruncated},
		{"cut", p[:len(p)-1], NNCTruncated},
		{"extra byte", append(append([]byte{}, p...), 0), NNCMalformed},
		{"opens with 0xFF", append([]byte{0xFF}, p[1:]...), NNCMalformed},
	} {
		_, err := decodeInts(tc.payload, 11, 4)
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != tc.code {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.code)
		}
	}
}

func TestContextByHand(t *testing.T) {
	var c context
	c.init(0) // [1, 4, 0, 0]: s0 0, s01 0, h0 5, h1 4
	if c.mps() != 1 {
		t.Errorf("init 0: mps %d, want 1 (s01 = 0)", c.mps())
	}
	// T[|0 >> 7| + (510 & 0xE0)] = T[224] = row 7, column 0 = 228.
	if r, err := c.lps(510); r != 228 || err != nil {
		t.Errorf("lps(510) = %d, %v; want 228", r, err)
	}
	// A 0: σ = −1, s1 = 0; s0 += −(C[16] >> 5) = −2; s1 += −(C[16] >> 4)
	// = −4; s01 = −4 + 16·(−2) = −36, so the mps becomes 0.
	if err := c.update(0); err != nil || c.s0 != -2 || c.s01 != -36 || c.mps() != 0 {
		t.Errorf("after a 0: s0 %d s01 %d, want -2 -36", c.s0, c.s01)
	}
	c.init(2) // [1, 4, 3039, 95]
	// A 1: s1 = 3039 − 16·95 = 1519; s0 += C[16 + 95>>3 = 27] >> 5 = 2 →
	// 97; s1 += C[16 + 1519>>7 = 27] >> 4 = 4 → 1523; s01 = 1523 + 1552.
	if err := c.update(1); err != nil || c.s0 != 97 || c.s01 != 3075 {
		t.Errorf("after a 1: s0 %d s01 %d, want 97 3075", c.s0, c.s01)
	}
	// T[|3075 >> 7| + (300 & 0xE0)] = T[24 + 32]: row 1, column 24 = 6.
	if r, err := c.lps(300); r != 6 || err != nil {
		t.Errorf("lps(300) = %d, %v; want 6", r, err)
	}
	// s0 = −128 and a 0: σ·s0 >> 3 = 16, C[32] is outside table A.2.
	c = context{s0: -128, s01: -2048, h0: 4, h1: 4}
	var r *refusal.Error
	if err := c.update(0); !errors.As(err, &r) || r.Code != NNCMalformed {
		t.Errorf("C[32]: %v", err)
	}
	// |s01 >> 7| = 256 with a range of 480 or more: T[480] is outside A.1.
	c = context{s01: -32768}
	if _, err := c.lps(500); !errors.As(err, &r) || r.Code != NNCMalformed {
		t.Errorf("T[480]: %v", err)
	}
}
