package decoder

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/internal/tally"
)

// TestLoadOnce: loading a set parses each of its graphs once and runs one
// bounds pass over each (the set's certificate, whose per-graph part the
// session loads), for the demo set (one graph) and the world pair (two).
func TestLoadOnce(t *testing.T) {
	set, _ := demo(t)
	tb, gs := setcorpus.SampleWorld()
	d := open(t, fabric.CPU)
	for _, c := range []struct {
		name   string
		graphs int64
		load   func() error
	}{
		{"demo", 1, func() error { _, err := d.LoadSynth(set); return err }},
		{"world", 2, func() error { _, err := d.LoadWorld(tb, gs); return err }},
	} {
		before := tally.Take()
		if err := c.load(); err != nil {
			t.Fatal(err)
		}
		if n := before.Since(); n.Parses != c.graphs || n.Bounds != c.graphs {
			t.Errorf("%s: %d parses and %d bounds passes for %d graphs", c.name, n.Parses, n.Bounds, c.graphs)
		}
	}
}

// TestDecodeOnce: one decode of the demo payload makes one run-time plan
// and checks its input once (§4 run steps 1–3), and parses or certifies
// nothing; so does one world step (a plan for T and one for g_s).
func TestDecodeOnce(t *testing.T) {
	set, payload := demo(t)
	d := open(t, fabric.CPU)
	s, err := d.LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	before := tally.Take()
	if _, err := s.Decode(payload); err != nil {
		t.Fatal(err)
	}
	if n := before.Since(); n != (tally.Counts{Plans: 1, InputChecks: 1}) {
		t.Errorf("one decode: %+v, want one plan and one input check", n)
	}
	tb, gs := setcorpus.SampleWorld()
	w, err := d.LoadWorld(tb, gs)
	if err != nil {
		t.Fatal(err)
	}
	z0, err := ParseLatent([]byte(`{"data":["0","0","0","0","0","0","0","0"],"shape":["2","2","2"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := w.Start(z0)
	if err != nil {
		t.Fatal(err)
	}
	before = tally.Take()
	if _, err := c.Step([]int64{1, -1, 0}); err != nil {
		t.Fatal(err)
	}
	if n := before.Since(); n != (tally.Counts{Plans: 2, InputChecks: 2}) {
		t.Errorf("one world step: %+v, want two plans and two input checks (T, then g_s)", n)
	}
}

// TestDecodeOnDeviceOnce: one decode left on the GL device makes one plan
// and one input check, as Decode does: the set's plan is handed to the
// program (gpu.Program.DecodeFramePlanned), which does not plan again. The
// frame is the CPU decode's picture. Without a GL context it skips.
func TestDecodeOnDeviceOnce(t *testing.T) {
	set, payload := demo(t)
	gputest.Device(t)
	var want []byte
	for _, f := range []fabric.Choice{fabric.CPU, fabric.GPU} {
		s, err := open(t, f).LoadSynth(set)
		if err != nil {
			t.Fatal(err)
		}
		if f == fabric.CPU {
			fr, err := s.Decode(payload)
			if err != nil {
				t.Fatal(err)
			}
			want = fr.RGB()
			continue
		}
		before := tally.Take()
		fr, err := s.DecodeOnDevice(payload)
		if err != nil {
			t.Fatal(err)
		}
		if n := before.Since(); n != (tally.Counts{Plans: 1, InputChecks: 1}) {
			t.Errorf("one device decode: %+v, want one plan and one input check", n)
		}
		if !fr.OnDevice() {
			t.Error("DecodeOnDevice gave a frame on the host")
		}
		if !bytes.Equal(fr.RGB(), want) {
			t.Error("the device frame differs from the CPU decode's")
		}
		fr.Close()
	}
}
