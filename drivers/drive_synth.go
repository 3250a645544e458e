package drivers

import (
	"encoding/binary"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

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
// the decoder it loaded allows it (plan.Graph does).
type SynthSet struct {
	set   *Set
	dec   whg1.Decoder
	model *whg1.Graph
}

// LoadSynth lowers the set (§13.1's load checks, the certificate at
// acc64) and loads its synth graph on load. Every refusal is
// payload_malformed (§4).
func LoadSynth(load fabric.Loader, set []byte) (*SynthSet, error) {
	lowered, err := Lower(IntSynth, nil, []File{{Name: "int_synth.json", Data: set}})
	if err != nil {
		return nil, err
	}
	dec, err := lowered.Load(load, "synth")
	if err != nil {
		return nil, lowered.recode(err)
	}
	return &SynthSet{set: lowered, dec: dec, model: lowered.Role("synth").Graph}, nil
}

// Set is the lowered set, with its certificate.
func (s *SynthSet) Set() *Set { return s.set }

// Decoder is the loaded synth graph.
func (s *SynthSet) Decoder() whg1.Decoder { return s.dec }

// plan reads a payload and plans its decode (§4 run steps 1–3, once): the
// latents are the synth graph's input, and the graph must give [3, H, W]
// with the payload's H and W (§13.0, §13.1 Driver). Every refusal is
// payload_malformed (§4).
func (s *SynthSet) plan(payload []byte) (*whg1.Planned, error) {
	p, err := ParseSynthPayload(payload)
	if err != nil {
		return nil, err
	}
	r, err := s.model.PlanData([]*tensor.T{p.Latents}, nil)
	if err != nil {
		return nil, s.set.recode(err)
	}
	want := tensor.Shape{C: 3, H: p.H, W: p.W}
	if got := r.Plan().Shapes[s.model.Outputs[0]]; got != want {
		return nil, malformed("the synthesis gives %v, the payload declares %v", got, want)
	}
	return r, nil
}

// Decode decodes one payload through the synth graph (§13.1): the frame
// as a [3, H, W] tensor of bytes. Every refusal is payload_malformed (§4).
func (s *SynthSet) Decode(payload []byte) (*tensor.T, error) {
	r, err := s.plan(payload)
	if err != nil {
		return nil, err
	}
	out, err := whg1.DecodePlanned(s.dec, r)
	if err != nil {
		return nil, s.set.recode(err)
	}
	return out[0], nil
}

// DecodeWith decodes one payload through run in place of the loaded
// decoder (a caller that keeps the frame on a device): the payload is read,
// checked and planned as Decode does, run is given that plan (to decode
// without planning again), and a refusal run returns is recoded
// payload_malformed (§4).
func (s *SynthSet) DecodeWith(payload []byte, run func(r *whg1.Planned) error) error {
	r, err := s.plan(payload)
	if err != nil {
		return err
	}
	return s.set.recode(run(r))
}

// DecodeSynth loads the set and decodes one payload: LoadSynth, then
// SynthSet.Decode.
func DecodeSynth(load fabric.Loader, set, payload []byte) (*tensor.T, error) {
	s, err := LoadSynth(load, set)
	if err != nil {
		return nil, err
	}
	return s.Decode(payload)
}
