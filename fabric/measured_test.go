package fabric

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/waiops/waiops/tensor"
)

// fake is a decoder that answers out after sleeping for delay, counting
// its decodes.
type fake struct {
	out   int64
	delay time.Duration
	calls int
}

func (f *fake) Decode(in []*tensor.T, _ []int64) ([]*tensor.T, error) {
	f.calls++
	time.Sleep(f.delay)
	return []*tensor.T{{Shape: in[0].Shape, Data: []int64{f.out}}}, nil
}

// TestRouteString: the ratio in tenths, floored, from integer nanoseconds.
func TestRouteString(t *testing.T) {
	for _, c := range []struct {
		r    Route
		want string
	}{
		{Route{GPUNS: 10, CPUNS: 23}, "gpu (2.3× cpu)"},
		{Route{GPUNS: 41, CPUNS: 10}, "cpu (4.1× gpu)"},
		{Route{GPUNS: 10, CPUNS: 10}, "cpu (1.0× gpu)"},
		{Route{GPUNS: 1, CPUNS: 100, Differ: true}, "cpu (the gpu's outputs differ from the cpu's)"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// TestMeasured: the first decode of a size class runs the GPU twice and
// the CPU once and keeps the faster (here the CPU, the GPU sleeping 40 ms
// a decode); later decodes of the class, and a new Measured reading the
// routes file, take the route without measuring; a new size class is
// measured again; outputs that differ route to the CPU.
func TestMeasured(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	x := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 2}, Data: []int64{1, 2}}}
	gpu, cpu := &fake{out: 7, delay: 40 * time.Millisecond}, &fake{out: 7}
	var notes bytes.Buffer
	dev := map[string]string{"renderer": "test"}
	m := NewMeasured(gpu, cpu, [32]byte{1}, dev, OpenRoutes(), &notes)
	for range 3 {
		out, err := m.Decode(x, nil)
		if err != nil || !slices.Equal(out[0].Data, []int64{7}) {
			t.Fatalf("%v, %v", out, err)
		}
	}
	if gpu.calls != 2 || cpu.calls != 3 || m.Route()[:4] != "cpu " || notes.String() != "fabric: "+m.Route()+"\n" {
		t.Fatalf("gpu %d, cpu %d decodes, route %q, notes %q", gpu.calls, cpu.calls, m.Route(), notes.String())
	}
	gpu2, cpu2 := &fake{out: 7}, &fake{out: 7}
	m2 := NewMeasured(gpu2, cpu2, [32]byte{1}, dev, OpenRoutes(), nil)
	if _, err := m2.Decode(x, nil); err != nil || gpu2.calls != 0 || cpu2.calls != 1 {
		t.Fatalf("from the file: %v, gpu %d, cpu %d decodes", err, gpu2.calls, cpu2.calls)
	}
	big := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 4}, Data: make([]int64, 4)}}
	if _, err := m2.Decode(big, nil); err != nil || gpu2.calls != 2 {
		t.Fatalf("a new size class: %v, gpu %d decodes", err, gpu2.calls)
	}
	bad := NewMeasured(&fake{out: 8}, &fake{out: 7}, [32]byte{2}, dev, OpenRoutes(), nil)
	out, err := bad.Decode(x, nil)
	if err != nil || out[0].Data[0] != 7 || bad.Route() != "cpu (the gpu's outputs differ from the cpu's)" {
		t.Fatalf("differing outputs: %v, %v, %q", out, err, bad.Route())
	}
}
