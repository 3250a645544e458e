// Command load drives `waiops prior serve` on loopback with the abuse of
// an operator fears (slow clients, concurrent dcz requests against a cold pair, idle
// keep-alives, clients that never read, many sequential requests, a server
// killed mid-response) and prints, for each scenario, the server's
// resident memory and open descriptors before, at peak and after, and the
// requests' latency percentiles. It exits 1 when a response is wrong, when
// resident memory passes the bound the server was configured with, or when
// descriptors do not come back down. Every wait is bounded; it stops
// itself.
//
// scripts/carriage-load.sh builds and runs it (Linux: it reads /proc). It
// is a test program, not part of waiops.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
)

var (
	bin         = flag.String("waiops", "", "the waiops binary to run as the server")
	mib         = flag.Int("mib", 100, "the predecessor's and successor's size in MiB")
	codingBytes = flag.Int64("coding-bytes", 1<<30, "the server's --coding-bytes")
	cacheBytes  = flag.Int64("cache-bytes", 256<<20, "the server's --cache-bytes")
	slow        = flag.Int("slow", 200, "slow clients")
	dczN        = flag.String("dcz", "20,500", "counts of concurrent dcz requests, each against a cold server")
	idle        = flag.Int("idle", 300, "idle keep-alive connections")
	stall       = flag.Int("stall", 50, "clients that never read")
	seq         = flag.Int("seq", 10000, "sequential requests")
)

// The server's connection bounds in this run, short so the run is.
var (
	writeIdle   = flag.Duration("write-idle", 2*time.Second, "the server's --write-idle")
	idleTimeout = flag.Duration("idle-timeout", 3*time.Second, "the server's --idle-timeout")
	slowBytes   = flag.Int64("slow-bytes", 8<<20, "the bytes each slow client reads, at 1 MiB/s")
)

// slack is resident memory allowed past the configured bounds: the
// runtime, connection buffers and goroutines.
const slack = 128 << 20

var failed bool

func fail(format string, args ...any) {
	failed = true
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
}

func main() {
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "load: -waiops is required")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "carriage-load-")
	if err != nil {
		abort(err)
	}
	defer os.RemoveAll(dir)
	s := newSets(filepath.Join(dir, "store"))
	fmt.Printf("pair %d MiB; server --coding-bytes %d MiB --cache-bytes %d MiB --idle-timeout %v, --write-idle 30 s (%v for never read)\n",
		*mib, *codingBytes>>20, *cacheBytes>>20, *idleTimeout, *writeIdle)
	fmt.Printf("%-28s %6s %9s %9s %9s %9s  %-22s %s\n", "scenario", "reqs", "p50", "p90", "p99", "max", "RSS MiB before/peak/after", "fds before/peak/after")

	srv := startServer(s.dir, 30*time.Second)
	run(srv, fmt.Sprintf("%d sequential", *seq), func() []time.Duration { return sequential(srv, s, *seq) }, 0)
	run(srv, fmt.Sprintf("%d slow clients", *slow), func() []time.Duration { return slowClients(srv, s, *slow) }, 0)
	run(srv, fmt.Sprintf("%d idle keep-alives", *idle), func() []time.Duration { return idleConns(srv, s, *idle) }, *idleTimeout+1500*time.Millisecond)
	srv.stop()
	srv = startServer(s.dir, *writeIdle)
	run(srv, fmt.Sprintf("%d never read", *stall), func() []time.Duration { return neverRead(srv, s, *stall) }, *writeIdle+2*time.Second)
	srv.stop()
	for _, f := range strings.Split(*dczN, ",") {
		var n int
		fmt.Sscan(f, &n)
		cold := startServer(s.dir, 30*time.Second)
		run(cold, fmt.Sprintf("%d dcz, cold", n), func() []time.Duration { return dczClients(cold, s, n) }, 0)
		if made := cold.metric(`waiops_serve_codings_total{outcome="made"}`); made != "1" {
			fail("%d dcz requests: %s codings made, want 1", n, made)
		}
		cold.stop()
	}
	killed(s, dir)
	if failed {
		os.Exit(1)
	}
	fmt.Println("ok")
}

