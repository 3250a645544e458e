//go:build cgo

package decoder

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
)

// loseEnv makes TestAutoAfterLossChild run: the GPU loss it forces lasts
// for its process, so it runs as a child of TestAutoAfterLoss.
const loseEnv = "WAIOPS_DECODER_LOSE_GPU"

// An Auto decoder whose GPU is lost mid-run (a reset, forced on the real
// GL device by SimulateReset) moves its set to the CPU reference: the next
// decode gives the same picture, the set's fabric is the CPU, and Note
// says why. It needs a GL context (llvmpipe will do: SoftwareGL lets Auto
// use it); without one it skips (gputest.Need).
func TestAutoAfterLoss(t *testing.T) {
	gputest.Device(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAutoAfterLossChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), loseEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestAutoAfterLossChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestAutoAfterLossChild(t *testing.T) {
	if os.Getenv(loseEnv) == "" {
		t.Skip("runs only as a child of TestAutoAfterLoss")
	}
	set, payload := demo(t)
	d, err := Open(fabric.Options{Fabric: fabric.Auto, SoftwareGL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := d.LoadSynth(set)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fabric() != fabric.GPU || d.Note() != "" {
		t.Fatalf("before the loss: on %s, note %q", s.Fabric(), d.Note())
	}
	before, err := s.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := gpu.Open()
	if err != nil {
		t.Fatal(err)
	}
	dev.SimulateReset()
	after, err := s.Decode(payload)
	if err != nil {
		t.Fatalf("the decode that met the loss: %v", err)
	}
	if !bytes.Equal(before.RGB(), after.RGB()) {
		t.Fatal("the CPU's picture differs from the GPU's")
	}
	if s.Fabric() != fabric.CPU || !strings.Contains(d.Note(), "GL context is lost") {
		t.Fatalf("after the loss: on %s, note %q", s.Fabric(), d.Note())
	}
	if _, err := s.DecodeOnDevice(payload); err == nil {
		t.Fatal("DecodeOnDevice after the loss: no error")
	}
}
