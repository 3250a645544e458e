package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
)

// The whole-set GET through the Server (per-write deadlines over
// sendfile, the index's checks, metrics) against its peer in the same run:
// net/http's ServeContent over the same file with nothing around it.
func benchWhole(b *testing.B, peer bool) {
	s := store.Store(b.TempDir())
	set := pattern(64<<20, 50)
	k := put(&testing.T{}, s, set)
	var h http.Handler = New(s, false)
	if peer {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := os.Open(s.Path([32]byte(mustHex(k))))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			defer f.Close()
			http.ServeContent(w, r, "", time.Time{}, f)
		})
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	b.SetBytes(int64(len(set)))
	for b.Loop() {
		resp, err := c.Get(srv.URL + fetch.WellKnown + k)
		if err != nil {
			b.Fatal(err)
		}
		if n, _ := io.Copy(io.Discard, resp.Body); n != int64(len(set)) {
			b.Fatalf("%d bytes", n)
		}
		resp.Body.Close()
	}
}

func mustHex(k string) []byte {
	d, ok := digestName(k)
	if !ok {
		panic(k)
	}
	return d[:]
}

func BenchmarkServeWhole(b *testing.B)                 { benchWhole(b, false) }
func BenchmarkServeWholePeerServeContent(b *testing.B) { benchWhole(b, true) }