// run runs one scenario against srv, waits settle for the server to close
// what the scenario left open, and prints and checks its figures.
func run(srv *server, name string, f func() []time.Duration, settle time.Duration) {
	before := read(srv.pid)
	smp := sample(srv.pid)
	lat := f()
	time.Sleep(settle + 200*time.Millisecond) // and for the server to see the client's closes
	after := read(srv.pid)
	peak := smp.end()
	slices.Sort(lat)
	pct := func(p int) string {
		if len(lat) == 0 {
			return "-"
		}
		return lat[min(len(lat)-1, len(lat)*p/100)].Round(10 * time.Microsecond).String()
	}
	fmt.Printf("%-28s %6d %9s %9s %9s %9s  %6d /%6d /%6d     %4d /%4d /%4d\n", name, len(lat), pct(50), pct(90), pct(99), pct(100),
		before.rss>>20, peak.rss>>20, after.rss>>20, before.fds, peak.fds, after.fds)
	if bound := srv.base + *codingBytes + *cacheBytes + slack; peak.rss > bound {
		fail("%s: peak RSS %d MiB past the bound %d MiB", name, peak.rss>>20, bound>>20)
	}
	if after.fds > before.fds+4 {
		fail("%s: %d descriptors after, %d before", name, after.fds, before.fds)
	}
}

// sets are the store's resources: a small set, and a predecessor with its
// successor (every 4093rd byte changed, so that dcz has a delta to find).
type sets struct {
	dir               string
	small, pred, succ [32]byte
	predBytes         []byte
	succLen           int
}

func newSets(dir string) *sets {
	os.MkdirAll(dir, 0o755)
	s := &sets{dir: dir}
	put := func(b []byte) [32]byte {
		d := sha256.Sum256(b)
		if err := os.WriteFile(store.Store(dir).Path(d), b, 0o644); err != nil {
			abort(err)
		}
		return d
	}
	s.small = put(pattern(64<<10, 1))
	s.predBytes = pattern(*mib<<20, 2)
	s.pred = put(s.predBytes)
	succ := bytes.Clone(s.predBytes)
	for i := 0; i < len(succ); i += 4093 {
		succ[i]++
	}
	s.succ, s.succLen = put(succ), len(succ)
	return s
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 7
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

// server is a `waiops prior serve` process.
type server struct {
	cmd           *exec.Cmd
	pid           int
	root, metrics string
	base          int64 // resident memory once serving
}

// startServer starts a server over dir; writeIdle is its --write-idle.
// The scenarios of many readers run under the default, 30 s: on a shared
// machine (a load average of 19 on 2 cores) 2 s cut off most of 200
// clients reading 1 MiB/s. The one of clients that never read runs under
// a short one, the -write-idle flag.
func startServer(dir string, writeIdle time.Duration) *server {
	cmd := exec.Command(*bin, "prior", "serve", dir, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--access-log=false", "--write-idle", writeIdle.String(), "--idle-timeout", idleTimeout.String(), "--grace", "5s",
		"--coding-bytes", fmt.Sprint(*codingBytes), "--cache-bytes", fmt.Sprint(*cacheBytes))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		abort(err)
	}
	if err := cmd.Start(); err != nil {
		abort(err)
	}
	s := &server{cmd: cmd, pid: cmd.Process.Pid}
	sc := bufio.NewScanner(out)
	for (s.root == "" || s.metrics == "") && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "serving "); ok {
			s.root = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "metrics "); ok {
			s.metrics = v
		}
	}
	if s.root == "" || s.metrics == "" {
		cmd.Process.Kill()
		abort(errors.New("the server did not say where it serves"))
	}
	go io.Copy(io.Discard, out)
	s.base = read(s.pid).rss
	return s
}

// stop ends the server with SIGTERM, as an operator would, and requires a
// clean exit within its grace.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			fail("the server's exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		fail("the server did not stop within 10 s of SIGTERM")
	}
}

func (s *server) kill() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// metric is the value of the series named exactly so in the server's
// metrics, or "" when there is none.
func (s *server) metric(series string) string {
	resp, err := http.Get(s.metrics)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return v
		}
	}
	return ""
}

func (s *server) url(d [32]byte) string { return s.root + hex.EncodeToString(d[:]) }

func client(conns int) *http.Client {
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
}

