package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/waiops/waiops/decoder"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
)

func init() {
	commands["view int_synth"] = command{summary: "show an int_synth payload decoding live in a window (integer-operators §13.1)", run: runViewSynth}
	commands["view world"] = command{summary: "show a world/1 clip decoding live in a window, stepped by the arrow keys (integer-operators §13.5, informative)", run: runViewWorld}
}

// viewKeys is what the viewer's keys do, for its usage text.
const viewKeys = "keys: space pause, →/← step an action row (world), s save the frame as PNG, q or Esc quit"

// viewFlags are the flags every view command takes beside its inputs.
type viewFlags struct {
	fabric *string
	scale  *int
	frames *int
	save   *string
	paused *bool
}

func addViewFlags(fs *flag.FlagSet) viewFlags {
	return viewFlags{
		fabric: fabricFlag(fs, "auto", graphFabrics),
		scale:  fs.Int("scale", 0, "show each pixel as an N×N square (0: the largest whole factor up to 8 that keeps the window within 512 pixels)"),
		frames: fs.Int("frames", 0, "decode N frames, then quit (0: until q, Esc or the window closes)"),
		save:   fs.String("save", ".", "the directory where s writes view_NNNN.png"),
		paused: fs.Bool("paused", false, "start paused on the first frame"),
	}
}

const viewUsage = " [--scale N] [--frames N] [--save DIR] [--paused] "

// viewSource gives the frames a view shows: next is the next frame as
// playback decodes it, step moves one action row forward (+1) or back (−1).
type viewSource interface {
	next() (*decoder.Frame, error)
	step(dir int) (*decoder.Frame, error)
}

// synthSource decodes one payload again for every frame: a live decode.
// On the GL fabric the frame stays on the device (the previous one is
// released when the next is made).
type synthSource struct {
	s       *decoder.Synth
	payload []byte
	device  bool
	cur     *decoder.Frame
}

func (v *synthSource) next() (*decoder.Frame, error) {
	decode := v.s.Decode
	if v.device {
		decode = v.s.DecodeOnDevice
	}
	f, err := decode(v.payload)
	if err != nil {
		return v.cur, err
	}
	if v.cur != nil {
		v.cur.Close() // a device frame's memory; nothing for a host one
	}
	v.cur = f
	return f, nil
}

func (v *synthSource) step(int) (*decoder.Frame, error) { return v.cur, nil }

// worldSource plays a clip row by row and starts it again from z0 after
// the last row. The frames of the clip so far are kept, so that ← goes
// back a row and → forward again without decoding.
type worldSource struct {
	w    *decoder.World
	z0   []byte
	rows [][]int64
	clip *decoder.Clip
	seen []*decoder.Frame // frame i is after i rows
	at   int              // the frame shown
}

func (v *worldSource) start() (*decoder.Frame, error) {
	z0, err := decoder.ParseLatent(v.z0)
	if err != nil {
		return nil, err
	}
	if v.clip, err = v.w.Start(z0); err != nil {
		return nil, err
	}
	v.seen, v.at = []*decoder.Frame{v.clip.Frame()}, 0
	return v.seen[0], nil
}

func (v *worldSource) next() (*decoder.Frame, error) {
	if v.clip == nil || v.at == len(v.rows) {
		return v.start()
	}
	return v.step(1)
}

func (v *worldSource) step(dir int) (*decoder.Frame, error) {
	switch {
	case dir < 0:
		v.at = max(v.at-1, 0)
	case v.at+1 < len(v.seen):
		v.at++
	case v.at < len(v.rows):
		f, err := v.clip.Step(v.rows[v.at])
		if err != nil {
			return nil, err
		}
		v.seen = append(v.seen, f)
		v.at++
	}
	return v.seen[v.at], nil
}

