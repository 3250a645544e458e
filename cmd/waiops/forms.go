package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/waiops/waiops/prior"
)

// One --form vocabulary for every prior command: the spec's form names
// (prior-carriage §2, §3), wai.prior.safetensors, wai.prior.gguf,
// wai.prior.nnc, wai.prior.set, wai.prior.sealed and wai.prior.tree. Each
// command says which of them it takes. The shorter spellings that scripts
// already use stay accepted: the bare names (safetensors, gguf, nnc) for
// the tensor files, and --inner-form for --form in seal and tree.

// formPrefix is what the spec's form names of the tensor files add to
// package prior's names (prior-carriage §9: wai.prior.safetensors is
// prior.Safetensors).
const formPrefix = "wai.prior."

// fileFormFlag adds --form to fs for the commands that read or write one
// tensor file (prior load, encode, inspect).
func fileFormFlag(fs *flag.FlagSet) *string {
	return fs.String("form", "", "the file's form (prior-carriage §9, §12): wai.prior.safetensors, wai.prior.gguf or wai.prior.nnc (the bare safetensors, gguf, nnc too); default: told by the file's extension, else its first bytes")
}

// fileFormUsage is --form's values as the usage lines show them.
const fileFormUsage = "wai.prior.safetensors|wai.prior.gguf|wai.prior.nnc"

// namedFileForm reads a --form value of fileFormFlag's, the spec's name or
// the bare one.
func namedFileForm(name string) (prior.Form, error) {
	short := strings.TrimPrefix(name, formPrefix)
	for _, f := range prior.Forms {
		if string(f) == short {
			return f, nil
		}
	}
	return "", fmt.Errorf("--form %q is not wai.prior.safetensors, wai.prior.gguf or wai.prior.nnc", name)
}

// innerFormFlag adds --form to fs, with --inner-form, its older spelling,
// setting the same value: the inner form of a sealed set or a tree.
func innerFormFlag(fs *flag.FlagSet, help string) *string {
	v := new(string)
	fs.StringVar(v, "form", "", help)
	fs.StringVar(v, "inner-form", "", olderSpelling+"--form")
	return v
}

// olderSpelling opens the help of a flag kept for the command lines that
// use it; a usage line names the newer flag only.
const olderSpelling = "older spelling of "