// timed GETs u with hdr, reads the body through read, and returns the
// response's duration; a status other than want fails the run.
func timed(c *http.Client, u string, hdr http.Header, want int, read func(io.Reader) error) time.Duration {
	began := time.Now()
	req, _ := http.NewRequest("GET", u, nil)
	maps(req.Header, hdr)
	resp, err := c.Do(req)
	if err != nil {
		fail("GET: %v", err)
		return time.Since(began)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		fail("GET: %s, want %d", resp.Status, want)
	}
	if err := read(resp.Body); err != nil {
		fail("GET's body: %v", err)
	}
	return time.Since(began)
}

func maps(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

func discard(n int64) func(io.Reader) error {
	return func(r io.Reader) error {
		got, err := io.Copy(io.Discard, r)
		if err == nil && got != n {
			err = fmt.Errorf("%d bytes, want %d", got, n)
		}
		return err
	}
}

func sequential(srv *server, s *sets, n int) []time.Duration {
	c := client(1)
	lat := make([]time.Duration, n)
	for i := range lat {
		lat[i] = timed(c, srv.url(s.small), nil, 200, discard(64<<10))
	}
	c.CloseIdleConnections()
	return lat
}

// slowClients each read up to slowBytes of the successor by range at
// 1 MiB/s.
func slowClients(srv *server, s *sets, n int) []time.Duration {
	size := min(*slowBytes, int64(s.succLen))
	hdr := http.Header{"Range": {fmt.Sprintf("bytes=0-%d", size-1)}}
	c := client(n)
	defer c.CloseIdleConnections()
	return parallel(n, func(int) time.Duration {
		return timed(c, srv.url(s.succ), hdr, 206, func(r io.Reader) error {
			var got int64
			for {
				m, err := io.CopyN(io.Discard, r, 64<<10)
				got += m
				if err != nil {
					if err == io.EOF && got == size {
						return nil
					}
					return fmt.Errorf("%d of %d bytes: %v", got, size, err)
				}
				time.Sleep(62 * time.Millisecond)
			}
		})
	})
}

// idleConns each make one request and then hold the connection open,
// never asking again; the server closes them after its idle timeout.
func idleConns(srv *server, s *sets, n int) []time.Duration {
	u, _ := url.Parse(srv.url(s.small))
	conns := make([]net.Conn, n)
	lat := parallel(n, func(i int) time.Duration {
		began := time.Now()
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			fail("dial: %v", err)
			return 0
		}
		conns[i] = c
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.Path, u.Host)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			fail("idle: %v", err)
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		return time.Since(began)
	})
	time.Sleep(*idleTimeout + time.Second)
	closed := 0
	for _, c := range conns {
		if c == nil {
			continue
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
		c.Close()
	}
	if closed != n {
		fail("idle keep-alives: the server closed %d of %d", closed, n)
	}
	return lat
}

// neverRead clients each ask for the whole successor and read nothing;
// the server closes them once a write has waited its write-idle.
func neverRead(srv *server, s *sets, n int) []time.Duration {
	u, _ := url.Parse(srv.url(s.succ))
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			fail("dial: %v", err)
			continue
		}
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.Path, u.Host)
		conns[i] = c
	}
	time.Sleep(*writeIdle + 2*time.Second)
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	return nil
}

// dczClients ask at once for the successor coded against the predecessor;
// every answer must be the same dcz body (by CRC-32C, cheap enough for 500
// bodies on a shared machine), and the first decodes to the successor.
func dczClients(srv *server, s *sets, n int) []time.Duration {
	hdr := http.Header{"Accept-Encoding": {"dcz, identity"}, "Available-Dictionary": {":" + base64.StdEncoding.EncodeToString(s.pred[:]) + ":"}}
	c := client(n)
	defer c.CloseIdleConnections()
	sums := make([]uint32, n) // CRC-32C of each body: they must all be equal
	var first []byte
	var once sync.Once
	lat := parallel(n, func(i int) time.Duration {
		return timed(c, srv.url(s.succ), hdr, 200, func(r io.Reader) error {
			h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
			var keep bytes.Buffer
			var w io.Writer = h
			if i == 0 {
				w = io.MultiWriter(h, &keep)
			}
			if _, err := io.Copy(w, r); err != nil {
				return err
			}
			sums[i] = h.Sum32()
			if i == 0 {
				once.Do(func() { first = keep.Bytes() })
			}
			return nil
		})
	})
	var out bytes.Buffer
	if err := dcz.Decode(bytes.NewReader(first), s.predBytes, s.pred, &out); err != nil || sha256.Sum256(out.Bytes()) != s.succ {
		fail("%d dcz: the body does not decode to the successor: %v", n, err)
	}
	for i := range sums {
		if sums[i] != sums[0] {
			fail("%d dcz: answer %d differs from the first", n, i)
			break
		}
	}
	fmt.Printf("%-28s coded body %d bytes of %d\n", "", len(first), s.succLen)
	return lat
}

