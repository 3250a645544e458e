package drivers

import (
	"encoding/binary"
	"fmt"

	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Loader loads one lowered graph on a fabric and says which fabric will run
// it. The command wraps the planner's Session in one (plan.Session.Load);
// CPU is the reference.
type Loader func(b []byte) (whg1.Decoder, *whg1.Graph, string, error)

// CPU loads through the certifier at acc64 and the CPU reference.
func CPU(b []byte) (whg1.Decoder, *whg1.Graph, string, error) {
	p, _, err := cpuref.LoadBytes(b)
	if err != nil {
		return nil, nil, "", err
	}
	return p, p.Graph(), "cpu", nil
}

// Frame is one decoded picture as row-major HWC RGB8 bytes.
type Frame struct {
	H, W int
	RGB  []byte
}

// frameOf lays a [3, H, W] tensor out as HWC bytes. Every graph that feeds
// it ends in clamp(0, 255) or the RGB8 step, so each value is a byte.
func frameOf(t *tensor.T) (Frame, error) {
	s := t.Shape
	if s.C != 3 {
		return Frame{}, refusal.New(refusal.ModelMismatch, "the output has %d channels, not 3", s.C)
	}
	f := Frame{H: s.H, W: s.W, RGB: make([]byte, 3*s.H*s.W)}
	for c := range 3 {
		for i, v := range t.Data[c*s.H*s.W : (c+1)*s.H*s.W] {
			if v < 0 || v > 255 {
				return Frame{}, fmt.Errorf("drivers: output value %d is not a byte: the graph lacks its output step", v)
			}
			f.RGB[3*i+c] = byte(v)
		}
	}
	return f, nil
}

// SynthPayload is the int_synth payload of docs/READINGS.md D-D: u16 H, W, C, S,
// a reserved zero byte, then i8 latents [C][S][S].
type SynthPayload struct {
	H, W    int
	Latents *tensor.T
}

// ParseSynthPayload reads the payload; anything else is payload_malformed.
func ParseSynthPayload(b []byte) (*SynthPayload, error) {
	if len(b) < 9 {
		return nil, malformed("payload of %d bytes is shorter than its 9-byte header", len(b))
	}
	u16 := func(i int) int { return int(binary.LittleEndian.Uint16(b[2*i:])) }
	h, w, c, s := u16(0), u16(1), u16(2), u16(3)
	if b[8] != 0 {
		return nil, malformed("reserved byte is %d, not 0", b[8])
	}
	if c < 1 || s < 1 || h < 1 || w < 1 {
		return nil, malformed("H %d, W %d, C %d, S %d must each be at least 1", h, w, c, s)
	}
	// C, S < 2^16, so C·S·S < 2^48: no overflow.
	if n := c * s * s; len(b)-9 != n {
		return nil, malformed("%d latent bytes, want C·S·S = %d", len(b)-9, n)
	}
	t := tensor.New(tensor.Shape{C: c, H: s, W: s})
	for i := range t.Data {
		t.Data[i] = int64(int8(b[9+i]))
	}
	return &SynthPayload{H: h, W: w, Latents: t}, nil
}

// SynthSet is an int_synth set lowered, certified and loaded once (§13.1);
// Decode turns payloads into frames, from several goroutines at once when
// the Loader's decoder allows it (plan.Session's do).
type SynthSet struct {
	set    *Set
	dec    whg1.Decoder
	model  *whg1.Graph
	Fabric string // the fabric the loader picked for the synth graph
}

// LoadSynth lowers the set (§13.1's load checks, the certificate at
// acc64) and loads its synth graph. Every refusal is payload_malformed (§4).
func LoadSynth(load Loader, set []byte) (*SynthSet, error) {
	lowered, err := Lower(IntSynth, nil, []File{{Name: "int_synth.json", Data: set}})
	if err != nil {
		return nil, err
	}
	dec, model, fabric, err := load(lowered.Graph("synth"))
	if err != nil {
		return nil, lowered.recode(err)
	}
	return &SynthSet{set: lowered, dec: dec, model: model, Fabric: fabric}, nil
}

// Set is the lowered set, with its certificate.
func (s *SynthSet) Set() *Set { return s.set }

// Latents reads a payload and checks it against the set: the graph plans
// on the latents' shape and gives [3, H, W] with the payload's H and W
// (§13.0, §13.1 Driver). They are the synth graph's input. Every refusal
// is payload_malformed (§4).
func (s *SynthSet) Latents(payload []byte) (*tensor.T, error) {
	p, err := ParseSynthPayload(payload)
	if err != nil {
		return nil, err
	}
	pl, err := s.model.PlanRun([]tensor.Shape{p.Latents.Shape}, nil)
	if err != nil {
		return nil, s.set.recode(err)
	}
	want := tensor.Shape{C: 3, H: p.H, W: p.W}
	if got := pl.Shapes[s.model.Outputs[0]]; got != want {
		return nil, malformed("the synthesis gives %v, the payload declares %v", got, want)
	}
	return p.Latents, nil
}

// Decode decodes one payload through the synth graph (§13.5). Every
// refusal is payload_malformed (§4).
func (s *SynthSet) Decode(payload []byte) (Frame, error) {
	z, err := s.Latents(payload)
	if err != nil {
		return Frame{}, err
	}
	out, err := s.dec.Decode([]*tensor.T{z}, nil)
	if err != nil {
		return Frame{}, s.set.recode(err)
	}
	return frameOf(out[0])
}

// DecodeWith decodes one payload through run in place of the loaded
// decoder (a caller that keeps the frame on a device): the payload is read
// and checked as Decode does, and a refusal run returns is recoded
// payload_malformed (§4).
func (s *SynthSet) DecodeWith(payload []byte, run func(latents *tensor.T) error) error {
	z, err := s.Latents(payload)
	if err != nil {
		return err
	}
	return s.set.recode(run(z))
}

// DecodeSynth loads the set and decodes one payload: LoadSynth, then
// SynthSet.Decode. It returns the frame and the fabric that ran.
func DecodeSynth(load Loader, set, payload []byte) (Frame, string, error) {
	s, err := LoadSynth(load, set)
	if err != nil {
		return Frame{}, "", err
	}
	f, err := s.Decode(payload)
	return f, s.Fabric, err
}
