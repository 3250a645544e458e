package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/store"
)

// pair puts a predecessor and a successor differing in every 1000th byte,
// and returns the successor's name and the headers naming the predecessor.
func pair(t *testing.T, s store.Store, n int, seed byte) (pred, succ []byte, k string, hdr map[string]string) {
	pred = pattern(n, seed)
	succ = bytes.Clone(pred)
	for i := 0; i < len(succ); i += 1000 {
		succ[i]++
	}
	put(t, s, pred)
	k = put(t, s, succ)
	pd := sha256.Sum256(pred)
	return pred, succ, k, map[string]string{"Accept-Encoding": "dcz, identity", "Available-Dictionary": ":" + base64.StdEncoding.EncodeToString(pd[:]) + ":"}
}

// 20 requests at once for one cold pair: one coding, 20 coded bodies that
// each decode to the successor.
func TestServeCodesOnce(t *testing.T) {
	s := store.Store(t.TempDir())
	pred, succ, k, hdr := pair(t, s, 300000, 21)
	srv := New(s, false)
	root := startHandler(t, srv)
	var wg sync.WaitGroup
	bodies := make([][]byte, 20)
	codings := make([]string, 20)
	for i := range bodies {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", root+k, nil)
			for h, v := range hdr {
				req.Header.Set(h, v)
			}
			resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			bodies[i], _ = io.ReadAll(resp.Body)
			codings[i] = resp.Header.Get("Content-Encoding")
		})
	}
	wg.Wait()
	for i, b := range bodies {
		var out bytes.Buffer
		if codings[i] != "dcz" || dcz.Decode(bytes.NewReader(b), pred, sha256.Sum256(pred), &out) != nil || !bytes.Equal(out.Bytes(), succ) {
			t.Fatalf("request %d: %q, %d bytes, not the successor", i, codings[i], len(b))
		}
	}
	if codingsMade(srv.coder) != 1 {
		t.Errorf("%d codings made, want 1", codingsMade(srv.coder))
	}
}

// A HEAD never codes: on a cold cache it gets the identity head; once a GET
// has coded the pair it gets the coded head, with the coded length.
func TestServeHeadNeverCodes(t *testing.T) {
	s := store.Store(t.TempDir())
	_, succ, k, hdr := pair(t, s, 100000, 22)
	srv := New(s, false)
	root := startHandler(t, srv)
	head := func() *http.Response {
		req, _ := http.NewRequest("HEAD", root+k, nil)
		for h, v := range hdr {
			req.Header.Set(h, v)
		}
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := head(); resp.Header.Get("Content-Encoding") != "" || resp.ContentLength != int64(len(succ)) || codingsMade(srv.coder) != 0 {
		t.Fatalf("cold HEAD: %q, length %d, %d codings", resp.Header.Get("Content-Encoding"), resp.ContentLength, codingsMade(srv.coder))
	}
	_, body := get(t, root+k, hdr)
	// §14.3: the coded response's resource serves byte ranges too.
	if resp := head(); resp.Header.Get("Content-Encoding") != "dcz" || resp.ContentLength != int64(len(body)) || codingsMade(srv.coder) != 1 || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("warm HEAD: %q, length %d (the body is %d), %d codings", resp.Header.Get("Content-Encoding"), resp.ContentLength, len(body), codingsMade(srv.coder))
	}
}