// parallel runs f for 0 … n-1 at once.
func parallel(n int, f func(i int) time.Duration) []time.Duration {
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range lat {
		wg.Go(func() { lat[i] = f(i) })
	}
	wg.Wait()
	return lat
}

// killed: a server killed mid-response. A tree fetch from two servers
// finishes from the one left; a plain fetch from the killed one (through
// holdBack, so that the kill is mid-response) fails, leaves no temporary
// file, and succeeds once the server is back.
func killed(s *sets, dir string) {
	h, err := tree.Write(bytes.NewReader(s.predBytes), 10, "")
	if err != nil {
		abort(err)
	}
	a, b := startServer(s.dir, 30*time.Second), startServer(s.dir, 30*time.Second)
	sink := store.Store(filepath.Join(dir, "sink-tree"))
	os.MkdirAll(string(sink), 0o755)
	began := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- (&fetch.Fetcher{Store: sink, Timeout: 5 * time.Second}).FetchTree(context.Background(), h, []string{a.root, b.root})
	}()
	waitTemp(sink)
	a.kill()
	if err := <-done; err != nil || !sink.Holds(s.pred) {
		fail("a tree fetch with one of two servers killed: %v", err)
	}
	fmt.Printf("%-28s held from the other server in %v\n", "killed mid-response, tree", time.Since(began).Round(time.Millisecond))
	b.stop()

	c := startServer(s.dir, 30*time.Second)
	sink = store.Store(filepath.Join(dir, "sink-plain"))
	os.MkdirAll(string(sink), 0o755)
	root, cut := holdBack(c.root, 1<<20)
	go func() {
		done <- (&fetch.Fetcher{Store: sink, Timeout: 5 * time.Second}).Fetch(context.Background(), s.succ, []string{root}, nil)
	}()
	waitTemp(sink)
	c.kill()
	cut()
	err = <-done
	ents, _ := os.ReadDir(string(sink))
	if err == nil || len(ents) != 0 {
		fail("a fetch from a server killed mid-response: %v, %d files left", err, len(ents))
	}
	c = startServer(s.dir, 30*time.Second)
	if err := (&fetch.Fetcher{Store: sink, Timeout: 5 * time.Second}).Fetch(context.Background(), s.succ, []string{c.root}, nil); err != nil || !sink.Holds(s.succ) {
		fail("the fetch again once the server is back: %v", err)
	}
	fmt.Printf("%-28s refused, nothing left; held once the server was back\n", "killed mid-response, plain")
	c.stop()
}

// holdBack forwards each connection to the server at root through a proxy on
// loopback that passes the first n bytes of the response and then holds
// the rest back, so that a kill lands mid-response whatever the kernel's
// socket buffers already hold (on loopback a small set is all in them
// before the server dies); cut closes every connection it forwards, as
// the killed server's end. It returns root with the proxy's address.
func holdBack(root string, n int64) (proxied string, cut func()) {
	u, err := url.Parse(root)
	if err != nil {
		abort(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		abort(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", u.Host)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			go io.Copy(up, c)
			go io.CopyN(c, up, n)
		}
	}()
	u.Host = ln.Addr().String()
	return u.String(), func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}

// waitTemp waits, up to 10 s, for a fetch's temporary file in sink to hold
// a byte.
func waitTemp(sink store.Store) {
	for range 10000 {
		ents, _ := os.ReadDir(string(sink))
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".") && fi.Size() > 0 {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// abort ends the run on a failure to set a scenario up (a temporary
// directory, the server's start): exit 1 with the reason, as a failed
// scenario does.
func abort(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}
