package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/store"
)

// generations is a predecessor and a successor fine-tuned from it: most of
// its bytes are the predecessor's.
func generations() (pred, succ []byte) {
	pred = set(300000, 21)
	succ = bytes.Clone(pred)
	for i := 0; i < len(succ); i += 997 {
		succ[i] ^= 0x33
	}
	return pred, succ
}

// coder answers a request that names pred and accepts dcz with body (a
// coded body or a fault), and any other with the successor as it is.
type coder struct {
	pred, succ []byte
	body       []byte
	coding     string
	mu         sync.Mutex
	asked      []string // "coded" or "plain", per request
}

func (c *coder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ps := sha256.Sum256(c.pred)
	named := r.Header.Get("Available-Dictionary") == ":"+base64.StdEncoding.EncodeToString(ps[:])+":"
	accepts := r.Header.Get("Accept-Encoding") == "dcz, identity"
	c.mu.Lock()
	if named && accepts {
		c.asked = append(c.asked, "coded")
	} else {
		c.asked = append(c.asked, "plain")
	}
	c.mu.Unlock()
	if named && accepts {
		w.Header().Set("Content-Encoding", c.coding)
		w.Write(c.body)
		return
	}
	w.Write(c.succ)
}

func encodeDcz(t *testing.T, pred, succ []byte) []byte {
	var b bytes.Buffer
	if err := dcz.Encode(&b, pred, bytes.NewReader(succ)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCoded runs §16's corpus fetches over H5's checks: the successor held
// through its predecessor; each refused coded response followed by the same
// root asked plain; a coding the sink did not list; a decoding that yields
// another set; and decoded bytes past the bound.
func TestCoded(t *testing.T) {
	pred, succ := generations()
	pd, sd := sha256.Sum256(pred), sha256.Sum256(succ)
	good := encodeDcz(t, pred, succ)
	if len(good) > len(succ)/10 {
		t.Fatalf("the coded successor is %d bytes of %d", len(good), len(succ))
	}
	otherDict := bytes.Clone(good)
	otherDict[20] ^= 1
	var wide bytes.Buffer
	wide.Write(good[:dcz.HeaderSize])
	enc, _ := zstd.NewWriter(&wide, zstd.WithEncoderDictRaw(0, pred), zstd.WithWindowSize(16<<20), zstd.WithEncoderConcurrency(1))
	enc.Write(succ)
	enc.Close()
	another := encodeDcz(t, pred, set(1000, 22))
	for _, c := range []struct {
		name     string
		body     []byte
		coding   string
		bound    uint64
		reports  []string // with ROOT for the root
		asked    []string
		heldSucc bool
	}{
		{"held through its predecessor", good, "dcz", 0, nil, []string{"coded"}, true},
		{"another dictionary", otherDict, "dcz", 0, []string{"coded ROOT: dcz_dictionary_mismatch"}, []string{"coded", "plain"}, true},
		{"not a dcz header", succ, "dcz", 0, []string{"coded ROOT: dcz_malformed"}, []string{"coded", "plain"}, true},
		{"a 16 MiB window", wide.Bytes(), "dcz", 0, []string{"coded ROOT: dcz_window_too_large"}, []string{"coded", "plain"}, true},
		{"a truncated frame", good[:len(good)-9], "dcz", 0, []string{"coded ROOT: dcz_malformed"}, []string{"coded", "plain"}, true},
		{"a coding not listed", good, "br", 0, []string{"root ROOT: content_coding_present"}, []string{"coded"}, false},
		{"another set", another, "dcz", 0, []string{"root ROOT: set_digest_mismatch"}, []string{"coded"}, false},
		{"past the bound", good, "dcz", uint64(len(succ) - 1), []string{"coded ROOT: set_too_large", "root ROOT: set_too_large"}, []string{"coded", "plain"}, false},
		{"identity answer", succ, "", 0, nil, []string{"coded"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := &coder{pred: pred, succ: succ, body: c.body, coding: c.coding}
			root := server(t, srv)
			f, rec := newFetcher(t)
			f.MaxBytes = c.bound
			if err := writeHeld(f.Store, pred); err != nil {
				t.Fatal(err)
			}
			err := f.Fetch(context.Background(), sd, []string{root}, &pd)
			var want []string
			for _, r := range c.reports {
				want = append(want, strings.ReplaceAll(r, "ROOT", root))
			}
			if !reflect.DeepEqual(rec.got, want) {
				t.Errorf("reports %v, want %v", rec.got, want)
			}
			if !reflect.DeepEqual(srv.asked, c.asked) {
				t.Errorf("asked %v, want %v", srv.asked, c.asked)
			}
			if c.heldSucc {
				if err != nil {
					t.Fatal(err)
				}
				heldOnly(t, f.Store, pred, succ)
			} else {
				if code(err) != carriage.PriorNotHeld {
					t.Errorf("Fetch = %v, want prior_not_held", err)
				}
				heldOnly(t, f.Store, pred)
			}
		})
	}
}

// TestCodedNotNamed: a dcz answer to a request that named no dictionary (the
// sink holds no predecessor) passes the root over (H3, H5).
func TestCodedNotNamed(t *testing.T) {
	pred, succ := generations()
	sd := sha256.Sum256(succ)
	root := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "dcz")
		w.Write(encodeDcz(t, pred, succ))
	}))
	f, rec := newFetcher(t)
	pd := sha256.Sum256(pred) // named, but not held: the request is plain
	if err := f.Fetch(context.Background(), sd, []string{root}, &pd); code(err) != carriage.PriorNotHeld {
		t.Fatalf("Fetch = %v", err)
	}
	if want := []string{"root " + root + ": content_coding_present"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
}

func writeHeld(s store.Store, b []byte) error {
	t, err := s.Create()
	if err != nil {
		return err
	}
	if _, err := t.Write(b); err != nil {
		t.Discard()
		return err
	}
	return t.Commit(sha256.Sum256(b))
}
