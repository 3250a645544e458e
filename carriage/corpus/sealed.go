package corpus

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/prior"
	"github.com/waiops/waiops/refusal"
)

// §18.2's sealed sets: title (a per-title safetensors prior sealed with a
// content-derived statement) and generic (a capability's one file, sealed
// form-less with no statement), opened and refused.

// The corpus's published test key (docs/READINGS.md D-H8): it protects nothing.
// Each is 16 ASCII bytes, written in hex.
const (
	TestKey   = "7761692d6f70732074657374206b6579" // "wai-ops test key"
	TestKID   = "7761692d6f70732074657374206b6964" // "wai-ops test kid"
	WrongKey  = "7761692d6f70732077726f6e67206b79" // "wai-ops wrong ky"
	titleIV   = "7761692d6f7073206976207469746c65" // "wai-ops iv title"
	genericIV = "7761692d6f70732069762067656e6572" // "wai-ops iv gener"
)

// innerForms maps §18.2's admitted inner forms to the form prior reads.
var innerForms = map[string]prior.Form{"wai.prior.safetensors": prior.Safetensors, "wai.prior.gguf": prior.GGUF}

func init() {
	ops["seal"] = opSeal
	ops["open"] = opOpen
	gens = append(gens, genSealed)
	reach = append(reach, carriage.SealedMalformed, carriage.SealedInnerForm, carriage.SetUsageMalformed, carriage.SetKeyAbsent, carriage.SetKeyMismatch)
}

func hex16(in *Inputs, name string) ([16]byte, error) {
	s, err := in.Str(name)
	if err != nil {
		return [16]byte{}, err
	}
	b, err := carriage.Hex16(s)
	if err != nil {
		return b, fmt.Errorf("input %s: %v", name, err)
	}
	return b, nil
}

// opSeal is `seal`: the sealed set's length and SHA-256.
func opSeal(in *Inputs) (any, error) {
	plain, err := in.File("plaintext")
	if err != nil {
		return nil, err
	}
	var h carriage.Header
	if h.InnerForm, err = in.Str("inner_form"); err != nil {
		return nil, err
	}
	key, err := hex16(in, "key")
	if err != nil {
		return nil, err
	}
	if h.KID, err = hex16(in, "kid"); err != nil {
		return nil, err
	}
	if h.IV, err = hex16(in, "iv"); err != nil {
		return nil, err
	}
	if u, err := in.Str("usage"); err != nil {
		return nil, err
	} else if u != "" {
		if h.Usage, err = in.File("usage"); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if _, sum, err := carriage.Seal(&out, bytes.NewReader(plain), int64(len(plain)), key, h); err != nil {
		return nil, err
	} else {
		return map[string]any{"length": out.Len(), "sha256": hex.EncodeToString(sum[:])}, nil
	}
}

// opOpen is `open`: the inner form, both identities, L, and the tensors of
// the plaintext read as its inner form.
func opOpen(in *Inputs) (any, error) {
	b, err := in.File("sealed")
	if err != nil {
		return nil, err
	}
	kb, err := in.File("keys")
	if err != nil {
		return nil, err
	}
	keys, err := carriage.ReadKeys(kb)
	if err != nil {
		return nil, err
	}
	var plain bytes.Buffer
	o, err := carriage.Open(bytes.NewReader(b), int64(len(b)), keys, &plain)
	if err != nil {
		return nil, err
	}
	// §18.2: opened, the plaintext is read as its inner form is read.
	tensors := any("-")
	if f, ok := innerForms[o.Header.InnerForm]; ok {
		file, err := prior.Read(f, plain.Bytes())
		if err != nil {
			return nil, fmt.Errorf("the plaintext does not read as %s: %v", o.Header.InnerForm, err)
		}
		tensors = len(file.Tensors)
	}
	return map[string]any{
		"form": o.Header.InnerForm, "inner": hex.EncodeToString(o.Header.Inner[:]),
		"length": o.Header.Length, "sealed": hex.EncodeToString(o.Sealed[:]), "tensors": tensors,
	}, nil
}

// titlePlain is title's plaintext: a canonical safetensors file of one I32
// tensor, its values a fixed sequence.
func titlePlain() ([]byte, error) {
	data := make([]byte, 4*16*4)
	for i := range 64 {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i*i*2654435761))
	}
	return prior.Write(prior.Safetensors, &prior.File{
		Meta:    map[string]string{"wai.title": "title"},
		Tensors: []prior.Tensor{{Name: "layer.000.weight", DType: "I32", Shape: []uint64{4, 16}, Data: data}},
	})
}

// genericPlain is generic's plaintext, a capability's one file: 1000
// bytes, a whole number of AES blocks and 8 more.
func genericPlain() []byte {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// sealedParts splits a sealed set into its header and ciphertext.
func sealedParts(b []byte) (*carriage.Header, []byte, error) {
	h, err := carriage.ReadHeader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, nil, err
	}
	return h, b[h.Size():], nil
}

