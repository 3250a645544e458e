package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/waiops/waiops/prior"
)

func init() {
	commands["prior encode"] = command{"write a native WHM1/WSR1 artifact as its canonical prior file (prior-carriage §10.3)", runPriorEncode}
	commands["prior load"] = command{"load a wai-int/1 prior file into its native artifact (prior-carriage §10.3)", runPriorLoad}
	commands["prior inspect"] = command{"show a prior file's form, metadata, tensors and SHA-256 (prior-carriage §9.3)", runPriorInspect}
}

// formFlag adds --form to fs.
func formFlag(fs *flag.FlagSet) *string {
	return fs.String("form", "", "the file's form: safetensors, gguf or nnc")
}

// fileForm is the form named by --form, else by the file's extension, else
// told from its first bytes (GGUF's magic; a safetensors header opens with
// '{' after its 8-byte length; anything else is read as NNC).
func fileForm(flag, path string, b []byte) (prior.Form, error) {
	name := flag
	if name == "" {
		name = strings.TrimPrefix(filepath.Ext(path), ".")
	}
	for _, f := range prior.Forms {
		if string(f) == name {
			return f, nil
		}
	}
	if flag != "" {
		return "", fmt.Errorf("--form %q is not safetensors, gguf or nnc", flag)
	}
	switch {
	case len(b) >= 4 && string(b[:4]) == "GGUF":
		return prior.GGUF, nil
	case len(b) >= 9 && b[8] == '{':
		return prior.Safetensors, nil
	}
	return prior.NNC, nil
}

// runPriorEncode is `waiops prior encode --form F NATIVE > FILE`.
func runPriorEncode(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior encode", stderr)
	setUsage(fs, "--form safetensors|gguf|nnc NATIVE > FILE")
	form := formFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 || *form == "" {
		fs.Usage()
		return 2
	}
	f, err := fileForm(*form, "", nil)
	if err != nil {
		fmt.Fprintf(stderr, "waiops prior encode: %v\n", err)
		return 2
	}
	native, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "waiops: %v\n", err)
		return 2
	}
	out, _, err := prior.Encode(f, native)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	stdout.Write(out)
	return 0
}

// readPriorFile reads the one positional argument and its form.
func readPriorFile(name string, args []string, stderr io.Writer) (prior.Form, []byte, bool) {
	fs := newFlags(name, stderr)
	setUsage(fs, "[--form safetensors|gguf|nnc] FILE")
	form := formFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", nil, false
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", nil, false
	}
	b, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "waiops: %v\n", err)
		return "", nil, false
	}
	f, err := fileForm(*form, pos[0], b)
	if err != nil {
		fmt.Fprintf(stderr, "waiops %s: %v\n", name, err)
		return "", nil, false
	}
	return f, b, true
}

// runPriorLoad is `waiops prior load FILE > NATIVE`.
func runPriorLoad(args []string, stdout, stderr io.Writer) int {
	form, b, ok := readPriorFile("prior load", args, stderr)
	if !ok {
		return 2
	}
	_, native, err := prior.Load(form, b)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	stdout.Write(native)
	return 0
}

// runPriorInspect is `waiops prior inspect FILE`: the form, whether the
// file is canonical, its SHA-256, its metadata and its tensors in §9.3's
// order, one per line.
func runPriorInspect(args []string, stdout, stderr io.Writer) int {
	form, b, ok := readPriorFile("prior inspect", args, stderr)
	if !ok {
		return 2
	}
	f, err := prior.Read(form, b)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	_, err = prior.ReadCanonical(form, b)
	fmt.Fprintf(stdout, "form %s\ncanonical %t\nsha256 %x\n", form, err == nil, sha256.Sum256(b))
	for _, k := range slices.Sorted(maps.Keys(f.Meta)) {
		fmt.Fprintf(stdout, "meta %q %q\n", k, f.Meta[k])
	}
	for _, t := range f.Tensors {
		fmt.Fprintf(stdout, "tensor %q %s %v %d bytes\n", t.Name, t.DType, t.Shape, len(t.Data))
	}
	return 0
}
