package prior

import (
	"math/rand/v2"
	"testing"
)

// benchValues is 2^16 values of the corpus's kind: mostly small, some wide.
func benchValues() []int64 {
	s := rand.New(rand.NewPCG(3, 0))
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = int64(s.Uint64()%512) - 256
		if i%64 == 0 {
			vals[i] = int64(s.Uint64()%(1<<31)) - 1<<30
		}
	}
	return vals
}

func BenchmarkCABACEncode(b *testing.B) {
	vals := benchValues()
	b.SetBytes(int64(4 * len(vals)))
	for b.Loop() {
		if _, err := encodeInts(vals, writeUnaryLen+1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCABACDecode(b *testing.B) {
	vals := benchValues()
	p, err := encodeInts(vals, writeUnaryLen+1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(4 * len(vals)))
	for b.Loop() {
		if _, err := decodeInts(p, writeUnaryLen+1, uint64(len(vals))); err != nil {
			b.Fatal(err)
		}
	}
}
