package dcz

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/waiops/waiops/internal/mapped"
)

// EncodeAt is EncodeSum with the predecessor read through pred, size bytes
// long, rather than held by the caller: an *os.File is mapped read-only
// (see view), anything else is read whole. predSum is written unchecked.
func EncodeAt(w io.Writer, pred io.ReaderAt, size int64, predSum [32]byte, r io.Reader) error {
	dict, release, err := view(pred, size)
	if err != nil {
		return err
	}
	defer release()
	return EncodeSum(w, dict, predSum, r)
}

// DecodeAt is Decode with the predecessor read through pred, size bytes
// long: an *os.File is mapped read-only (see view), so the predecessor's
// pages are the page cache's, read as matches reach them, and not copied
// into the process's heap; anything else is read whole. The body is read
// from r as it arrives and the decoded bytes written to w as they come, so
// a w that counts them stops a body past its bound at the bound.
func DecodeAt(r io.Reader, pred io.ReaderAt, size int64, predSum [32]byte, w io.Writer) error {
	dict, release, err := view(pred, size)
	if err != nil {
		return err
	}
	defer release()
	return Decode(r, dict, predSum, w)
}

// view returns the size bytes of pred and a function that lets them go.
// A file is mapped (package mapped) where the system can; otherwise, and
// for an empty predecessor, the bytes are read.
func view(pred io.ReaderAt, size int64) ([]byte, func(), error) {
	if size < 0 || uint64(size) > math.MaxInt {
		return nil, nil, fmt.Errorf("dcz: a predecessor of %d bytes", size)
	}
	if f, ok := pred.(*os.File); ok && size > 0 {
		if m, err := mapped.Open(f, size); err == nil {
			return m.Bytes(), func() { m.Close() }, nil
		}
	}
	b := make([]byte, size)
	if _, err := pred.ReadAt(b, 0); err != nil && !(err == io.EOF && len(b) == 0) {
		return nil, nil, fmt.Errorf("dcz: reading the predecessor: %w", err)
	}
	return b, func() {}, nil
}
