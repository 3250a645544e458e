package prior

import (
	"encoding/binary"
	"errors"
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
	s := rng(1)
	for trial := range 200 {
		n := 1 + int(s.next()%300)
		vals := make([]int64, n)
		for i := range vals {
			bitsN := s.next() % 32
			v := int64(s.next() & (1<<bitsN - 1))
			if v > 1<<31-1 {
				v = 1<<31 - 1
			}
			if s.next()%2 == 0 {
				v = -v
			}
			if s.next()%3 == 0 {
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
