package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
)

// treeSet is a set of 6 pieces of 1 KiB and a half (g 0, the last piece
// short) and its head.
func treeSet(t *testing.T) ([]byte, *tree.Head) {
	s := set(5*1024+512, 11)
	h, err := tree.Write(bytes.NewReader(s), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return s, h
}

// fault wraps a holder: change rewrites a range response's status, headers
// and body before they go out, per the piece it asks.
type fault struct {
	h      http.Handler
	mu     sync.Mutex
	ranges []string
	change func(piece int, w http.ResponseWriter, r *http.Request) bool // true: answered
}

func (f *fault) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rg := r.Header.Get("Range")
	f.mu.Lock()
	f.ranges = append(f.ranges, rg)
	f.mu.Unlock()
	var a int
	fmt.Sscanf(rg, "bytes=%d-", &a)
	if f.change != nil && f.change(a/1024, w, r) {
		return
	}
	f.h.ServeHTTP(w, r)
}

// changed serves s with one byte changed in piece p.
func changed(s []byte, p int) *holder {
	b := bytes.Clone(s)
	b[p*1024+100] ^= 1
	h := newHolder()
	h.sets[hex.EncodeToString(func() []byte { d := sha256.Sum256(s); return d[:] }())] = b
	return h
}

func piecesAsked(f *fault) map[int]int {
	out := map[int]int{}
	for _, r := range f.ranges {
		var a int
		fmt.Sscanf(r, "bytes=%d-", &a)
		out[a/1024]++
	}
	return out
}

// TestTreeFetch runs §19.2's corpus fetches from two peers.
func TestTreeFetch(t *testing.T) {
	s, h := treeSet(t)
	n := len(h.Values)
	wholeA := &fault{h: newHolder(s)}
	wholeB := &fault{h: newHolder(s)}
	a, b := server(t, wholeA), server(t, wholeB)

	t.Run("both whole", func(t *testing.T) {
		f, rec := newFetcher(t)
		wholeA.ranges, wholeB.ranges = nil, nil
		if err := f.FetchTree(context.Background(), h, []string{a, b}); err != nil {
			t.Fatal(err)
		}
		heldOnly(t, f.Store, s)
		if len(rec.got) != 0 {
			t.Errorf("reports %v", rec.got)
		}
		// Piece i from source i mod 2: the even pieces from a, the odd from b.
		ga, gb := piecesAsked(wholeA), piecesAsked(wholeB)
		for i := range n {
			if want, other := map[bool]map[int]int{true: ga, false: gb}[i%2 == 0], map[bool]map[int]int{true: gb, false: ga}[i%2 == 0]; want[i] != 1 || other[i] != 0 {
				t.Errorf("piece %d asked %d of its source and %d of the other", i, want[i], other[i])
			}
		}
		if !slices.Contains(wholeA.ranges, "bytes=0-1023") || !slices.Contains(wholeB.ranges, "bytes=5120-5631") {
			t.Errorf("ranges %v %v", wholeA.ranges, wholeB.ranges)
		}
	})

	t.Run("a byte changed in piece 3", func(t *testing.T) {
		f, rec := newFetcher(t)
		bad := &fault{h: changed(s, 3)}
		wholeA.ranges = nil
		c := server(t, bad)
		// Piece 3 is asked of source 3 mod 2 = 1 first: the changed one.
		if err := f.FetchTree(context.Background(), h, []string{a, c}); err != nil {
			t.Fatal(err)
		}
		heldOnly(t, f.Store, s)
		if want := []string{"piece 3 " + c + ": tree_piece_mismatch"}; !reflect.DeepEqual(rec.got, want) {
			t.Errorf("reports %v, want %v", rec.got, want)
		}
		// A verified piece is never fetched again: a asked for 0, 2, 4 and 3.
		if got := piecesAsked(wholeA); !reflect.DeepEqual(got, map[int]int{0: 1, 2: 1, 3: 1, 4: 1}) {
			t.Errorf("a asked %v", got)
		}
	})

	t.Run("one does not answer", func(t *testing.T) {
		f, rec := newFetcher(t)
		closed := closedRoot(t)
		if err := f.FetchTree(context.Background(), h, []string{closed, b}); err != nil {
			t.Fatal(err)
		}
		heldOnly(t, f.Store, s)
		slices.Sort(rec.got)
		var want []string
		for _, i := range []int{0, 2, 4} {
			want = append(want, fmt.Sprintf("piece %d %s: set_location_unavailable", i, closed))
		}
		if !reflect.DeepEqual(rec.got, want) {
			t.Errorf("reports %v, want %v", rec.got, want)
		}
	})

	t.Run("both changed at one piece", func(t *testing.T) {
		f, rec := newFetcher(t)
		c, d := server(t, changed(s, 3)), server(t, changed(s, 3))
		err := f.FetchTree(context.Background(), h, []string{c, d})
		if code(err) != carriage.PriorNotHeld || !strings.Contains(err.Error(), "piece 3") {
			t.Fatalf("FetchTree = %v, want prior_not_held at piece 3", err)
		}
		if want := []string{"piece 3 " + d + ": tree_piece_mismatch", "piece 3 " + c + ": tree_piece_mismatch"}; !reflect.DeepEqual(rec.got, want) {
			t.Errorf("reports %v, want %v", rec.got, want)
		}
		heldOnly(t, f.Store)
	})

	// H4's faults, each on the source asked first for piece 2 (source 0);
	// the other yields it.
	for _, c := range []struct {
		name   string
		change func(w http.ResponseWriter, r *http.Request)
		code   string
	}{
		{"a content coding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Range", "bytes 2048-3071/5632")
			w.WriteHeader(206)
			w.Write(s[2048:3072])
		}, "content_coding_present"},
		{"ends early", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 2048-3071/5632")
			w.Header().Set("Content-Length", "1024")
			w.WriteHeader(206)
			w.Write(s[2048:2600])
		}, "content_range_mismatch"},
		{"ends early, chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 2048-3071/5632")
			w.WriteHeader(206)
			w.Write(s[2048:2600])
		}, "content_range_mismatch"},
		{"runs long", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 2048-3071/5632")
			w.WriteHeader(206)
			w.Write(s[2048:3100])
		}, "content_range_mismatch"},
		{"a range answered 200", func(w http.ResponseWriter, r *http.Request) {
			w.Write(s)
		}, "content_range_mismatch"},
		{"another range", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 2048-3071/5633")
			w.WriteHeader(206)
			w.Write(s[2048:3072])
		}, "content_range_mismatch"},
		{"another status", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
		}, "set_location_unavailable"},
		{"no answer", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, "set_location_unavailable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, rec := newFetcher(t)
			f.Timeout = 300 * time.Millisecond
			x := server(t, &fault{h: newHolder(s), change: func(p int, w http.ResponseWriter, r *http.Request) bool {
				if p != 2 {
					return false
				}
				c.change(w, r)
				return true
			}})
			if err := f.FetchTree(context.Background(), h, []string{x, b}); err != nil {
				t.Fatal(err)
			}
			heldOnly(t, f.Store, s)
			if want := []string{"piece 2 " + x + ": " + c.code}; !reflect.DeepEqual(rec.got, want) {
				t.Errorf("reports %v, want %v", rec.got, want)
			}
		})
	}

	t.Run("inner misstates its set", func(t *testing.T) {
		f, _ := newFetcher(t)
		lie := *h
		lie.Inner[0] ^= 1
		srv := newHolder()
		srv.sets[hex.EncodeToString(lie.Inner[:])] = s
		x := server(t, srv)
		if err := f.FetchTree(context.Background(), &lie, []string{x}); code(err) != tree.DigestMismatch {
			t.Fatalf("FetchTree = %v, want tree_digest_mismatch", err)
		}
		heldOnly(t, f.Store)
	})
}

