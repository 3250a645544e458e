package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
)

// benchSet is 32 MiB in pieces of 256 KiB (g 8), served from two holders.
func benchSet(b *testing.B) ([]byte, *tree.Head, []string) {
	s := set(32<<20, 31)
	h, err := tree.Write(bytes.NewReader(s), 8, "")
	if err != nil {
		b.Fatal(err)
	}
	return s, h, nil
}

// BenchmarkFetchTree fetches the set by range from two loopback servers;
// BenchmarkFetchWhole fetches it whole from one. Their ratio is the cost of
// ranges and per-piece checks over a plain fetch.
func BenchmarkFetchTree(b *testing.B) {
	s, h, _ := benchSet(b)
	ra, rb := benchServer(b, s), benchServer(b, s)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		f := &Fetcher{Store: store.Store(b.TempDir())}
		if err := f.FetchTree(context.Background(), h, []string{ra, rb}); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(string(f.Store))
	}
}

func BenchmarkFetchWhole(b *testing.B) {
	s, _, _ := benchSet(b)
	ra := benchServer(b, s)
	d := sha256.Sum256(s)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		f := &Fetcher{Store: store.Store(b.TempDir())}
		if err := f.Fetch(context.Background(), d, []string{ra}, nil); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(string(f.Store))
	}
}

func benchServer(b *testing.B, s []byte) string {
	srv := httptest.NewServer(newHolder(s))
	b.Cleanup(srv.Close)
	return srv.URL + WellKnown
}
