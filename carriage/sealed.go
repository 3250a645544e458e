package carriage

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// §20's codes for §18.2.
const (
	SealedMalformed refusal.Code = "sealed_malformed"  // step 1
	SealedInnerForm refusal.Code = "sealed_inner_form" // step 2
	SetKeyAbsent    refusal.Code = "set_key_absent"    // step 4: the set is not held (prior_not_held)
	SetKeyMismatch  refusal.Code = "set_key_mismatch"  // step 5
	// PriorNotHeld is SPEC §3.1 check 6's code (docs/READINGS.md D-H10).
	PriorNotHeld refusal.Code = "prior_not_held"
)

// The inner forms §18.2 admits inside a sealed set; "" is a capability's
// one file (a form-less pin).
var SealedForms = []string{"", "wai.prior.safetensors", "wai.prior.gguf"}

// §18.2's layout bounds.
const (
	sealedMagic = "WSK1"
	maxForm     = 64
	MaxSealed   = 1 << 40 // L is 1 to 2^40
)

// Header is a sealed set's header (§18.2), everything before the
// ciphertext.
type Header struct {
	InnerForm string
	KID       [16]byte
	IV        [16]byte
	Inner     [32]byte // the plaintext's SHA-256
	Usage     []byte   // the statement's bytes; empty when u is 0
	Length    uint64   // L, the plaintext's length
}

// Size is the header's length in bytes, L's 8 among them: 81 + k + u.
func (h *Header) Size() int64 { return 81 + int64(len(h.InnerForm)) + int64(len(h.Usage)) }

// Marshal writes the header's bytes (§18.2's table, little-endian), up to
// the ciphertext, as h states them: it checks nothing (Seal does).
func (h *Header) Marshal() []byte {
	b := make([]byte, 0, h.Size())
	b = append(b, sealedMagic...)
	b = append(b, byte(len(h.InnerForm)))
	b = append(b, h.InnerForm...)
	b = append(b, h.KID[:]...)
	b = append(b, h.IV[:]...)
	b = append(b, h.Inner[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.Usage)))
	b = append(b, h.Usage...)
	return binary.LittleEndian.AppendUint64(b, h.Length)
}

// ReadHeader reads a sealed set of size bytes from r, which stands at its
// first byte, through §18.2 steps 1 to 3, and leaves r at the ciphertext.
// No allocation depends on a length the header states until that length
// is known to lie inside size.
func ReadHeader(r io.Reader, size int64) (*Header, error) {
	bad := func(format string, args ...any) (*Header, error) {
		return nil, refusal.New(SealedMalformed, "sealed: "+format, args...)
	}
	// §18.2 step 1: the layout.
	if size < 5 {
		return bad("%d bytes, shorter than the magic and k", size)
	}
	var fixed [5]byte
	if err := readFull(r, fixed[:]); err != nil {
		return nil, err
	}
	if string(fixed[:4]) != sealedMagic {
		return bad("magic %q is not WSK1", fixed[:4])
	}
	k := int64(fixed[4])
	if k > maxForm {
		return bad("k = %d, past 64", k)
	}
	// Through u: 73 + k bytes.
	if size < 73+k {
		return bad("%d bytes end inside the header (k = %d)", size, k)
	}
	mid := make([]byte, k+68) // k ≤ 64
	if err := readFull(r, mid); err != nil {
		return nil, err
	}
	h := &Header{InnerForm: string(mid[:k])}
	for i := 0; i < len(h.InnerForm); i++ {
		if c := h.InnerForm[i]; c < '!' || c > '~' {
			return bad("inner form byte 0x%02x at %d is not '!' to '~'", c, i)
		}
	}
	copy(h.KID[:], mid[k:])
	copy(h.IV[:], mid[k+16:])
	copy(h.Inner[:], mid[k+32:])
	u := int64(binary.LittleEndian.Uint32(mid[k+64:]))
	if u > MaxUsage {
		return bad("u = %d, past 65 536", u)
	}
	if size < 81+k+u {
		return bad("%d bytes end inside the header (k = %d, u = %d)", size, k, u)
	}
	rest := make([]byte, u+8) // u ≤ 65 536, inside size
	if err := readFull(r, rest); err != nil {
		return nil, err
	}
	if u > 0 {
		h.Usage = rest[:u]
	}
	h.Length = binary.LittleEndian.Uint64(rest[u:])
	if h.Length < 1 || h.Length > MaxSealed {
		return bad("L = %d, not 1 to 2^40", h.Length)
	}
	if want := 81 + k + u + int64(h.Length); size != want {
		return bad("the file is %d bytes, not 81 + k + u + L = %d", size, want)
	}
	// §18.2 step 2: the inner form is one §18.2 admits.
	if !slices.Contains(SealedForms, h.InnerForm) {
		return nil, refusal.New(SealedInnerForm, "sealed: inner form %q is not none, wai.prior.safetensors or wai.prior.gguf", h.InnerForm)
	}
	// §18.2 step 3: the usage statement, where u is not 0.
	if u > 0 {
		if _, err := ReadUsage(h.Usage); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// errShort marks a reader that ended before the size its caller stated.
var errShort = errors.New("sealed: the reader ends before its stated size")

// readFull reads len(b) bytes; a reader that ends early is an I/O error
// (its stated size was wrong), not a refusal.
func readFull(r io.Reader, b []byte) error {
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return errShort
		}
		return err
	}
	return nil
}