// TestTreeSealed fetches a sealed set by its tree (inner form
// wai.prior.sealed, §18.2 Ranges) and opens it with the key.
func TestTreeSealed(t *testing.T) {
	plain := set(9000, 12)
	var key, kid, iv [16]byte
	key[0], kid[0], iv[15] = 1, 2, 3
	var sealed bytes.Buffer
	if _, _, err := carriage.Seal(&sealed, bytes.NewReader(plain), int64(len(plain)), key, carriage.Header{KID: kid, IV: iv}); err != nil {
		t.Fatal(err)
	}
	h, err := tree.Write(bytes.NewReader(sealed.Bytes()), 1, tree.FormSealed)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := newFetcher(t)
	if err := f.FetchTree(context.Background(), h, []string{server(t, newHolder(sealed.Bytes())), server(t, newHolder(sealed.Bytes()))}); err != nil {
		t.Fatal(err)
	}
	heldOnly(t, f.Store, sealed.Bytes())
	var out bytes.Buffer
	if _, err := carriage.Open(bytes.NewReader(sealed.Bytes()), int64(sealed.Len()), carriage.Keys{kid: key}, &out); err != nil || !bytes.Equal(out.Bytes(), plain) {
		t.Errorf("open: %v", err)
	}
}

// TestSumInOrder: the set's SHA-256 from its file whatever order its pieces
// verify in: 33 pieces of 64 KiB (g 6, the last 123 bytes), verified last
// to first (the whole set read in one catch-up, many reads of sumBuf), in
// a shuffled order, and in order; a file that cannot be read gives nil,
// and every index sent is still taken (the workers never block).
func TestSumInOrder(t *testing.T) {
	s := set(32<<16+123, 29)
	h, err := tree.Write(bytes.NewReader(s), 6, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Values) != 33 {
		t.Fatalf("%d pieces, want 33", len(h.Values))
	}
	tmp, err := store.Store(t.TempDir()).Create()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	if _, err := tmp.Write(s); err != nil {
		t.Fatal(err)
	}
	sum := func(order []int) []byte {
		v := make(chan int) // unbuffered: each send waits for sumInOrder
		got := make(chan []byte, 1)
		go func() { got <- sumInOrder(h, tmp, v) }()
		for _, i := range order {
			v <- i
		}
		close(v)
		return <-got
	}
	want := sha256.Sum256(s)
	inOrder := make([]int, len(h.Values))
	for i := range inOrder {
		inOrder[i] = i
	}
	reversed := slices.Clone(inOrder)
	slices.Reverse(reversed)
	shuffled := slices.Clone(inOrder)
	rand.New(rand.NewPCG(5, 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, order := range [][]int{reversed, shuffled, inOrder} {
		if got := sum(order); !bytes.Equal(got, want[:]) {
			t.Errorf("order %v: %x, want %x", order, got, want)
		}
	}
	if got := sum(inOrder[:32]); got != nil {
		t.Errorf("the last piece never verified: %x, want nil", got)
	}
	tmp.Close()
	if got := sum(inOrder); got != nil {
		t.Errorf("a closed file: %x, want nil", got)
	}
}
