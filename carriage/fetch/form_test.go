package fetch

import "testing"

// TestPinForm: §2's two refusals of a declared form, and the listing forms.
func TestPinForm(t *testing.T) {
	for _, c := range []struct {
		form    string
		listing bool
		code    string
	}{
		{"", false, ""},
		{"wai.prior.safetensors", false, ""},
		{"wai.prior.gguf", false, ""},
		{"wai.prior.nnc", false, ""},
		{"wai.prior.set", true, ""},
		{"wai.prior.sealed", false, "form_unreadable"},
		{"wai.prior.tree", false, "form_unreadable"},
		{"wai.prior.other", false, "form_not_registered"},
		{"WAI.PRIOR.SET", false, "form_not_registered"},
	} {
		listing, err := PinForm(c.form)
		if got := string(code(err)); got != c.code || listing != c.listing {
			t.Errorf("%q: listing %v, code %q; want %v, %q", c.form, listing, got, c.listing, c.code)
		}
	}
}
