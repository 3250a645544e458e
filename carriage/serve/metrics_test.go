package serve

import (
	"bytes"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
)

// The metrics count what was served, and the access log has a line per
// response: two identity GETs of 5000 bytes, a dcz GET made and one from
// the cache, a 404, a 403 and a 405.
func TestMetricsAndAccessLog(t *testing.T) {
	s := store.Store(t.TempDir())
	_, _, k, hdr := pair(t, s, 100000, 40)
	plain := put(t, s, pattern(5000, 41))
	file := pattern(300, 42)
	kFile := put(t, s, file)
	put(t, s, listing(t, map[string][]byte{"a.bin": file, carriage.UsagePath: statement(false)}))
	var logged bytes.Buffer
	srv := NewServer(Config{Store: s, AccessLog: &logged})
	root := startHandler(t, srv)
	get(t, root+plain, nil)
	get(t, root+plain, nil)
	_, coded := get(t, root+k, hdr)
	get(t, root+k, hdr)
	get(t, root+hexOf([32]byte{}), nil)
	get(t, root+kFile, nil)
	resp, _ := get(t, root+plain, map[string]string{"Range": "bytes=0-9"})
	if resp.StatusCode != 206 {
		t.Fatal(resp.Status)
	}
	rec := httptest.NewRecorder()
	srv.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	for _, want := range []string{
		`waiops_serve_requests_total{method="GET",status="200"} 4`,
		`waiops_serve_requests_total{method="GET",status="206"} 1`,
		`waiops_serve_requests_total{method="GET",status="404"} 1`,
		`waiops_serve_requests_total{method="GET",status="403"} 1`,
		`waiops_serve_body_bytes_total{coding="identity"} 10010`,
		`waiops_serve_body_bytes_total{coding="dcz"} ` + itoa(2*len(coded)),
		`waiops_serve_codings_total{outcome="made"} 1`,
		`waiops_serve_coding_cache_hits_total 1`,
		`waiops_serve_refusals_total{reason="not_held"} 1`,
		`waiops_serve_refusals_total{reason="withheld"} 1`,
		`waiops_serve_coding_cache_bytes ` + itoa(len(coded)),
		"process_resident_memory_bytes ",
		"process_open_fds ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	line := regexp.MustCompile(`^127\.0\.0\.1:\d+ GET /\.well-known/wai-sets/[0-9a-f]{64} (\d{3}) (\d+) (identity|dcz|-) \S+$`)
	var statuses []string
	for _, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("access log line %q", l)
		}
		statuses = append(statuses, m[1]+" "+m[3])
	}
	want := "200 identity,200 identity,200 dcz,200 dcz,404 -,403 -,206 identity"
	if got := strings.Join(statuses, ","); got != want {
		t.Errorf("access log %s, want %s", got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
