package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
)

// serveOn runs h under HTTPServer and Run on a loopback port until the
// returned cancel is called; done yields Run's error.
func serveOn(t *testing.T, h http.Handler, grace time.Duration) (addr string, cancel func(), done chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- Run(ctx, HTTPServer(h, time.Second), ln, grace) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String(), cancel, done
}

// rawGet sends a GET for path on a connection of its own and returns it
// with a reader over the response.
func rawGet(t *testing.T, addr, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
	return c, bufio.NewReaderSize(c, 64<<10)
}

// A client that never reads is cut off once one write has waited
// WriteIdle: reading afterwards yields far less than the set.
func TestServeClientThatNeverReads(t *testing.T) {
	s := store.Store(t.TempDir())
	set := pattern(64<<20, 30)
	k := put(t, s, set)
	addr, _, _ := serveOn(t, NewServer(Config{Store: s, WriteIdle: 200 * time.Millisecond}), time.Second)
	c, r := rawGet(t, addr, fetch.WellKnown+k)
	defer c.Close()
	time.Sleep(time.Second)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _ := io.Copy(io.Discard, r)
	if n >= int64(len(set)) {
		t.Fatalf("read %d bytes after stalling: the connection was kept", n)
	}
}

// A client that pipelines HEAD requests and never reads their answers is
// cut off too: a HEAD writes no body, so the deadline armed as the handler
// starts is the one its head is written under.
func TestServeHeadsNeverRead(t *testing.T) {
	s := store.Store(t.TempDir())
	k := put(t, s, pattern(100, 34))
	addr, _, _ := serveOn(t, NewServer(Config{Store: s, WriteIdle: 200 * time.Millisecond}), time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4096) // so the server's writes block soon
	const n = 30000
	go func() {
		w := bufio.NewWriter(c)
		for range n {
			fmt.Fprintf(w, "HEAD %s%s HTTP/1.1\r\nHost: x\r\n\r\n", fetch.WellKnown, k)
		}
		w.Flush()
	}()
	time.Sleep(1500 * time.Millisecond)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	got, err := 0, error(nil)
	for ; got < n && err == nil; got++ {
		var resp *http.Response
		if resp, err = http.ReadResponse(r, &http.Request{Method: "HEAD"}); err == nil {
			resp.Body.Close()
		}
	}
	// The server closed the connection: the answers end early, in an end
	// of stream, not in the client's own deadline.
	if ne, ok := err.(net.Error); got == n || ok && ne.Timeout() {
		t.Fatalf("%d of %d answers, then %v: the connection was kept", got, n, err)
	}
}

// A slow but steady reader is not cut off although the whole response
// takes longer than WriteIdle: the deadline is per write.
func TestServeSteadyReader(t *testing.T) {
	s := store.Store(t.TempDir())
	set := pattern(24<<20, 31)
	k := put(t, s, set)
	addr, _, _ := serveOn(t, NewServer(Config{Store: s, WriteIdle: time.Second}), time.Second)
	c, r := rawGet(t, addr, fetch.WellKnown+k)
	defer c.Close()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	var got bytes.Buffer
	for {
		n, err := io.CopyN(&got, resp.Body, 1<<20)
		if err != nil || n == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if took := time.Since(began); !bytes.Equal(got.Bytes(), set) || took < 2*time.Second {
		t.Fatalf("%d of %d bytes in %v", got.Len(), len(set), took)
	}
}

// SIGTERM's path: once Run's context ends, a response in flight finishes
// within grace and no new connection is accepted; past grace, the
// connection is closed and Run says so.
func TestRunGraceful(t *testing.T) {
	s := store.Store(t.TempDir())
	set := pattern(8<<20, 32)
	k := put(t, s, set)
	addr, cancel, done := serveOn(t, New(s, false), 5*time.Second)
	c, r := rawGet(t, addr, fetch.WellKnown+k)
	defer c.Close()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1<<20)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	if c2, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c2.Close()
		t.Error("a connection was accepted after shutdown began")
	}
	rest, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(append(head, rest...), set) {
		t.Fatalf("the response in flight did not finish: %v, %d bytes", err, len(head)+len(rest))
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	done <- nil // for the cleanup

	addr, cancel, done = serveOn(t, New(s, false), 200*time.Millisecond)
	c3, r3 := rawGet(t, addr, fetch.WellKnown+k)
	defer c3.Close()
	if _, err := http.ReadResponse(r3, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, ErrGrace) {
		t.Errorf("Run past grace with a stalled response: %v, want ErrGrace", err)
	}
	done <- nil
}

// A request head past MaxHeaderBytes is refused (431) before the handler
// runs; HTTPServer sets every bound.
func TestHTTPServerBounds(t *testing.T) {
	addr, _, _ := serveOn(t, New(store.Store(t.TempDir()), false), time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 2*MaxHeaderBytes))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a large head: %v %v", resp, err)
	}
	srv := HTTPServer(nil, 0)
	if srv.ReadHeaderTimeout != ReadHeaderTimeout || srv.IdleTimeout != IdleTimeout || srv.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("HTTPServer: %v %v %v", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}

// An idle keep-alive connection is closed after the idle timeout (1 s in
// serveOn).
func TestServeIdleClosed(t *testing.T) {
	s := store.Store(t.TempDir())
	k := put(t, s, pattern(100, 33))
	addr, _, _ := serveOn(t, New(s, false), time.Second)
	c, r := rawGet(t, addr, fetch.WellKnown+k)
	defer c.Close()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	began := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF || time.Since(began) > 3*time.Second {
		t.Fatalf("idle connection: %v after %v", err, time.Since(began))
	}
}

// Listen's bound: with two connections open (kept alive after a response
// each), a third gets no response until one of them closes, then its own.
func TestListenMaxConns(t *testing.T) {
	s := store.Store(t.TempDir())
	k := put(t, s, pattern(100, 34))
	ln, err := Listen("127.0.0.1:0", 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, HTTPServer(New(s, false), 10*time.Second), ln, time.Second) }()
	defer func() { cancel(); <-done }()
	addr := ln.Addr().String()
	var open []net.Conn
	for range 2 {
		c, r := rawGet(t, addr, fetch.WellKnown+k)
		defer c.Close()
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("within the bound: %v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		open = append(open, c)
	}
	c, r := rawGet(t, addr, fetch.WellKnown+k)
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("a third connection was served while two were open")
	}
	open[0].Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("once one closed: %v %v", resp, err)
	}
}
