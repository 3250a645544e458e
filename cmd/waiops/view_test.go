package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/internal/setcorpus"
)

// The viewer's tests drive the built command as a person would: a window
// on the X display, a screenshot of it (xwd), keys pressed through the X
// server (xdotool). Without a display or those tools they skip, or fail
// where a GPU is required (gputest.Need).

// viewer builds the command once and checks the display and the tools.
func viewer(t *testing.T) string {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		gputest.Need(t, fmt.Errorf("no DISPLAY for the viewer's window (start Xvfb, see scripts/setup.sh)"))
	}
	if _, err := gpu.Open(); err != nil { // a build without cgo, or no GL 4.3
		gputest.Need(t, fmt.Errorf("no GL context for the viewer's window: %v", err))
	}
	for _, tool := range []string{"xwd", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			gputest.Need(t, fmt.Errorf("%s is missing (scripts/setup.sh installs it): %v", tool, err))
		}
	}
	return builtCommand(t)
}

// viewing is one running viewer.
type viewing struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	window         string // the X window id
	done           chan error
}

// startView runs the viewer with args and waits for its window. An X
// server busy with the last viewer's departure sometimes refuses the next
// connection at once ("Failed to open display"); that start is tried again
// after a pause, up to five times.
func startView(t *testing.T, args ...string) *viewing {
	t.Helper()
	for try := 1; ; try++ {
		v, refused := startOnce(t, args)
		if !refused {
			return v
		}
		if try == 5 {
			t.Fatalf("the X server refused the viewer %d times:\n%s", try, v.stderr.String())
		}
		t.Logf("the X server refused the viewer's connection; again in 500ms")
		time.Sleep(500 * time.Millisecond)
	}
}

