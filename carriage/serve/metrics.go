package serve

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are a Server's Prometheus series, in a registry of its own (so
// two Servers in one process do not collide), with the Go runtime's and
// the process's (resident memory, open file descriptors) beside them.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec // by method and status
	bytes     *prometheus.CounterVec // body bytes sent, by coding
	codings   *prometheus.CounterVec // by outcome: made, no_gain, busy, failed
	cacheHits prometheus.Counter
	refusals  *prometheus.CounterVec // by reason: not_held, withheld, method
}

func newMetrics(c *coder) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "waiops_serve_requests_total",
			Help: "Requests answered, by method and status."}, []string{"method", "status"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "waiops_serve_body_bytes_total",
			Help: "Body bytes written, by content coding (identity or dcz)."}, []string{"coding"}),
		codings: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "waiops_serve_codings_total",
			Help: "dcz codings asked for and not found in the cache, by outcome: made, no_gain (identity sent), busy (past the codings' bound: identity sent), failed."}, []string{"outcome"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{Name: "waiops_serve_coding_cache_hits_total",
			Help: "dcz responses answered from the cache of coded bodies."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "waiops_serve_refusals_total",
			Help: "Requests refused, by reason: not_held (404), withheld (403, prior-carriage §18.1), method (405)."}, []string{"reason"}),
	}
	m.reg.MustRegister(m.requests, m.bytes, m.codings, m.cacheHits, m.refusals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "waiops_serve_coding_bytes_charged",
			Help: "Memory charged to the codings running now (bounded by the codings' byte bound)."},
			func() float64 { c.mu.Lock(); defer c.mu.Unlock(); return float64(c.charged) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "waiops_serve_coding_cache_bytes",
			Help: "Bytes of coded bodies cached."},
			func() float64 { c.mu.Lock(); defer c.mu.Unlock(); return float64(c.cached) }))
	return m
}

// Metrics is the handler of the Server's metrics in Prometheus's text
// format, to be mounted on an address of its own (`--metrics-addr`).
func (s *Server) Metrics() http.Handler {
	return promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{})
}

// recorder notes a response's status and body bytes for the access log and
// the metrics; it passes ReadFrom on so a file is still sent by sendfile.
type recorder struct {
	http.ResponseWriter
	status int
	n      int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.n += int64(n)
	return n, err
}

func (r *recorder) ReadFrom(src io.Reader) (int64, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := io.Copy(r.ResponseWriter, src)
	r.n += n
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// accessLog writes one line per response: the client's address, method,
// path, status, body bytes, coding and duration.
type accessLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (a *accessLog) line(r *http.Request, rec *recorder, coding string, took time.Duration) {
	if a.w == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(a.w, "%s %s %s %d %d %s %s\n", r.RemoteAddr, r.Method, r.URL.Path, rec.status, rec.n, coding, took.Round(time.Microsecond))
}
