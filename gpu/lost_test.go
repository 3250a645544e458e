//go:build cgo

package gpu

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// loseEnv makes TestLostContextChild run: it loses the process's one GL
// context, so it runs in a child process of TestLostContext and every
// other test keeps a live one.
const loseEnv = "WAIOPS_LOSE_CONTEXT"

// lostMark starts the line the child prints when every check passed.
const lostMark = "lost-context: ok"

// A context lost mid-run is reported as ErrLost by the next call and every
// later one, never a crash: the child exits 0 and prints lostMark. It is
// lost two ways, each in a child of its own: the context destroyed
// (loseContext: the window destroyed, or the EGL display terminated), and
// a GPU reset as the driver's reset notification reports it
// (SimulateReset, answered through glGetGraphicsResetStatus's check).
func TestLostContext(t *testing.T) {
	openDevice(t) // fails under Required without a context, else skips
	for _, how := range []string{"destroy", "reset"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLostContextChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), loseEnv+"="+how)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), lostMark) {
			t.Fatalf("child (%s): %v\n%s", how, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "ErrLost as:") {
				t.Logf("%s: %s", how, strings.TrimSpace(line))
			}
		}
	}
}

func TestLostContextChild(t *testing.T) {
	if os.Getenv(loseEnv) == "" {
		t.Skip("runs only as a child of TestLostContext")
	}
	d := openDevice(t)
	// y = 2x + 1, as in TestProgramClose.
	conv := &whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 4,
		W:  []int64{2, 0, 0, 2},
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}, Bias: whg1.PostBias, BBytes: 4, BiasV: []int64{1, 1}}}
	b := whg1.Encode(oneOp(whg1.OpConv, conv, []in{{c: 2, lo: -100, hi: 100, h: 1, w: 2}}, 2))
	base := LiveObjects()
	p, err := d.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	q, err := d.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	x := []*tensor.T{{Shape: tensor.Shape{C: 2, H: 1, W: 2}, Data: []int64{-100, 3, 7, 100}}}
	out, err := p.Decode(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{-199, 7, 15, 201}; !slices.Equal(out[0].Data, want) {
		t.Fatalf("before the loss: %v, want %v", out[0].Data, want)
	}

	// Mid-run: four goroutines decode while the context goes; each sees
	// right outputs, then ErrLost on every call after its first.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	started := make(chan bool, 4)
	var failed atomic.Bool // the loss could not be caused: stop
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lostAt := -1
			for n := 0; (n < 50 || lostAt < 0) && !failed.Load(); n++ {
				if n == 2 {
					started <- true
				}
				out, err := q.Decode(x, nil)
				switch {
				case err == nil && lostAt < 0 && slices.Equal(out[0].Data, []int64{-199, 7, 15, 201}):
				case errors.Is(err, ErrLost) && out == nil:
					if lostAt < 0 {
						lostAt = n
					}
				default:
					errs <- fmt.Errorf("decode %d (lost at %d): %v, %v", n, lostAt, out, err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-started
	}
	if os.Getenv(loseEnv) == "reset" {
		d.SimulateReset()
	} else {
		err = d.th.call(func() error { loseContext(d.ctx); return nil })
	}
	failed.Store(err != nil)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	held := LiveObjects() // both programs' parameters and pools

	lost := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrLost) {
			t.Fatalf("%s after the loss: %v, want ErrLost", what, err)
		}
	}
	out, err = p.Decode(x, nil)
	lost("Decode", err)
	if out != nil {
		t.Fatal("Decode after the loss gave outputs")
	}
	fmt.Printf("ErrLost as: %v\n", err)
	_, err = p.Decode(x, nil)
	lost("a second Decode", err)
	_, _, err = q.DecodeSplit(x, nil)
	lost("DecodeSplit", err)
	_, err = d.Features()
	lost("Features", err)
	_, err = d.Load(b)
	lost("Load", err)
	if now := LiveObjects(); now != held {
		t.Fatalf("a Load refused for the loss left %+v, before it %+v", now, held)
	}
	again, err := Open()
	if err != nil || again != d {
		t.Fatalf("Open after the loss: %v, %v; want the lost device", again, err)
	}
	_, err = again.Load(b)
	lost("Load through Open", err)
	// Close forgets what each program held, once.
	for range 2 {
		lost("Close", p.Close())
	}
	if now := LiveObjects(); now.Programs != held.Programs-1 || now.Buffers >= held.Buffers {
		t.Fatalf("after closing one of two programs: %+v, before %+v", now, held)
	}
	lost("Close", q.Close())
	if now := LiveObjects(); now != base {
		t.Fatalf("after closing both: %+v, before loading %+v", now, base)
	}
	_, err = q.Decode(x, nil)
	lost("Decode after Close", err)
	fmt.Println(lostMark)
}