// startOnce starts the viewer and waits for its window; refused reports
// an exit because the display could not be opened.
func startOnce(t *testing.T, args []string) (v *viewing, refused bool) {
	t.Helper()
	v = &viewing{cmd: exec.Command(viewer(t), args...), done: make(chan error, 1)}
	v.cmd.Stdout, v.cmd.Stderr = &v.stdout, &v.stderr
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { v.done <- v.cmd.Wait() }()
	t.Cleanup(func() {
		if v.cmd.ProcessState == nil {
			v.cmd.Process.Kill()
			<-v.done
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("xdotool", "search", "--all", "--onlyvisible", "--pid", fmt.Sprint(v.cmd.Process.Pid), "--name", "^waiops view").Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			v.window = ids[0]
			return v, false
		}
		select {
		case err := <-v.done:
			if strings.Contains(v.stderr.String(), "Failed to open display") {
				return v, true
			}
			t.Fatalf("the viewer exited before its window showed: %v\n%s%s", err, v.stdout.String(), v.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("no viewer window within 60s:\n%s", v.stderr.String())
	return nil, false
}

// key presses a key in the viewer's window as a keyboard would: the window
// takes the input focus, then XTEST presses and releases the key (events
// sent to the window with XSendEvent are now and then not delivered).
func (v *viewing) key(t *testing.T, name string) {
	t.Helper()
	if out, err := exec.Command("xdotool", "windowfocus", "--sync", v.window).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowfocus: %v %s", err, out)
	}
	out, err := exec.Command("xdotool", "key", name).CombinedOutput()
	if err != nil && name != "q" && name != "Escape" {
		// After q or Esc the window may be gone before xdotool is done.
		t.Fatalf("xdotool key %s: %v %s", name, err, out)
	}
}

// wait waits for the viewer to exit and returns its exit code.
func (v *viewing) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-v.done:
		return v.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("the viewer did not exit:\n%s%s", v.stdout.String(), v.stderr.String())
		return -1
	}
}

// screenshot is the window's pixels as xwd dumps them, read as RGB.
func (v *viewing) screenshot(t *testing.T) *image.NRGBA {
	t.Helper()
	out, err := exec.Command("xwd", "-id", v.window, "-silent").Output()
	if err != nil {
		t.Fatalf("xwd: %v", err)
	}
	img, err := readXWD(out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// readXWD reads an X window dump of 24-bit TrueColor pixels in 32-bit
// units (what Xvfb's 24-bit screen gives): a big-endian header of 25
// 32-bit fields then the window name, the colour map, and the rows.
func readXWD(b []byte) (*image.NRGBA, error) {
	if len(b) < 100 {
		return nil, fmt.Errorf("xwd: %d bytes", len(b))
	}
	f := func(i int) uint32 { return binary.BigEndian.Uint32(b[4*i:]) }
	headerSize, format, w, h := f(0), f(2), int(f(4)), int(f(5))
	byteOrder, bpp, bpl := f(7), f(11), int(f(12))
	masks := [3]uint32{f(14), f(15), f(16)}
	ncolors := int(f(19))
	if format != 2 || bpp != 32 {
		return nil, fmt.Errorf("xwd: format %d, %d bits per pixel (want ZPixmap, 32)", format, bpp)
	}
	at := int(headerSize) + 12*ncolors
	if at+h*bpl > len(b) || bpl < 4*w {
		return nil, fmt.Errorf("xwd: %d bytes for %d rows of %d", len(b), h, bpl)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			p := b[at+y*bpl+4*x:]
			px := binary.LittleEndian.Uint32(p)
			if byteOrder == 1 {
				px = binary.BigEndian.Uint32(p)
			}
			for c, m := range masks {
				v := px & m
				for m&1 == 0 {
					m, v = m>>1, v>>1
				}
				img.Pix[4*(y*w+x)+c] = byte(v)
			}
			img.Pix[4*(y*w+x)+3] = 255
		}
	}
	return img, nil
}

// scaledEqual reports where a window's pixels differ from a frame shown at
// a whole-number scale from its top-left corner ("" when they do not).
func scaledEqual(win, frame *image.NRGBA, scale int) string {
	fw, fh := frame.Rect.Dx(), frame.Rect.Dy()
	if win.Rect.Dx() < fw*scale || win.Rect.Dy() < fh*scale {
		return fmt.Sprintf("the window is %v, the frame %dx%d at scale %d", win.Rect, fw, fh, scale)
	}
	for y := range fh * scale {
		for x := range fw * scale {
			a := win.Pix[y*win.Stride+4*x:][:3]
			b := frame.Pix[(y/scale)*frame.Stride+4*(x/scale):][:3]
			if !bytes.Equal(a, b) {
				return fmt.Sprintf("window (%d, %d) is %v, frame (%d, %d) is %v", x, y, a, x/scale, y/scale, b)
			}
		}
	}
	return ""
}

// matches screenshots the window until it shows frame at scale (the first
// swap may come after the window maps), or fails.
func (v *viewing) matches(t *testing.T, frame *image.NRGBA, scale int) {
	t.Helper()
	var why string
	for range 100 {
		if why = scaledEqual(v.screenshot(t), frame, scale); why == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the window does not show the frame: %s", why)
}

// decodedDemo is the demo's PNG as `waiops decode` writes it, read back.
func decodedDemo(t *testing.T) *image.NRGBA {
	out := filepath.Join(t.TempDir(), "demo.png")
	if so, se, rc := run("decode", "int_synth", "--set", demoSet, "--payload", demoPayload, "--out", out, "--fabric", "cpu"); rc != 0 {
		t.Fatalf("decode: rc %d %s%s", rc, so, se)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return decodePNG(t, b)
}

// TestViewShowsTheDemo: on each fabric, the window shows the demo at
// scale 3 pixel for pixel as `waiops decode` wrote it, and q quits with 0;
// on the gpu fabric the frames reach the window from the device buffer
// (path device), on the cpu through the host.
func TestViewShowsTheDemo(t *testing.T) {
	want := decodedDemo(t)
	for f, path := range map[string]string{"cpu": "host", "gpu": "device"} {
		t.Run(f, func(t *testing.T) {
			v := startView(t, "view", "int_synth", "--set", demoSet, "--payload", demoPayload, "--scale", "3", "--fabric", f)
			v.matches(t, want, 3)
			v.key(t, "q")
			if rc := v.wait(t); rc != 0 || !strings.Contains(v.stderr.String(), "fabric: "+f+"\n") || !strings.HasPrefix(v.stdout.String(), "fps: ") || !strings.Contains(v.stdout.String(), "path "+path+")") {
				t.Errorf("rc %d, stdout %q, stderr %q", rc, v.stdout.String(), v.stderr.String())
			}
		})
	}
}

// TestViewKeys: s saves the frame shown (the decode's pixels) and q quits
// with exit code 0; in a world clip started paused, → shows the frame
// after the first action row and ← the first again, as `waiops decode
// world` writes them.
func TestViewKeys(t *testing.T) {
	want := decodedDemo(t)
	dir := t.TempDir()
	v := startView(t, "view", "int_synth", "--set", demoSet, "--payload", demoPayload, "--save", dir, "--fabric", "cpu")
	v.key(t, "s")
	saved := filepath.Join(dir, "view_0000.png")
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(saved); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	v.key(t, "q")
	if rc := v.wait(t); rc != 0 || !strings.Contains(v.stdout.String(), "saved "+saved+"\n") {
		t.Fatalf("rc %d, stdout %q, stderr %q", rc, v.stdout.String(), v.stderr.String())
	}
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodePNG(t, b); got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
		t.Error("the saved frame is not the decode's")
	}

	// A world clip: the corpus's pair on a 16×16 latent, two rows.
	tb, gb := setcorpus.SampleWorld()
	files := map[string][]byte{"T.whm": tb, "g_s.whm": gb, "rows.json": []byte("[[1, 0, 0], [0, -2, 0]]")}
	var z strings.Builder
	z.WriteString(`{"shape": [2, 16, 16], "data": [`)
	for i := range 2 * 16 * 16 {
		if i > 0 {
			z.WriteString(", ")
		}
		fmt.Fprint(&z, (i*37)%161-80)
	}
	z.WriteString("]}")
	files["z0.json"] = []byte(z.String())
	for n, b := range files {
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	in := []string{"--T", filepath.Join(dir, "T.whm"), "--gs", filepath.Join(dir, "g_s.whm"), "--z0", filepath.Join(dir, "z0.json"), "--rows", filepath.Join(dir, "rows.json")}
	frames := filepath.Join(dir, "frames")
	if so, se, rc := run(append([]string{"decode", "world", "--out", frames, "--fabric", "cpu"}, in...)...); rc != 0 {
		t.Fatalf("decode world: rc %d %s%s", rc, so, se)
	}
	frame := func(i int) *image.NRGBA {
		b, err := os.ReadFile(filepath.Join(frames, fmt.Sprintf("frame_%04d.png", i)))
		if err != nil {
			t.Fatal(err)
		}
		return decodePNG(t, b)
	}
	w := startView(t, append([]string{"view", "world", "--paused", "--scale", "4", "--fabric", "cpu"}, in...)...)
	w.matches(t, frame(0), 4)
	w.key(t, "Right")
	w.matches(t, frame(1), 4)
	w.key(t, "Right")
	w.matches(t, frame(2), 4)
	w.key(t, "Left")
	w.matches(t, frame(1), 4)
	w.key(t, "Escape")
	if rc := w.wait(t); rc != 0 {
		t.Errorf("rc %d, stderr %q", rc, w.stderr.String())
	}
}