func genSealed(g *Gen) {
	tp, err := titlePlain()
	if err != nil {
		g.err = err
		return
	}
	keys := g.File("keys.json", []byte(`{"`+TestKID+`":"`+TestKey+`"}`))
	other := g.File("keys-other-key.json", []byte(`{"`+TestKID+`":"`+WrongKey+`"}`))
	none := g.File("keys-none.json", []byte(`{}`))
	elsewhere := g.File("keys-other-kid.json", []byte(`{"`+strings.Repeat("0", 32)+`":"`+TestKey+`"}`))
	sets := []struct {
		name, form, iv string
		plain, usage   []byte
	}{
		{"title", "wai.prior.safetensors", titleIV, tp, []byte(titleUsage)},
		{"generic", "", genericIV, genericPlain(), nil},
	}
	sealed := map[string][]byte{}
	for _, s := range sets {
		usage := ""
		if s.usage != nil {
			usage = g.File(s.name+"-usage.json", s.usage)
		}
		in := map[string]any{"plaintext": g.File(s.name+".plain", s.plain), "key": TestKey, "kid": TestKID, "iv": s.iv, "inner_form": s.form, "usage": usage}
		var out bytes.Buffer
		h := carriage.Header{InnerForm: s.form, Usage: s.usage}
		h.KID, _ = carriage.Hex16(TestKID)
		h.IV, _ = carriage.Hex16(s.iv)
		key, _ := carriage.Hex16(TestKey)
		if _, _, err := carriage.Seal(&out, bytes.NewReader(s.plain), int64(len(s.plain)), key, h); err != nil {
			g.err = err
			return
		}
		b := g.File(s.name+".wsk1", out.Bytes())
		sealed[s.name] = out.Bytes()
		g.Case("sealed."+s.name+".seal", "seal", in, "")
		g.Case("sealed."+s.name+".open", "open", map[string]any{"sealed": b, "keys": keys}, "")
		g.Case("sealed."+s.name+".no_key", "open", map[string]any{"sealed": b, "keys": none}, carriage.SetKeyAbsent)
		g.Case("sealed."+s.name+".key_of_another_kid", "open", map[string]any{"sealed": b, "keys": elsewhere}, carriage.SetKeyAbsent)
		g.Case("sealed."+s.name+".another_key", "open", map[string]any{"sealed": b, "keys": other}, carriage.SetKeyMismatch)
		changed := bytes.Clone(out.Bytes())
		changed[len(changed)-100] ^= 0x01
		g.Case("sealed."+s.name+".ciphertext_byte", "open", map[string]any{"sealed": g.File("sealed/"+s.name+"_ciphertext_byte.wsk1", changed), "keys": keys}, carriage.SetKeyMismatch)
	}
	// Headers broken one way each, from title's header and ciphertext.
	h, ct, err := sealedParts(sealed["title"])
	if err != nil {
		g.err = err
		return
	}
	// build is title with its header changed by f.
	build := func(f func(h *carriage.Header)) []byte {
		c := *h
		f(&c)
		return append(c.Marshal(), ct...)
	}
	k, u := len(h.InnerForm), len(h.Usage)
	set := func(b []byte, at int, v []byte) []byte { copy(b[at:], v); return b }
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	title := sealed["title"]
	broken := []struct {
		id   string
		b    []byte
		keys string
		code refusal.Code
	}{
		{"magic", set(bytes.Clone(title), 0, []byte("WSK2")), keys, carriage.SealedMalformed},
		{"k_65", build(func(h *carriage.Header) { h.InnerForm = strings.Repeat("w", 65) }), keys, carriage.SealedMalformed},
		{"form_byte", build(func(h *carriage.Header) { h.InnerForm = "wai.prior safetensors" }), keys, carriage.SealedMalformed},
		{"ends_in_kid", title[:5+k+8], keys, carriage.SealedMalformed},
		{"ends_in_statement", title[:73+k+u/2], keys, carriage.SealedMalformed},
		{"u_65537", set(bytes.Clone(title), 69+k, le32(65537)), keys, carriage.SealedMalformed},
		{"u_65537_held", build(func(h *carriage.Header) { h.Usage = make([]byte, 65537) }), keys, carriage.SealedMalformed},
		{"u_past_the_file", set(bytes.Clone(title), 69+k, le32(65536)), keys, carriage.SealedMalformed},
		{"l_0", set(bytes.Clone(title[:81+k+u]), 73+k+u, le64(0)), keys, carriage.SealedMalformed},
		{"l_past_2_40", set(bytes.Clone(title), 73+k+u, le64(1<<40+1)), keys, carriage.SealedMalformed},
		{"l_2_40_past_the_file", set(bytes.Clone(title), 73+k+u, le64(1<<40)), keys, carriage.SealedMalformed},
		{"l_one_short", set(bytes.Clone(title), 73+k+u, le64(h.Length-1)), keys, carriage.SealedMalformed},
		{"a_byte_more", append(bytes.Clone(title), 0), keys, carriage.SealedMalformed},
		{"a_byte_less", title[:len(title)-1], keys, carriage.SealedMalformed},
		{"form_coded_nnc", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.nnc" }), keys, carriage.SealedInnerForm},
		{"form_listing", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.set" }), keys, carriage.SealedInnerForm},
		{"form_sealed", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.sealed" }), keys, carriage.SealedInnerForm},
		{"form_tree", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.tree" }), keys, carriage.SealedInnerForm},
		{"form_unregistered", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.other" }), keys, carriage.SealedInnerForm},
		{"form_listing_no_key", build(func(h *carriage.Header) { h.InnerForm = "wai.prior.set" }), none, carriage.SealedInnerForm},
		{"statement_not_usage", build(func(h *carriage.Header) { h.Usage = []byte(`{"kind":"wai-set-usage"}`) }), keys, carriage.SetUsageMalformed},
		{"statement_not_usage_no_key", build(func(h *carriage.Header) { h.Usage = []byte(`{"kind":"wai-set-usage"}`) }), none, carriage.SetUsageMalformed},
		{"inner_misstated", build(func(h *carriage.Header) { h.Inner[31] ^= 1 }), keys, carriage.SetKeyMismatch},
		{"iv_misstated", build(func(h *carriage.Header) { h.IV[15] ^= 1 }), keys, carriage.SetKeyMismatch},
	}
	for _, c := range broken {
		g.Case("sealed.header."+c.id, "open", map[string]any{"sealed": g.File("sealed/"+c.id+".wsk1", c.b), "keys": c.keys}, c.code)
	}
}
