package serve

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/waiops/waiops/carriage/store"
)

// RFC 9110 §14 over a set of 1200 bytes, each case a
// rule of its own: status, Content-Range, body.
func TestServeRanges(t *testing.T) {
	s := store.Store(t.TempDir())
	b := pattern(1200, 20)
	k := put(t, s, b)
	root := start(t, s, false)
	whole := b
	for _, c := range []struct {
		name, method, rng string
		status            int
		contentRange      string
		body              []byte
	}{
		{"a range", "GET", "bytes=100-199", 206, "bytes 100-199/1200", b[100:200]},
		{"§14.1: unit names are case-insensitive", "GET", "Bytes=0-9", 206, "bytes 0-9/1200", b[:10]},
		{"§14.1.2: a last-pos past the end is the end", "GET", "bytes=1190-5000", 206, "bytes 1190-1199/1200", b[1190:]},
		{"§14.1.2: a suffix", "GET", "bytes=-10", 206, "bytes 1190-1199/1200", b[1190:]},
		{"§14.1.2: a suffix longer than the set is the set", "GET", "bytes=-5000", 206, "bytes 0-1199/1200", whole},
		{"§14.2: HEAD ignores Range", "HEAD", "bytes=0-9", 200, "", nil},
		{"§14.2: an unknown unit is ignored", "GET", "items=0-9", 200, "", whole},
		{"§14.1.1: bytes=-0 is unsatisfiable", "GET", "bytes=-0", 416, "bytes */1200", nil},
		{"§14.1.1: a first-pos at the length is unsatisfiable", "GET", "bytes=1200-1300", 416, "bytes */1200", nil},
		{"§14.1.1: the unsatisfiable range of a set is dropped", "GET", "bytes=-0,5-9", 206, "bytes 5-9/1200", b[5:10]},
		{"§14.2: an invalid specifier may be rejected", "GET", "bytes=9-5", 416, "", nil},
	} {
		req, _ := http.NewRequest(c.method, root+k, nil)
		req.Header.Set("Range", c.rng)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Content-Range") != c.contentRange || (c.body != nil && !bytes.Equal(body, c.body)) {
			t.Errorf("%s (%s %s): %s, Content-Range %q, %d bytes; want %d, %q, %d bytes",
				c.name, c.method, c.rng, resp.Status, resp.Header.Get("Content-Range"), len(body), c.status, c.contentRange, len(c.body))
		}
		if c.method == "HEAD" && resp.Header.Get("Content-Length") != strconv.Itoa(len(b)) {
			t.Errorf("%s: Content-Length %q, want the whole set's", c.name, resp.Header.Get("Content-Length"))
		}
		// §14.3: the set's responses say byte ranges are served.
		if resp.Header.Get("Accept-Ranges") != "bytes" {
			t.Errorf("%s: Accept-Ranges %q", c.name, resp.Header.Get("Accept-Ranges"))
		}
	}
	// Without a Range too.
	resp, _ := get(t, root+k, nil)
	if resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("whole: Accept-Ranges %q", resp.Header.Get("Accept-Ranges"))
	}
}
