package plan

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/whg1"
)

// stressGraphs are the graphs the stress test decodes: relu(3x) under a
// check policy (out-of-range inputs refused), the clamped sum with state,
// and relu of a 1×1 conv to 256 channels.
var stressGraphs = [][]byte{acc32Graph, sumGraph, wideGraph(7)}

// stressWorker decodes rounds times through s, each round a graph of
// stressGraphs picked by r, loaded through s (a cache hit after the first
// load), fed a [1, 1, w] input in [-130, 130] (so both clamps bite and the
// check refuses), as one decode or as two through a sequence. Every result
// is compared with == against the CPU reference ref run in step: equal
// outputs, or refusals with the same code.
func stressWorker(s *Session, fab string, ref []*cpuref.Program, r *rand.Rand, rounds int) error {
	for n := range rounds {
		k := r.IntN(len(stressGraphs))
		g, err := s.Load(stressGraphs[k])
		if err != nil {
			return err
		}
		if g.Fabric().Name() != fab {
			return fmt.Errorf("graph %d on %s, want %s", k, g.Fabric().Name(), fab)
		}
		w := 1 + r.IntN(4)
		steps := 1
		got, want := whg1.Decoder(g), whg1.Decoder(ref[k])
		if len(g.Model.Inputs) > 1 { // the sum: its state through a sequence
			steps = 2
			got, want = stateless{g.Sequence()}, stateless{whg1.NewSequence(ref[k].Graph(), ref[k])}
		}
		for range steps {
			x := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: w}, Data: make([]int64, w)}
			for i := range x.Data {
				x.Data[i] = r.Int64N(261) - 130
			}
			in := []*tensor.T{x}
			gout, gerr := got.Decode(in, nil)
			wout, werr := want.Decode(in, nil)
			if gerr != nil || werr != nil {
				if conform.CodeOf(gerr) == "" || conform.CodeOf(gerr) != conform.CodeOf(werr) {
					return fmt.Errorf("round %d, graph %d: %s %v, the reference %v", n, k, fab, gerr, werr)
				}
				continue
			}
			for o := range wout {
				if gout[o].Shape != wout[o].Shape {
					return fmt.Errorf("round %d, graph %d, output %d: %s shape %v, the reference %v", n, k, o, fab, gout[o].Shape, wout[o].Shape)
				}
				if i := firstDiff(gout[o].Data, wout[o].Data); i >= 0 {
					return fmt.Errorf("round %d, graph %d, output %d, element %d: %s %d, the reference %d", n, k, o, i, fab, gout[o].Data[i], wout[o].Data[i])
				}
			}
		}
	}
	return nil
}

// firstDiff is the first index where equal-length a and b differ, or -1.
func firstDiff(a, b []int64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// stateless gives a Sequence the Decoder signature; data holds its data
// inputs only.
type stateless struct{ s *whg1.Sequence }

func (d stateless) Decode(data []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return d.s.Decode(data, scalars)
}

// Sixteen goroutines share one CPU session while one more decodes on the
// GL fabric, every result equal to the CPU reference's. Run under -race
// in CI. Without a GL fabric the test fails where a GPU is required (gputest), and runs
// the sixteen alone otherwise.
func TestStressSharedSession(t *testing.T) {
	ref := make([]*cpuref.Program, len(stressGraphs))
	for k, b := range stressGraphs {
		p, _, err := cpuref.LoadBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		ref[k] = p
	}
	cpu, err := NewSession(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	var wg sync.WaitGroup
	errs := make(chan error, 17)
	run := func(s *Session, fab string, seed uint64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := stressWorker(s, fab, ref, rand.New(rand.NewPCG(seed, 18)), rounds); err != nil {
				errs <- fmt.Errorf("%s worker %d: %w", fab, seed, err)
			}
		}()
	}
	var gpuS *Session
	if _, gerr := fabric.OpenGPU(); gputest.Have(t, gerr) {
		if gpuS, err = NewSession(fabric.Options{Fabric: fabric.GPU}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 16 {
		run(cpu, "cpu", uint64(i))
	}
	if gpuS != nil {
		defer gpuS.Close()
		run(gpuS, "gpu", 16)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
