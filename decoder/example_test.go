package decoder_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image/png"
	"log"
	"os"

	"github.com/waiops/waiops/decoder"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
)

// Decode the demo set (examples/demo) to a PNG: open once, load the set
// once, decode. The picture is the same on every fabric, so the digest
// does not depend on the machine.
func Example() {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.Auto})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	set, err := os.ReadFile("../examples/demo/int_synth.json")
	if err != nil {
		log.Fatal(err)
	}
	payload, err := os.ReadFile("../examples/demo/payload.bin")
	if err != nil {
		log.Fatal(err)
	}
	s, err := d.LoadSynth(set)
	if err != nil {
		log.Fatal(err)
	}
	f, err := s.Decode(payload)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, f); err != nil { // a Frame is an image.Image
		log.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("png", img.Bounds().Dx(), "x", img.Bounds().Dy())
	fmt.Printf("rgb sha256 %x\n", sha256.Sum256(f.RGB()))
	// Output:
	// png 204 x 204
	// rgb sha256 c7d29811ea31735d5b936290b176723d2951eaeceb86e9e45d427bfc72a00fdc
}

// worldPair is the §14.3 corpus's world/1 pair: the WHM1 networks T and
// g_s, as committed under vectors/certificates.
func worldPair() (t, gs []byte) {
	set := "../vectors/certificates/wai.world.model/f163e40fa3214752c362345d0fc62fa76c6f3ca0b2ebbf6512f20a784574d2ea/set/"
	t, err := os.ReadFile(set + "T.whm")
	if err != nil {
		log.Fatal(err)
	}
	if gs, err = os.ReadFile(set + "g_s.whm"); err != nil {
		log.Fatal(err)
	}
	return t, gs
}

// Render a world/1 clip: frame 0 from the latent, then one frame per
// action row (here A = 3: a move dx, dy and a third plane).
func ExampleWorld_Render() {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	w, err := d.LoadWorld(worldPair())
	if err != nil {
		log.Fatal(err)
	}
	z0, err := decoder.ParseLatent([]byte(`{"shape": [2, 2, 2], "data": [40, -30, 20, 0, 100, 5, -60, 90]}`))
	if err != nil {
		log.Fatal(err)
	}
	frames, err := w.Render(z0, [][]int64{{1, 0, 0}, {0, -1, 0}})
	if err != nil {
		log.Fatal(err)
	}
	for i, f := range frames {
		fmt.Println("frame", i, f.Bounds().Dx(), "x", f.Bounds().Dy(), f.RGB()[:6])
	}
	// Output:
	// frame 0 2 x 2 [255 255 0 255 255 255]
	// frame 1 2 x 2 [255 255 0 255 255 0]
	// frame 2 2 x 2 [0 0 255 255 255 0]
}

// Step a clip one action row at a time: the clip carries its latent from
// frame to frame, as a viewer does when a key moves the agent.
func ExampleClip_Step() {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	w, err := d.LoadWorld(worldPair())
	if err != nil {
		log.Fatal(err)
	}
	z0, err := decoder.ParseLatent([]byte(`{"shape": [2, 2, 2], "data": [40, -30, 20, 0, 100, 5, -60, 90]}`))
	if err != nil {
		log.Fatal(err)
	}
	c, err := w.Start(z0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("start", c.Frame().RGB()[:6])
	for _, row := range [][]int64{{1, 0, 0}, {0, -1, 0}} {
		f, err := c.Step(row)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("after", row, f.RGB()[:6])
	}
	// A row of the wrong length is refused and leaves the clip as it was.
	_, err = c.Step([]int64{1})
	fmt.Println(err)
	// Output:
	// start [255 255 0 255 255 255]
	// after [1 0 0] [255 255 0 255 255 0]
	// after [0 -1 0] [0 0 255 255 255 0]
	// model_mismatch: row 0 has 1 entries; the set has A = 3
}

// Tell a refused input from a failure: every refusal the specification
// defines is a *refusal.Error carrying its code.
func Example_refusal() {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	set, err := os.ReadFile("../examples/demo/int_synth.json")
	if err != nil {
		log.Fatal(err)
	}
	s, err := d.LoadSynth(set)
	if err != nil {
		log.Fatal(err)
	}
	_, err = s.Decode([]byte{204, 0, 204, 0, 3, 0}) // a payload cut short
	var r *refusal.Error
	if errors.As(err, &r) {
		fmt.Println("refused:", r.Code)
	}
	// Output:
	// refused: payload_malformed
}

// Load a set by its §13 lowering, here int_synth/1 through the generic
// entry, and decode its one graph directly: the latent tensor in, the
// synthesis output out. Close lets the Decoder evict its graphs.
func ExampleDecoder_Load() {
	d, err := decoder.Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	set, err := os.ReadFile("../examples/demo/int_synth.json")
	if err != nil {
		log.Fatal(err)
	}
	s, err := d.Load(decoder.IntSynth, decoder.LoadOptions{}, decoder.File{Name: "int_synth.json", Data: set})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	fmt.Println(s.Roles(), s.Graph("synth").Fabric())
	// Output:
	// [synth] cpu
}
