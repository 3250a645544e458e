package fetch

import "io"

// The buffers copyOverlapped passes between its reader and its writer: 4 of
// 128 KiB, so a fetch holds 512 KiB however large its body (larger buffers
// measured slower here: more system time per byte, see scripts/carriage-speed.sh).
const (
	pipeBufs    = 4
	pipeBufSize = 128 << 10
)

type filled struct {
	b   []byte
	err error // the read's error after b; io.EOF at the end
}

// copyOverlapped copies at most limit bytes of src to dst and to sum,
// three ways at once (the hash overlaps the transfer and the
// write): src is read in a goroutine of its own, and each buffer read is
// hashed by another while dst takes it. It returns the bytes dst took, the
// error of src's (nil at its end) and the error of dst's; after an error of
// dst's no further buffer is read (sum is then of no use).
func copyOverlapped(dst, sum io.Writer, src io.Reader, limit int64) (n int64, rerr, werr error) {
	src = io.LimitReader(src, limit)
	free := make(chan []byte, pipeBufs)
	for range pipeBufs {
		free <- make([]byte, pipeBufSize)
	}
	full := make(chan filled, pipeBufs)
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for {
			var b []byte
			select {
			case b = <-free:
			case <-stop:
				return
			}
			m, err := fill(src, b)
			full <- filled{b[:m], err}
			if err != nil {
				return
			}
		}
	}()
	hashIn, hashed := make(chan []byte), make(chan struct{})
	defer close(hashIn)
	go func() {
		for b := range hashIn {
			sum.Write(b) // a hash.Hash's Write never fails
			hashed <- struct{}{}
		}
	}()
	for c := range full {
		if werr == nil && len(c.b) > 0 {
			hashIn <- c.b
			w, err := dst.Write(c.b)
			<-hashed
			n, werr = n+int64(w), err
			if werr != nil {
				close(stop)
			}
		}
		if c.err != nil && c.err != io.EOF {
			rerr = c.err
		}
		free <- c.b[:cap(c.b)]
	}
	return n, rerr, werr
}

// fill reads r into b until b is full or r fails, and returns r's error as
// it is (io.ReadFull would make an early end's io.ErrUnexpectedEOF of a
// body, which is a read error here, one with its own short read).
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
