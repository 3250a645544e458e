package bench

import (
	"testing"

	"github.com/waiops/waiops/decoder"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/plan"
)

// TestBmshjLoadsAndDecodesOnce: the bmshj2018 synthesis graph loaded
// through a session (the `waiops run` path), and through the decoder API
// (LoadImported), is parsed once and bounded once; a second load of the same bytes does neither; one decode makes one
// run-time plan with one input check, as one step of a sequence does.
func TestBmshjLoadsAndDecodesOnce(t *testing.T) {
	c := bmshjCase(1)
	s, err := plan.NewSession(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := tally.Take()
	g, err := s.Load(c.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if n := before.Since(); n.Parses != 1 || n.Bounds != 1 {
		t.Errorf("load: %d parses, %d bounds passes; want 1 and 1", n.Parses, n.Bounds)
	}
	before = tally.Take()
	if _, err := s.Load(c.Graph); err != nil {
		t.Fatal(err)
	}
	if n := before.Since(); n != (tally.Counts{}) {
		t.Errorf("a second load of the same bytes: %+v, want nothing", n)
	}
	d, err := decoder.Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	before = tally.Take()
	m, err := d.LoadImported(c.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if n := before.Since(); n.Parses != 1 || n.Bounds != 1 {
		t.Errorf("decoder load: %d parses, %d bounds passes; want 1 and 1", n.Parses, n.Bounds)
	}
	for name, decode := range map[string]func() error{
		"decoder":  func() error { _, err := m.Decode(c.Input[0]); return err },
		"decode":   func() error { _, err := g.Decode(c.Input, nil); return err },
		"sequence": func() error { _, err := g.Sequence().Decode(c.Input, nil); return err },
	} {
		before = tally.Take()
		if err := decode(); err != nil {
			t.Fatal(err)
		}
		if n := before.Since(); n != (tally.Counts{Plans: 1, InputChecks: 1}) {
			t.Errorf("%s: %+v, want one plan and one input check", name, n)
		}
	}
}
