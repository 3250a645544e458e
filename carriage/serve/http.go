package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// The connection bounds HTTPServer sets: a client has ReadHeaderTimeout to
// send a request's head of at most MaxHeaderBytes, and a keep-alive
// connection is closed after IdleTimeout (unless the caller gives another)
// without a request. Writes are
// bounded per write by Config.WriteIdle (deadline.go), not by a
// whole-response WriteTimeout, and no ReadTimeout is set: GET and HEAD have
// no body to read, and net/http cancels a request's context when that
// deadline passes under a long response.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 16 << 10
)

// HTTPServer is an http.Server for h with the connection bounds above, a
// keep-alive connection closed after idle (IdleTimeout when idle is 0).
func HTTPServer(h http.Handler, idle time.Duration) *http.Server {
	if idle <= 0 {
		idle = IdleTimeout
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: idle, MaxHeaderBytes: MaxHeaderBytes}
}

// Listen listens for TCP on addr and accepts at most maxConns connections
// at once: past it, a new connection waits in the kernel's backlog until an
// open one closes, so that the server's descriptors and goroutines stay
// bounded whatever its clients do (idle ones are closed after IdleTimeout,
// silent ones after ReadHeaderTimeout).
func Listen(addr string, maxConns int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return netutil.LimitListener(ln, maxConns), nil
}

// ErrGrace is Run's answer when the grace passed with connections still
// open, which were then closed: responses cut off, or connections that
// never sent a request (net/http keeps those for 5 s).
var ErrGrace = errors.New("the grace passed; the connections left were closed")

// Run serves ln with srv until ctx ends, then shuts down gracefully: no
// new connection is accepted, idle ones are closed, and the responses in
// flight finish for up to grace, after which the connections left are
// closed (ErrGrace). It returns nil after a shutdown within grace, and the
// error that ended serving otherwise.
func Run(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(shut)
	if err != nil {
		srv.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			err = ErrGrace
		}
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