// Keys are a sink's AES-128 keys by kid (D-H8).
type Keys map[[16]byte][16]byte

// ReadKeys reads a keys file: a JSON object {"<kid hex>": "<key hex>"},
// 32 lower-case hexadecimal digits each, no kid twice (D-H8).
func ReadKeys(b []byte) (Keys, error) {
	v, err := strictjson.Parse(b, 1)
	if err != nil {
		return nil, fmt.Errorf("keys: %v", err)
	}
	if v.Kind != strictjson.Object {
		return nil, fmt.Errorf("keys: not a JSON object")
	}
	keys := Keys{}
	for _, m := range v.Members {
		kid, err := Hex16(m.Name)
		if err != nil {
			return nil, fmt.Errorf("keys: kid %q: %v", m.Name, err)
		}
		if m.Value.Kind != strictjson.String {
			return nil, fmt.Errorf("keys: the key of %s is not a string", m.Name)
		}
		key, err := Hex16(m.Value.Str)
		if err != nil {
			return nil, fmt.Errorf("keys: the key of %s: %v", m.Name, err)
		}
		keys[kid] = key
	}
	return keys, nil
}

// Hex16 reads 16 bytes written as 32 lower-case hexadecimal digits.
func Hex16(s string) ([16]byte, error) {
	var out [16]byte
	if len(s) != 32 {
		return out, fmt.Errorf("%d digits, not 32", len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return out, fmt.Errorf("%q is not a lower-case hexadecimal digit", c)
		}
	}
	_, err := hex.Decode(out[:], []byte(s))
	return out, err
}

// Opened is what Open reports of a sealed set it opened: the header and
// the set's two identities (§18.2), the sealed bytes' SHA-256 (the pin's
// digest) and the plaintext's (Header.Inner).
type Opened struct {
	Header *Header
	Sealed [32]byte
}

// chunk is the streaming buffer of Seal and Open.
const chunk = 1 << 16

