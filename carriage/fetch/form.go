package fetch

import (
	"github.com/waiops/waiops/refusal"
)

// The codes of a pin's declared form (prior-carriage §2; form_unreadable is
// SPEC §3.1's, READINGS D-H10).
const (
	FormNotRegistered refusal.Code = "form_not_registered"
	FormUnreadable    refusal.Code = "form_unreadable"
)

// How a plain fetch holds a set of each registered prior form (§3, §18.2,
// §19): one file under its digest, or a wai.prior.set listing and its
// files. A sealed set and a chunk-tree head are registered forms that this
// fetch does not read: a sealed set is held through its key (`prior open`,
// §18.2) and a tree through its pieces (`prior fetch-tree`, §19.2), as the
// reference sink's pin verifier reads neither (§18.2, §19.2).
var pinForms = map[string]bool{
	"":                      false, // undeclared: the capability's one file (§2)
	"wai.prior.safetensors": false,
	"wai.prior.gguf":        false,
	"wai.prior.nnc":         false,
	"wai.prior.set":         true,
}

// PinForm applies §2 to a pin's declared form before anything is fetched: a
// form that is not a registered prior form is form_not_registered, one this
// fetch cannot read is form_unreadable. listing reports whether the digest
// names a wai.prior.set listing.
func PinForm(form string) (listing bool, err error) {
	if l, ok := pinForms[form]; ok {
		return l, nil
	}
	switch form {
	case "wai.prior.sealed":
		return false, refusal.New(FormUnreadable, "form %s: a fetch by pin reads no sealed set; hold its bytes as a one-file set and open it with its key (prior-carriage §18.2)", form)
	case "wai.prior.tree":
		return false, refusal.New(FormUnreadable, "form %s: a fetch by pin reads no tree head; fetch the set piece by piece against the head (prior-carriage §19.2)", form)
	}
	return false, refusal.New(FormNotRegistered, "form %q is not a registered prior form (prior-carriage §2, §3)", form)
}
