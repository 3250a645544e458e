package serve

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"io"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/waiops/waiops/carriage/dcz"
)

// Why a request that could have been coded gets the identity body: never
// an error (the sink holds the successor either way, §16).
var (
	errBusy   = errors.New("the codings' bound is reached")
	errNoGain = errors.New("the coded body is no smaller than the successor")
	errGone   = errors.New("a set of the pair is no longer held")
)

// codingCost is the memory a coding of a successor of succ bytes against a
// predecessor of pred bytes is charged before it starts. The predecessor
// is mapped from the store (dcz.EncodeAt), so it is the page cache's, not
// the coding's. Charged: the coded body (cut off at the successor's
// length, errNoGain) and the encoder's history of the successor (at most
// the window, dcz.WindowLimit), each twice for a buffer's growth by
// doubling, and the encoder's match table (32 MiB at most).
func codingCost(pred, succ int64) int64 {
	return 2*succ + 2*min(succ, int64(dcz.WindowLimit(uint64(pred)))) + 32<<20
}

// setFile is a held set opened for a coding: read as the successor,
// mapped or read at offsets as the predecessor (an *os.File is one).
type setFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// coder makes coded bodies, at most one per (successor, predecessor) at a
// time however many requests ask (singleflight), within a bound on how
// many run and on the memory they are charged, and keeps them in a
// byte-bounded cache, least recently used dropped first.
type coder struct {
	open        func(d [32]byte) (setFile, int64, bool)
	note        func(outcome string) // each coding's outcome: made, no_gain, busy, failed
	codings     int
	codingBytes int64
	cacheBytes  int64
	group       singleflight.Group

	mu      sync.Mutex
	running int
	charged int64
	lru     *list.List // of *cached, most recent first
	byKey   map[[64]byte]*list.Element
	cached  int64
	made    int // codings made since start (tests read it)
}

// A cached coding: its body, or none when coding gave no gain.
type cached struct {
	key  [64]byte
	body []byte
	gain bool
}

func newCoder(open func([32]byte) (setFile, int64, bool), codings int, codingBytes, cacheBytes int64) *coder {
	return &coder{open: open, codings: codings, codingBytes: codingBytes, cacheBytes: cacheBytes,
		lru: list.New(), byKey: map[[64]byte]*list.Element{}}
}

func codingKey(d, dict [32]byte) [64]byte {
	var k [64]byte
	copy(k[:], d[:])
	copy(k[32:], dict[:])
	return k
}

// cachedBody is the cached coding of d against dict, if any; hit reports
// whether the cache knew the pair (a body, or no gain).
func (c *coder) cachedBody(d, dict [32]byte) (body []byte, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[codingKey(d, dict)]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cached)
	if !e.gain {
		return nil, true
	}
	return e.body, true
}

// body is d coded against dict: from the cache, from a coding another
// request began, or made now. An error means the identity body is sent
// (errBusy, errNoGain, a file gone, a coding that failed); ctx's end stops
// the wait, not the coding, which others may be waiting for.
func (c *coder) body(ctx context.Context, d, dict [32]byte) ([]byte, bool, error) {
	if b, hit := c.cachedBody(d, dict); hit {
		if b == nil {
			return nil, true, errNoGain
		}
		return b, true, nil
	}
	key := codingKey(d, dict)
	ch := c.group.DoChan(string(key[:]), func() (any, error) { return c.make(d, dict) })
	select {
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case res := <-ch:
		if res.Err != nil {
			return nil, false, res.Err
		}
		return res.Val.([]byte), false, nil
	}
}

// make codes d against dict when the bounds admit it, and caches the
// outcome.
func (c *coder) make(d, dict [32]byte) ([]byte, error) {
	if b, hit := c.cachedBody(d, dict); hit { // made while this call waited to start
		if b == nil {
			return nil, errNoGain
		}
		return b, nil
	}
	pf, plen, ok := c.open(dict)
	if !ok {
		return nil, errGone
	}
	defer pf.Close()
	sf, slen, ok := c.open(d)
	if !ok {
		return nil, errGone
	}
	defer sf.Close()
	cost := codingCost(plen, slen)
	c.mu.Lock()
	if c.running >= c.codings || c.charged+cost > c.codingBytes {
		c.mu.Unlock()
		c.note("busy")
		return nil, errBusy
	}
	c.running++
	c.charged += cost
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running--
		c.charged -= cost
		c.mu.Unlock()
	}()
	out := &capped{max: int(slen)}
	// The predecessor's name is its digest, checked when the store was
	// scanned: the header states it without hashing the set again.
	err := dcz.EncodeAt(out, pf, plen, dict, sf)
	if errors.Is(err, errNoGain) {
		c.note("no_gain")
		c.put(codingKey(d, dict), nil, false)
		return nil, errNoGain
	}
	if err != nil {
		c.note("failed")
		return nil, err
	}
	c.note("made")
	body := bytes.Clone(out.Bytes()) // the cache keeps no slack
	c.put(codingKey(d, dict), body, true)
	return body, nil
}

// put caches a coding, dropping the least recently used past cacheBytes;
// a body larger than the whole cache is not kept.
func (c *coder) put(key [64]byte, body []byte, gain bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made++
	n := int64(len(body))
	if n > c.cacheBytes {
		return
	}
	if el, ok := c.byKey[key]; ok {
		c.cached -= int64(len(el.Value.(*cached).body))
		c.lru.Remove(el)
	}
	for c.cached+n > c.cacheBytes {
		el := c.lru.Back()
		e := el.Value.(*cached)
		c.cached -= int64(len(e.body))
		delete(c.byKey, e.key)
		c.lru.Remove(el)
	}
	c.byKey[key] = c.lru.PushFront(&cached{key: key, body: body, gain: gain})
	c.cached += n
}

// capped is a buffer that refuses to grow past max bytes (errNoGain).
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(b []byte) (int, error) {
	if c.Len()+len(b) >= c.max {
		return 0, errNoGain
	}
	return c.Buffer.Write(b)
}
