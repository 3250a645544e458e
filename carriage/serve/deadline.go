package serve

import (
	"io"
	"net/http"
	"time"
)

// writeChunk is the most bytes one write deadline covers: a client must
// take writeChunk bytes within Config.WriteIdle, else its connection is
// closed. The pair sets the slowest reader a server keeps (1 MiB in 30 s
// by default, about 35 KiB/s), where a whole-response WriteTimeout would cut
// off a large set on a slow but steady link.
const writeChunk = 1 << 20

// deadlined is a ResponseWriter whose every write of up to writeChunk
// bytes must complete within idle of its start (a per-write deadline on
// the connection, RFC 9110 says nothing of it; it is what holds a server
// against clients that never read). ReadFrom keeps the file's sendfile
// path: each chunk is an *io.LimitedReader over the caller's own reader,
// which net's sendfile unwraps.
type deadlined struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration
}

func (d *deadlined) arm() { d.rc.SetWriteDeadline(time.Now().Add(d.idle)) }

func (d *deadlined) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), writeChunk)
		d.arm()
		m, err := d.ResponseWriter.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

func (d *deadlined) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := d.ResponseWriter.(io.ReaderFrom)
	if !ok {
		return io.Copy(struct{ io.Writer }{d}, src)
	}
	inner, left := src, int64(-1)
	if lr, ok := src.(*io.LimitedReader); ok {
		inner, left = lr.R, lr.N
		defer func() { lr.N = left }()
	}
	var n int64
	for left != 0 {
		k := int64(writeChunk)
		if left > 0 {
			k = min(k, left)
		}
		d.arm()
		m, err := rf.ReadFrom(&io.LimitedReader{R: inner, N: k})
		n += m
		if left > 0 {
			left -= m
		}
		if err != nil {
			return n, err
		}
		if m < k {
			return n, nil // the source ended
		}
	}
	return n, nil
}

func (d *deadlined) Unwrap() http.ResponseWriter { return d.ResponseWriter }
