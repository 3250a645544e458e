package certify

import (
	"math"
	"sync"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// Load refuses a graph whose verdict does not meet the profile
// (model_mismatch, §8.6), and keeps the graphs that loaded.
func TestLoadProfiles(t *testing.T) {
	// The rescale of TestFailsAcc32ByOneUnit: acc64, not acc32.
	b := newGraph(1, 0, math.MaxInt32, 4, 4)
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rqFloor(0, 1)}, 1, 0)
	raw := b.role(t, "g").Bytes
	c := &Cache{}
	_, _, err := c.Load(raw, Acc32)
	wantRefusal(t, err, "model_mismatch")
	var wg sync.WaitGroup
	certs := make([]*Certificate, 8)
	for i := range certs {
		wg.Go(func() {
			_, cert, err := c.Load(raw, Acc64)
			if err != nil {
				t.Error(err)
			}
			certs[i] = cert
		})
	}
	wg.Wait()
	if len(c.entries) != 1 {
		t.Errorf("cache holds %d entries, want 1", len(c.entries))
	}
	for _, cert := range certs[1:] {
		if cert == nil || string(cert.Bytes()) != string(certs[0].Bytes()) {
			t.Fatal("loads of one graph gave different certificates")
		}
	}
	if certs[0].Graphs[0].Name != LoadRole || *certs[0].SetSHA256 != certs[0].Graphs[0].SHA256 {
		t.Errorf("role %q, set %s, graph %s", certs[0].Graphs[0].Name, *certs[0].SetSHA256, certs[0].Graphs[0].SHA256)
	}
}

// A lut16 whose input range passes [−32767, 32767] is refused at load, as
// is a malformed file (whg1.Parse); neither is kept.
func TestLoadRefusals(t *testing.T) {
	b := newGraph(1, -32768, 0, 4, 4)
	b.op(whg1.OpLut16, &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}, 1, 0)
	c := &Cache{}
	_, _, err := c.Load(b.role(t, "g").Bytes, Acc64)
	wantRefusal(t, err, "model_mismatch")
	_, _, err = c.Load([]byte("WHG0"), Acc64)
	wantRefusal(t, err, "model_mismatch")
	if len(c.entries) != 0 {
		t.Errorf("refused graphs were kept: %d entries", len(c.entries))
	}
}

// CachedVerdict gives the verdict of the bytes.
func TestCachedVerdict(t *testing.T) {
	b := newGraph(1, 0, math.MaxInt32, 4, 4)
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rqFloor(0, 1)}, 1, 0)
	v, err := CachedVerdict(b.role(t, "g").Bytes)
	if err != nil || v.Meets(Acc32) || !v.Meets(Acc64) {
		t.Errorf("verdict %+v (%v), want acc64 only", v, err)
	}
}