// Past the codings' memory bound, and when coding gains nothing, the
// identity body is sent with 200; the gainless pair is not coded again.
func TestServeCodingBounds(t *testing.T) {
	s := store.Store(t.TempDir())
	_, succ, k, hdr := pair(t, s, 100000, 23)
	// codingCost(100000, 100000) = 300000 + 2 × 8 MiB: one byte short.
	tight := NewServer(Config{Store: s, CodingBytes: codingCost(100000, 100000) - 1})
	root := startHandler(t, tight)
	resp, body := get(t, root+k, hdr)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, succ) || codingsMade(tight.coder) != 0 {
		t.Fatalf("past the bound: %s %q, %d bytes", resp.Status, resp.Header.Get("Content-Encoding"), len(body))
	}
	// A successor with nothing in common with its predecessor.
	other := pattern(5000, 24)
	kOther := put(t, s, other)
	srv := New(s, false)
	root = startHandler(t, srv)
	for range 2 {
		resp, body := get(t, root+kOther, hdr)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, other) {
			t.Fatalf("no gain: %s %q", resp.Status, resp.Header.Get("Content-Encoding"))
		}
	}
	if codingsMade(srv.coder) != 1 {
		t.Errorf("a gainless pair coded %d times, want 1", codingsMade(srv.coder))
	}
}

// With one coding allowed, a second pair asked while the first is coding
// is refused at once (errBusy), not queued.
func TestCoderBusy(t *testing.T) {
	block := make(chan struct{})
	entered := make(chan struct{})
	files := map[[32]byte][]byte{{1}: pattern(1000, 1), {2}: pattern(1000, 2), {3}: pattern(1000, 3)}
	c := newCoder(func(d [32]byte) (setFile, int64, bool) {
		r := bytes.NewReader(files[d])
		if d == [32]byte{2} { // the successor is read once the coding is charged
			return &stall{r: r, entered: entered, block: block}, int64(len(files[d])), true
		}
		return nopCloser{r}, int64(len(files[d])), true
	}, 1, 1<<30, 1<<20)
	c.note = func(string) {}
	done := make(chan error, 1)
	go func() { _, _, err := c.body(context.Background(), [32]byte{2}, [32]byte{1}); done <- err }()
	<-entered
	if _, _, err := c.body(context.Background(), [32]byte{2}, [32]byte{3}); !errors.Is(err, errBusy) {
		t.Errorf("a second coding at once: %v, want errBusy", err)
	}
	close(block)
	if err := <-done; err != nil && !errors.Is(err, errNoGain) {
		t.Errorf("the first coding: %v", err)
	}
}

// stall is a reader whose first Read says so on entered, then waits for
// block.
// stall is a successor whose first read waits for block, once entered
// says it began.
type stall struct {
	r              *bytes.Reader
	entered, block chan struct{}
	once           sync.Once
}

func (s *stall) Read(b []byte) (int, error) {
	s.once.Do(func() { close(s.entered); <-s.block })
	return s.r.Read(b)
}

func (s *stall) ReadAt(b []byte, off int64) (int, error) { return s.r.ReadAt(b, off) }
func (s *stall) Close() error                            { return nil }

// nopCloser is a set held in memory.
type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// The cache drops the least recently used coding past its bound and keeps
// no body larger than itself.
func TestCoderCacheLRU(t *testing.T) {
	c := newCoder(nil, 1, 1, 10)
	k := func(i byte) [32]byte { return [32]byte{i} }
	c.put(codingKey(k(1), k(0)), make([]byte, 4), true)
	c.put(codingKey(k(2), k(0)), make([]byte, 4), true)
	c.cachedBody(k(1), k(0)) // 1 is now the most recent
	c.put(codingKey(k(3), k(0)), make([]byte, 4), true)
	_, hit1 := c.cachedBody(k(1), k(0))
	_, hit2 := c.cachedBody(k(2), k(0))
	_, hit3 := c.cachedBody(k(3), k(0))
	if !hit1 || hit2 || !hit3 || c.cached != 8 {
		t.Errorf("hits %v %v %v, %d bytes cached; want true false true, 8", hit1, hit2, hit3, c.cached)
	}
	c.put(codingKey(k(4), k(0)), make([]byte, 11), true)
	if _, hit := c.cachedBody(k(4), k(0)); hit || c.cached != 8 {
		t.Errorf("a body past the bound was kept")
	}
}

// codingsMade is c.made, read under c.mu (the codings run on the server's
// goroutines).
func codingsMade(c *coder) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.made
}
