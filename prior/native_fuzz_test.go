package prior

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
)

// FuzzNative reads arbitrary native artifacts (WHM1 and WSR1, docs/READINGS.md D-D)
// through a binding into each form (§10.3, Encoding). A refusal carries a
// §13 code; an artifact that encodes loads back (§10.3) to its binding and
// to the very same native bytes, in every form.
func FuzzNative(f *testing.F) {
	for _, ext := range []string{".whm1", ".wsr1", ".bin"} {
		seedCorpus(f, ext)
	}
	f.Fuzz(func(t *testing.T, native []byte) {
		for _, form := range Forms {
			file, name, err := Encode(form, native)
			if err != nil {
				spectest.Refusal(t, err, NativeMalformed, BindingMismatch, ValueOutOfRange)
				continue
			}
			got, back, err := Load(form, file)
			if err != nil {
				t.Fatalf("%s: the encoded file does not load: %v", form, err)
			}
			if got != name || !bytes.Equal(back, native) {
				t.Fatalf("%s: loads as %s\n%x\nfrom %s\n%x", form, got, back, name, native)
			}
		}
	})
}
