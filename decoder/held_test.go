package decoder

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
)

// synthN is handSynth with its bias b: each b is a distinct set of one
// graph.
func synthN(b int64) []byte {
	return drivers.EncodeSynth([]drivers.SynthLayer{{InCh: 1, OutCh: 3, K: 2, Stride: 2, Shift: 1, Relu: true,
		W: []int64{1, 2, 3, -1, 40, 0, -5, 10, 100, 2, 0, 1}, Bias: []int64{b, 1, 3}}})
}

// A set holds its graphs while it lives: a world pair (two graphs) under
// MaxGraphs 1 renders the hand-worked frame 0 after 10 other sets loaded
// (before holds, the pair evicted its own T and every later load evicted
// the rest); once closed it decodes no more (ErrClosed), and a closed set's
// graphs go as the cache needs.
func TestSetsHoldTheirGraphs(t *testing.T) {
	d, err := Open(fabric.Options{Fabric: fabric.CPU, MaxGraphs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tb, gb := tinyWorld()
	w, err := d.LoadWorld(tb, gb)
	if err != nil {
		t.Fatal(err)
	}
	_, payload := handSynth()
	var others []*Synth
	for b := range int64(10) {
		s, err := d.LoadSynth(synthN(b))
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, s)
	}
	z0 := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{100}}
	frames, err := w.Render(z0, nil)
	if err != nil || !bytes.Equal(frames[0].RGB(), []byte{100, 199, 0}) {
		t.Fatalf("the held pair after 10 loads: %v, %v", frames, err)
	}
	for _, s := range others {
		if _, err := s.Decode(payload); err != nil {
			t.Fatalf("a held synth set: %v", err)
		}
	}
	w.Close()
	if _, err := w.Render(z0, nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("Render after Close: %v, want ErrClosed", err)
	}
	others[0].Close()
	if _, err := others[0].Decode(payload); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("Decode after Close: %v, want ErrClosed", err)
	}
}

// A set that is no longer reachable lets go of its graphs: with MaxGraphs
// 1, a set dropped and collected is evicted by the next load, so the
// session does not grow with sets nobody closed.
func TestUnreachableSetReleases(t *testing.T) {
	d, err := Open(fabric.Options{Fabric: fabric.CPU, MaxGraphs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := d.LoadSynth(synthN(1))
	if err != nil {
		t.Fatal(err)
	}
	g := s.graph()
	s = nil
	x := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{7}}}
	// The cleanup runs on its own goroutine after a collection finds s
	// unreachable: collect, load, and look again, for up to a second.
	for b := int64(2); b < 1000; b++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if _, err := d.LoadSynth(synthN(b)); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Decode(x, nil); errors.Is(err, fabric.ErrClosed) {
			return
		}
	}
	t.Fatal("the dropped set's graph was never evicted")
}