// runViewSynth is `waiops view int_synth --set int_synth.json --payload P
// [--fabric auto|cpu|gpu|hybrid] [--scale N] [--frames N] [--save DIR]`.
func runViewSynth(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("view int_synth", stderr)
	setUsage(fs, "--set int_synth.json --payload P"+viewUsage+fabricUsage(graphFabrics)+"\n"+viewKeys)
	set := fs.String("set", "", "the set's int_synth.json")
	payload := fs.String("payload", "", "the int_synth payload: u16 H, W, C, S, a zero byte, then the i8 latents [C][S][S], little-endian (docs/READINGS.md)")
	vf := addViewFlags(fs)
	if _, ok := positionals(fs, args, 0, func() bool { return *set != "" && *payload != "" && *vf.scale >= 0 && *vf.frames >= 0 }); !ok {
		return 2
	}
	in, err := readFiles(*set, *payload)
	if err != nil {
		return fail(err, stderr)
	}
	d, err := openDecoder(*vf.fabric, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	defer d.Close()
	s, err := d.LoadSynth(in[0])
	if err != nil {
		return fail(err, stderr)
	}
	// On the GL fabric the frames stay on the device (rgba8 layout, then
	// the texture upload from that buffer); elsewhere they come through
	// the host.
	src := &synthSource{s: s, payload: in[1], device: s.Fabric() == fabric.GPU}
	return view(src, "int_synth", string(s.Fabric()), vf, stdout, stderr)
}

// runViewWorld is `waiops view world --T T.whm --gs g_s.whm --z0 Z.json
// --rows R.json [--fabric …] [--scale N] [--frames N] [--save DIR]`.
func runViewWorld(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("view world", stderr)
	setUsage(fs, "--T T.whm --gs g_s.whm --z0 Z.json --rows R.json"+viewUsage+fabricUsage(graphFabrics)+"\n"+viewKeys)
	tPath := fs.String("T", "", "the transition network T.whm")
	gsPath := fs.String("gs", "", "the synthesis network g_s.whm")
	z0Path := fs.String("z0", "", "the initial latent, an integer-operators §14.1 tensor")
	rowsPath := fs.String("rows", "", "the action rows: a JSON array of rows of A moves")
	vf := addViewFlags(fs)
	if _, ok := positionals(fs, args, 0, func() bool {
		return *tPath != "" && *gsPath != "" && *z0Path != "" && *rowsPath != "" && *vf.scale >= 0 && *vf.frames >= 0
	}); !ok {
		return 2
	}
	in, err := readFiles(*tPath, *gsPath, *z0Path, *rowsPath)
	if err != nil {
		return fail(err, stderr)
	}
	rows, err := decoder.ParseRows(in[3])
	if err != nil {
		return fail(err, stderr)
	}
	d, err := openDecoder(*vf.fabric, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	defer d.Close()
	w, err := d.LoadWorld(in[0], in[1])
	if err != nil {
		return fail(err, stderr)
	}
	if err := w.CheckRows(rows); err != nil { // before the window opens
		return fail(err, stderr)
	}
	src := &worldSource{w: w, z0: in[2], rows: rows}
	return view(src, "world", worldFabric(w), vf, stdout, stderr)
}

// autoScale is the largest whole factor up to 8 that keeps a w×h frame
// within 512 pixels on its longer side, at least 1.
func autoScale(w, h int) int {
	return max(1, min(8, 512/max(w, h)))
}

// view opens the window on the source's first frame and runs until q,
// Esc, the window's close, or --frames decoded frames; it prints the
// frames per second on exit.
func view(src viewSource, kind, fabric string, vf viewFlags, stdout, stderr io.Writer) int {
	frame, err := src.next()
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stderr, "fabric:", fabric)
	fw, fh := frame.Width(), frame.Height()
	scale := *vf.scale
	if scale == 0 {
		scale = autoScale(fw, fh)
	}
	dev, err := gpu.Open()
	if err != nil {
		return fail(fmt.Errorf("view needs a window: %w", err), stderr)
	}
	title := func(fps float64, paused bool) string {
		s := fmt.Sprintf("waiops view %s | %s | %.1f fps", kind, fabric, fps)
		if paused {
			s += " | paused"
		}
		return s
	}
	win, err := dev.NewWindow(title(0, *vf.paused), fw*scale, fh*scale)
	if err != nil {
		return fail(err, stderr)
	}
	defer win.Close()
	// The frames per second count the frames decoded and shown once the
	// window is open.
	t0, decoded := time.Now(), 0
	paused, saved := *vf.paused, 0
	mark, markN := time.Now(), decoded // the title's fps window
	for {
		if err := frame.Show(win, scale); err != nil {
			return fail(err, stderr)
		}
		keys, closing, err := win.Events()
		if err != nil {
			return fail(err, stderr)
		}
		quit := closing || *vf.frames > 0 && decoded >= *vf.frames
		for _, k := range keys {
			switch k {
			case gpu.KeyQ, gpu.KeyEscape:
				quit = true
			case gpu.KeySpace:
				paused = !paused
				win.SetTitle(title(0, paused))
			case gpu.KeyRight, gpu.KeyLeft:
				dir := 1
				if k == gpu.KeyLeft {
					dir = -1
				}
				if frame, err = src.step(dir); err != nil {
					return fail(err, stderr)
				}
			case gpu.KeyS:
				p, err := frame.PNG()
				if err == nil {
					path := filepath.Join(*vf.save, fmt.Sprintf("view_%04d.png", saved))
					if err = os.WriteFile(path, p, 0o644); err == nil {
						fmt.Fprintln(stdout, "saved", path)
						saved++
					}
				}
				if err != nil {
					return fail(err, stderr)
				}
			}
		}
		if quit {
			break
		}
		if paused {
			time.Sleep(15 * time.Millisecond)
			continue
		}
		if frame, err = src.next(); err != nil {
			return fail(err, stderr)
		}
		decoded++
		if el := time.Since(mark); el >= 500*time.Millisecond {
			win.SetTitle(title(float64(decoded-markN)/el.Seconds(), false))
			mark, markN = time.Now(), decoded
		}
	}
	path := "host" // how frames reached the window
	if frame.OnDevice() {
		path = "device"
	}
	el := time.Since(t0)
	fmt.Fprintf(stdout, "fps: %.1f (%d frames in %.2fs, fabric %s, scale %d, path %s)\n", float64(decoded)/el.Seconds(), decoded, el.Seconds(), fabric, scale, path)
	return 0
}