// Open reads a sealed set of size bytes from r through §18.2's five checks
// in order and writes the plaintext to w as it decrypts it. On a refusal
// at step 5 w has been written the plaintext under the wrong key; the
// caller discards it (the plaintext is the set only once Open returns
// nil). Memory is a header and a 64 KiB buffer, whatever L is.
func Open(r io.Reader, size int64, keys Keys, w io.Writer) (*Opened, error) {
	sealed := sha256.New()
	r = io.TeeReader(r, sealed)
	h, err := ReadHeader(r, size)
	if err != nil {
		return nil, err
	}
	// §18.2 step 4: the key for kid.
	key, ok := keys[h.KID]
	if !ok {
		return nil, refusal.New(SetKeyAbsent, "sealed: no key for kid %x, so the set is not held (prior_not_held, SPEC §3.1 check 6)", h.KID)
	}
	// §18.2 step 5: the plaintext's SHA-256 is inner.
	plain := sha256.New()
	if err := ctr(key, h.IV, io.MultiWriter(w, plain), r, h.Length); err != nil {
		return nil, err
	}
	var got [32]byte
	plain.Sum(got[:0])
	if got != h.Inner {
		return nil, refusal.New(SetKeyMismatch, "sealed: the plaintext's SHA-256 is %x, not inner %x (another key, or a header that misstates its set): the set is not held", got, h.Inner)
	}
	o := &Opened{Header: h}
	sealed.Sum(o.Sealed[:0])
	return o, nil
}

// ctr writes n bytes of src under AES-128 in counter mode (NIST SP 800-38A
// §6.5) from the counter block iv to dst; encryption and decryption are
// the one operation (§18.2). Go's cipher.NewCTR increments the counter as
// one 128-bit big-endian integer, carrying across all 16 bytes and
// wrapping at 2^128, which is §18.2's counter: both its generic path
// (crypto/cipher/ctr.go, which adds one to the last byte and carries
// toward the first) and AES's own (crypto/internal/fips140/aes/ctr.go,
// which adds to the block as two big-endian 64-bit halves with a carry)
// do so, and TestCTRCounter checks it against blocks enciphered one by
// one.
func ctr(key, iv [16]byte, dst io.Writer, src io.Reader, n uint64) error {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return err
	}
	stream := cipher.NewCTR(block, iv[:])
	buf := make([]byte, chunk)
	for n > 0 {
		m := uint64(len(buf))
		if n < m {
			m = n
		}
		b := buf[:m]
		if err := readFull(src, b); err != nil {
			return err
		}
		stream.XORKeyStream(b, b)
		if _, err := dst.Write(b); err != nil {
			return err
		}
		n -= m
	}
	return nil
}

// Seal writes the sealed set of the size bytes of src (read twice: once
// for inner, once to encrypt) under key to dst, with the header's
// InnerForm, KID, IV and Usage as h gives them, and returns the header it
// wrote and the sealed bytes' SHA-256. It refuses what Open would: a
// header that fails §18.2 steps 1 to 3. §18.2's rule against two
// plaintexts under one key with overlapping counters is the caller's.
func Seal(dst io.Writer, src io.ReaderAt, size int64, key [16]byte, h Header) (*Header, [32]byte, error) {
	var sum [32]byte
	if size < 1 || size > MaxSealed {
		return nil, sum, refusal.New(SealedMalformed, "sealed: a plaintext of %d bytes, not 1 to 2^40", size)
	}
	if len(h.InnerForm) > maxForm {
		return nil, sum, refusal.New(SealedMalformed, "sealed: an inner form of %d bytes, past 64", len(h.InnerForm))
	}
	if len(h.Usage) > MaxUsage {
		return nil, sum, refusal.New(SealedMalformed, "sealed: a usage statement of %d bytes, past 65 536", len(h.Usage))
	}
	inner := sha256.New()
	if _, err := io.Copy(inner, io.NewSectionReader(src, 0, size)); err != nil {
		return nil, sum, err
	}
	out := h
	out.Length = uint64(size)
	inner.Sum(out.Inner[:0])
	head := out.Marshal()
	// Steps 1 to 3 over the header as written (the ciphertext's length
	// stated, not read).
	if _, err := ReadHeader(bytes.NewReader(head), out.Size()+size); err != nil {
		return nil, sum, err
	}
	sealed := sha256.New()
	w := io.MultiWriter(dst, sealed)
	if _, err := w.Write(head); err != nil {
		return nil, sum, err
	}
	if err := ctr(key, h.IV, w, io.NewSectionReader(src, 0, size), uint64(size)); err != nil {
		return nil, sum, err
	}
	sealed.Sum(sum[:0])
	return &out, sum, nil
}
