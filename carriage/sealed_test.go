package carriage

import (
	"bytes"
	"crypto/aes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func key16(t testing.TB, s string) (k [16]byte) {
	copy(k[:], unhex(t, s))
	return k
}

// TestCTRKnownAnswer: NIST SP 800-38A F.5.1, CTR-AES128.Encrypt.
func TestCTRKnownAnswer(t *testing.T) {
	key := key16(t, "2b7e151628aed2a6abf7158809cf4f3c")
	iv := key16(t, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
	pt := unhex(t, "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
	want := unhex(t, "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee")
	var got bytes.Buffer
	if err := ctr(key, iv, &got, bytes.NewReader(pt), uint64(len(pt))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("got %x\nwant %x", got.Bytes(), want)
	}
}

// TestCTRCounter: §18.2's counter is one 128-bit big-endian integer. The
// key stream of zeros, block by block, is the encipherment of iv, iv + 1,
// iv + 2, …, written out here by hand across the 64-bit carry and the
// 2^128 wrap.
func TestCTRCounter(t *testing.T) {
	key := key16(t, "000102030405060708090a0b0c0d0e0f")
	block, _ := aes.NewCipher(key[:])
	for _, c := range []struct {
		iv       string
		counters []string
	}{
		{"00000000000000000000000000000000", []string{"00000000000000000000000000000000", "00000000000000000000000000000001", "00000000000000000000000000000002"}},
		{"0000000000000000fffffffffffffffe", []string{"0000000000000000fffffffffffffffe", "0000000000000000ffffffffffffffff", "00000000000000010000000000000000"}},
		{"00ffffffffffffffffffffffffffffff", []string{"00ffffffffffffffffffffffffffffff", "01000000000000000000000000000000", "01000000000000000000000000000001"}},
		{"fffffffffffffffffffffffffffffffe", []string{"fffffffffffffffffffffffffffffffe", "ffffffffffffffffffffffffffffffff", "00000000000000000000000000000000"}},
	} {
		// 3 blocks and 5 bytes: the last block partial. TestCTRCounterLong
		// has the carries inside longer runs.
		n := 16*len(c.counters) + 5
		var got bytes.Buffer
		if err := ctr(key, key16(t, c.iv), &got, bytes.NewReader(make([]byte, n)), uint64(n)); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, ctrHex := range c.counters {
			out := make([]byte, 16)
			block.Encrypt(out, unhex(t, ctrHex))
			want = append(want, out...)
		}
		if !bytes.Equal(got.Bytes()[:len(want)], want) {
			t.Errorf("iv %s: key stream %x, want %x", c.iv, got.Bytes()[:len(want)], want)
		}
	}
}

// TestCTRCounterLong: the carry across the low 64 bits, and the 2^128
// wrap, inside runs of many blocks (where AES's counter mode works eight
// blocks at a time) and at the start of ctr's second 64 KiB buffer. Block j
// of the key stream must be the encipherment of iv + j mod 2^128, the sum
// computed here with math/big, each block enciphered on its own.
func TestCTRCounterLong(t *testing.T) {
	key := key16(t, "000102030405060708090a0b0c0d0e0f")
	block, _ := aes.NewCipher(key[:])
	for _, c := range []struct {
		iv     string
		blocks int
	}{
		{"0123456789abcdeffffffffffffffffb", 40},           // the carry at block 5
		{"fffffffffffffffffffffffffffffffd", 40},           // the 2^128 wrap at block 3
		{"00000000000000aaffffffffffffffff", 9},            // the carry at block 1
		{"0000000000000000fffffffffffff000", chunk/16 + 8}, // the carry at ctr's second buffer
	} {
		n := 16*c.blocks + 5
		var got bytes.Buffer
		if err := ctr(key, key16(t, c.iv), &got, bytes.NewReader(make([]byte, n)), uint64(n)); err != nil {
			t.Fatal(err)
		}
		iv, _ := new(big.Int).SetString(c.iv, 16)
		mod := new(big.Int).Lsh(big.NewInt(1), 128)
		want := make([]byte, 0, 16*(c.blocks+1))
		for j := 0; j <= c.blocks; j++ {
			v := new(big.Int).Add(iv, big.NewInt(int64(j)))
			var counter, out [16]byte
			v.Mod(v, mod).FillBytes(counter[:])
			block.Encrypt(out[:], counter[:])
			want = append(want, out[:]...)
		}
		if !bytes.Equal(got.Bytes(), want[:n]) {
			t.Errorf("iv %s: the key stream is not AES(iv + j) block by block", c.iv)
		}
	}
}

var (
	testKey   = [16]byte{0: 0x54, 15: 0x4b}
	testKID   = [16]byte{0: 0x01, 15: 0x02}
	testIV    = [16]byte{8: 0xff, 15: 0xf0}
	otherKey  = [16]byte{0: 0x55}
	goodUsage = []byte(statement(`"CC-BY-4.0"`, `"https://example.com/terms"`))
)

func sealBytes(t testing.TB, plain []byte, form string, usage []byte) []byte {
	var out bytes.Buffer
	h := Header{InnerForm: form, KID: testKID, IV: testIV, Usage: usage}
	if _, _, err := Seal(&out, bytes.NewReader(plain), int64(len(plain)), testKey, h); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func openBytes(b []byte, keys Keys) ([]byte, *Opened, error) {
	var out bytes.Buffer
	o, err := Open(bytes.NewReader(b), int64(len(b)), keys, &out)
	return out.Bytes(), o, err
}

func TestSealLayout(t *testing.T) {
	plain := []byte("a set of nineteen b")
	b := sealBytes(t, plain, "wai.prior.gguf", goodUsage)
	k, u := len("wai.prior.gguf"), len(goodUsage)
	// §18.2: exactly 81 + k + u + L bytes, each field at its offset.
	if len(b) != 81+k+u+19 {
		t.Fatalf("%d bytes, want %d", len(b), 81+k+u+19)
	}
	inner := sha256.Sum256(plain)
	switch {
	case string(b[:4]) != "WSK1" || b[4] != 14 || string(b[5:5+k]) != "wai.prior.gguf":
		t.Errorf("magic, k or form wrong: %q", b[:5+k])
	case !bytes.Equal(b[5+k:21+k], testKID[:]), !bytes.Equal(b[21+k:37+k], testIV[:]):
		t.Errorf("kid or iv wrong")
	case !bytes.Equal(b[37+k:69+k], inner[:]):
		t.Errorf("inner wrong")
	case binary.LittleEndian.Uint32(b[69+k:]) != uint32(u) || !bytes.Equal(b[73+k:73+k+u], goodUsage):
		t.Errorf("u or the statement wrong")
	case binary.LittleEndian.Uint64(b[73+k+u:]) != 19:
		t.Errorf("L wrong")
	}
	got, o, err := openBytes(b, Keys{testKID: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, plain) || o.Header.Inner != inner || o.Sealed != sha256.Sum256(b) || o.Header.InnerForm != "wai.prior.gguf" {
		t.Errorf("opened %q, %x", got, o.Sealed)
	}
	// The ciphertext is the plaintext under CTR from iv.
	var ct bytes.Buffer
	if err := ctr(testKey, testIV, &ct, bytes.NewReader(plain), 19); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[81+k+u:], ct.Bytes()) {
		t.Errorf("ciphertext is not CTR from iv")
	}
}

// TestOpenChecks: each of §18.2's five checks, broken one way at a time,
// and where two break, the first in §18.2's order is the reason.
func TestOpenChecks(t *testing.T) {
	plain := bytes.Repeat([]byte("wai"), 100)
	good := sealBytes(t, plain, "", goodUsage)
	u := len(goodUsage)
	keys := Keys{testKID: testKey}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	le32 := func(b []byte, at int, v uint32) []byte { binary.LittleEndian.PutUint32(b[at:], v); return b }
	le64 := func(b []byte, at int, v uint64) []byte { binary.LittleEndian.PutUint64(b[at:], v); return b }
	badUsage := []byte(statement(`"MIT  OR BSD"`, `null`))
	badBoth := sealRaw(t, plain, "", badUsage)
	// withForm puts form in place of the empty inner form of b.
	withForm := func(form string, b ...byte) []byte {
		if b == nil {
			b = good
		}
		h := append([]byte("WSK1"), byte(len(form)))
		h = append(h, form...)
		return append(h, b[5:]...)
	}
	// A statement of 65 537 bytes, held in the file: step 1 refuses u
	// before step 3 would refuse the statement.
	heldU := binary.LittleEndian.AppendUint32(bytes.Clone(good[:69]), 65537)
	heldU = append(heldU, make([]byte, 65537)...)
	heldU = append(binary.LittleEndian.AppendUint64(heldU, 1), 0)
	for _, c := range []struct {
		name string
		b    []byte
		keys Keys
		code refusal.Code
	}{
		{"good", good, keys, ""},
		{"empty", nil, keys, SealedMalformed},
		{"4 bytes", good[:4], keys, SealedMalformed},
		{"magic", edit(func(b []byte) []byte { b[3] = '2'; return b }), keys, SealedMalformed},
		{"k 65", edit(func(b []byte) []byte { b[4] = 65; return b }), keys, SealedMalformed},
		{"k 65, a form of 65 bytes", withForm(strings.Repeat("a", 65)), keys, SealedMalformed},
		{"ends inside kid", good[:20], keys, SealedMalformed},
		{"ends inside the statement", good[:73+u-1], keys, SealedMalformed},
		{"ends inside L", good[:81+u-1], keys, SealedMalformed},
		{"inner form byte", withForm("wai.prior gguf"), keys, SealedMalformed},
		{"u 65537", edit(func(b []byte) []byte { return le32(b, 69, 65537) }), keys, SealedMalformed},
		{"u past the file", edit(func(b []byte) []byte { return le32(b, 69, 65536) }), keys, SealedMalformed},
		{"L 0", edit(func(b []byte) []byte { return le64(b, 73+u, 0) }), keys, SealedMalformed},
		{"L 0, no ciphertext", edit(func(b []byte) []byte { return le64(b[:81+u], 73+u, 0) }), keys, SealedMalformed},
		{"u 65537, held", heldU, keys, SealedMalformed},
		{"L 2^40 + 1", edit(func(b []byte) []byte { return le64(b, 73+u, 1<<40+1) }), keys, SealedMalformed},
		{"L 2^40, past the file", edit(func(b []byte) []byte { return le64(b, 73+u, 1<<40) }), keys, SealedMalformed},
		{"L one short", edit(func(b []byte) []byte { return le64(b, 73+u, 299) }), keys, SealedMalformed},
		{"a byte more", append(append([]byte(nil), good...), 0), keys, SealedMalformed},
		{"a byte less", good[:len(good)-1], keys, SealedMalformed},
		{"form wai.prior.set", withForm("wai.prior.set"), keys, SealedInnerForm},
		{"form wai.prior.sealed", withForm("wai.prior.sealed"), keys, SealedInnerForm},
		{"form wai.prior.tree", withForm("wai.prior.tree"), keys, SealedInnerForm},
		{"form wai.prior.nnc", withForm("wai.prior.nnc"), keys, SealedInnerForm},
		{"form case", withForm("WAI.PRIOR.GGUF"), keys, SealedInnerForm},
		{"bad statement", sealRaw(t, plain, "", badUsage), keys, SetUsageMalformed},
		{"bad statement, form not admitted", withForm("wai.prior.set", badBoth...), keys, SealedInnerForm},
		{"bad statement, form byte", withForm("wai prior", badBoth...), keys, SealedMalformed},
		{"no key", good, Keys{}, SetKeyAbsent},
		{"another kid", good, Keys{{9}: testKey}, SetKeyAbsent},
		{"bad statement, no key", sealRaw(t, plain, "", badUsage), Keys{}, SetUsageMalformed},
		{"another key", good, Keys{testKID: otherKey}, SetKeyMismatch},
		{"ciphertext byte", edit(func(b []byte) []byte { b[len(b)-7] ^= 1; return b }), keys, SetKeyMismatch},
		{"inner misstated", edit(func(b []byte) []byte { b[37] ^= 0x80; return b }), keys, SetKeyMismatch},
		{"iv misstated", edit(func(b []byte) []byte { b[36] ^= 1; return b }), keys, SetKeyMismatch},
	} {
		got, o, err := openBytes(c.b, c.keys)
		var r *refusal.Error
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.code == "" && !bytes.Equal(got, plain):
			t.Errorf("%s: plaintext differs", c.name)
		case c.code == "" && o.Sealed != sha256.Sum256(c.b):
			t.Errorf("%s: sealed identity differs", c.name)
		case c.code != "" && (!errors.As(err, &r) || r.Code != c.code):
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// sealRaw seals with a statement Seal itself would refuse.
func sealRaw(t *testing.T, plain []byte, form string, usage []byte) []byte {
	good := sealBytes(t, plain, form, goodUsage)
	k, u := len(form), len(goodUsage)
	b := append([]byte(nil), good[:69+k]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(usage)))
	b = append(b, usage...)
	return append(b, good[73+k+u:]...)
}

func TestSealRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		size  int
		form  string
		usage []byte
		code  refusal.Code
	}{
		{"empty plaintext", 0, "", nil, SealedMalformed},
		{"form not admitted", 1, "wai.prior.set", nil, SealedInnerForm},
		{"form of 65 bytes", 1, string(bytes.Repeat([]byte("a"), 65)), nil, SealedMalformed},
		{"bad statement", 1, "", []byte("{}"), SetUsageMalformed},
		{"statement of 65537 bytes", 1, "", make([]byte, 65537), SealedMalformed},
	} {
		_, _, err := Seal(io.Discard, bytes.NewReader(make([]byte, c.size)), int64(c.size), testKey, Header{InnerForm: c.form, Usage: c.usage})
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func TestReadKeys(t *testing.T) {
	k, err := ReadKeys([]byte(`{"0100000000000000000000000000000a":"544b0000000000000000000000000000"}`))
	if err != nil || k[[16]byte{0: 1, 15: 10}] != [16]byte{0: 0x54, 1: 0x4b} {
		t.Errorf("%v %v", k, err)
	}
	for _, bad := range []string{
		`{"0100000000000000000000000000000A":"544b0000000000000000000000000000"}`,
		`{"01":"544b0000000000000000000000000000"}`,
		`{"0100000000000000000000000000000a":"544b"}`,
		`{"0100000000000000000000000000000a":1}`,
		`{"0100000000000000000000000000000a":"544b0000000000000000000000000000","0100000000000000000000000000000a":"544b0000000000000000000000000000"}`,
		`[]`,
	} {
		if _, err := ReadKeys([]byte(bad)); err == nil {
			t.Errorf("%s: admitted", bad)
		}
	}
}

// pattern is a plaintext of any length made on demand, so no test holds
// the whole of it: byte i is patternTable[i mod 65521], a prime period
// that no power-of-two buffer lines up with.
type pattern int64

var patternTable = func() []byte {
	t := make([]byte, 65521)
	for i := range t {
		t[i] = byte(i ^ i>>8 ^ i>>13)
	}
	return t
}()

func (p pattern) ReadAt(b []byte, off int64) (int, error) {
	if off >= int64(p) {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), int64(p)-off))
	for i := 0; i < n; {
		i += copy(b[i:n], patternTable[(off+int64(i))%int64(len(patternTable)):])
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// TestOpenGiB opens a sealed set of 1 GiB as Seal streams it, through a
// pipe, and requires the bytes allocated meanwhile, and the heap's
// growth, to stay under 64 MiB: nothing of L's size is held (§18.2). The
// plaintext goes to a hash, the output a caller would
// write. (A pipe rather than a file in a temporary directory: on the
// shared test machine writing 1 GiB to disk took four times the CPU time
// of the test.)
func TestOpenGiB(t *testing.T) {
	if testing.Short() {
		t.Skip("seals and opens 1 GiB")
	}
	const size = 1 << 30
	h := Header{KID: testKID, IV: testIV, Usage: goodUsage}
	pr, pw := io.Pipe()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sealed := make(chan error, 1)
	go func() {
		_, _, err := Seal(pw, pattern(size), size, testKey, h)
		pw.CloseWithError(err)
		sealed <- err
	}()
	out := sha256.New()
	o, err := Open(pr, h.Size()+size, Keys{testKID: testKey}, out)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-sealed; err != nil {
		t.Fatal(err)
	}
	if [32]byte(out.Sum(nil)) != o.Header.Inner || o.Header.Length != size {
		t.Fatal("the opened plaintext is not the sealed one")
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	grown := int64(after.HeapSys) - int64(before.HeapSys)
	t.Logf("sealing and opening 1 GiB allocated %d bytes in all; the heap grew by %d bytes", alloc, grown)
	if alloc >= 64<<20 || grown >= 64<<20 {
		t.Errorf("sealing and opening 1 GiB allocated %d bytes, heap grew %d: past 64 MiB", alloc, grown)
	}
}

func benchSet(b *testing.B) []byte {
	plain := make([]byte, 16<<20)
	pattern(len(plain)).ReadAt(plain, 0)
	return plain
}

func BenchmarkSeal(b *testing.B) {
	plain := benchSet(b)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		if _, _, err := Seal(io.Discard, bytes.NewReader(plain), int64(len(plain)), testKey, Header{KID: testKID, IV: testIV}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	plain := benchSet(b)
	var sealed bytes.Buffer
	if _, _, err := Seal(&sealed, bytes.NewReader(plain), int64(len(plain)), testKey, Header{KID: testKID, IV: testIV}); err != nil {
		b.Fatal(err)
	}
	s := sealed.Bytes()
	keys := Keys{testKID: testKey}
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		if _, err := Open(bytes.NewReader(s), int64(len(s)), keys, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHeaderEdges: §18.2's layout on the admitted side of each bound. k =
// 64 of '!' to '~' passes step 1 (step 2 then refuses the form); u = 65 536
// holding a statement that reads passes steps 1 to 3; L = 2^40 passes step
// 1 when the file is 81 + k + u + 2^40 bytes (the size stated, the
// ciphertext not read), and L = 2^40 + 1 of a file that long does not.
func TestHeaderEdges(t *testing.T) {
	fixed := func(form string, usage []byte, l uint64) []byte {
		h := Header{InnerForm: form, KID: testKID, IV: testIV, Usage: usage, Length: l}
		return h.Marshal()
	}
	code := func(err error) refusal.Code {
		var r *refusal.Error
		if errors.As(err, &r) {
			return r.Code
		}
		return ""
	}
	form64 := strings.Repeat("~", 64)
	if _, err := ReadHeader(bytes.NewReader(fixed(form64, nil, 1)), 81+64+1); code(err) != SealedInnerForm {
		t.Errorf("k 64: %v, want sealed_inner_form", err)
	}
	// A statement padded with whitespace to exactly 65 536 bytes.
	s := []byte(statement(`"MIT"`, `null`))
	s = append(s, bytes.Repeat([]byte(" "), MaxUsage-len(s))...)
	h, err := ReadHeader(bytes.NewReader(fixed("", s, 1)), 81+MaxUsage+1)
	if err != nil || len(h.Usage) != MaxUsage {
		t.Errorf("u 65536: %v", err)
	}
	size := int64(81 + len(goodUsage) + 1<<40)
	if h, err := ReadHeader(bytes.NewReader(fixed("", goodUsage, 1<<40)), size); err != nil || h.Length != 1<<40 {
		t.Errorf("L 2^40: %v", err)
	}
	if _, err := ReadHeader(bytes.NewReader(fixed("", goodUsage, 1<<40+1)), size+1); code(err) != SealedMalformed {
		t.Errorf("L 2^40 + 1: %v, want sealed_malformed", err)
	}
}
