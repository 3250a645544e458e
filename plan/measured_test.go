package plan

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
)

// TestAutoMeasures: under Auto an acc32 graph is measured on the GPU (here
// gputest.CPU32, the CPU reference passing for an acc32 GPU) and the CPU,
// its outputs are right, its route is said once to Notes and given by
// Route, and an acc64 graph is not measured. A software rasteriser forced
// by SoftwareGL is not measured either.
func TestAutoMeasures(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var notes bytes.Buffer
	s, err := newSession(fabric.Options{Fabric: fabric.Auto, Notes: &notes}, gputest.CPU32{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.Load(acc32Graph)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out, err := g.Decode(in4(-100, -1, 0, 100), nil)
		if err != nil || !slices.Equal(out[0].Data, []int64{0, 0, 0, 300}) {
			t.Fatalf("%v, %v", out, err)
		}
	}
	r := g.Route()
	if !strings.HasPrefix(r, "gpu (") && !strings.HasPrefix(r, "cpu (") || notes.String() != "fabric: "+r+"\n" {
		t.Fatalf("route %q, notes %q", r, notes.String())
	}
	h, err := s.Load(acc64Graph)
	if err != nil {
		t.Fatal(err)
	}
	if h.Route() != "" || h.Fabric().Name() != "cpu" {
		t.Fatalf("acc64: route %q on %s", h.Route(), h.Fabric().Name())
	}
	sw, err := newSession(fabric.Options{Fabric: fabric.Auto, SoftwareGL: true}, requireGPU(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	if sw.routes != nil && softwareNote(sw.gpu) != "" {
		t.Fatal("a software rasteriser forced by SoftwareGL is measured")
	}
}
