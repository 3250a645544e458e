package main

import (
	"crypto/sha256"
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
	commands["prior encode"] = command{summary: "write a native WHM1/WSR1 artifact as its canonical prior file (prior-carriage §10.3)", run: runPriorEncode}
	commands["prior load"] = command{summary: "load a wai-int/1 prior file into its native artifact (prior-carriage §10.3)", run: runPriorLoad}
	commands["prior inspect"] = command{summary: "show a prior file's form, metadata, tensors and SHA-256 (prior-carriage §9.3)", run: runPriorInspect}
}

// fileForm is the form named by --form, else by the file's extension, else
// told from its first bytes (GGUF's magic; a safetensors header opens with
// '{' after its 8-byte length; anything else is read as NNC).
func fileForm(flag, path string, b []byte) (prior.Form, error) {
	if flag != "" {
		return namedFileForm(flag)
	}
	if f, err := namedFileForm(strings.TrimPrefix(filepath.Ext(path), ".")); err == nil {
		return f, nil
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
	setUsage(fs, "--form "+fileFormUsage+" NATIVE > FILE")
	form := fileFormFlag(fs)
	pos, ok := positionals(fs, args, 1, func() bool { return *form != "" })
	if !ok {
		return 2
	}
	f, err := namedFileForm(*form)
	if err != nil {
		return usageError(fs, err)
	}
	native, err := os.ReadFile(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	out, _, err := prior.Encode(f, native)
	if err != nil {
		return fail(err, stderr)
	}
	stdout.Write(out)
	return 0
}

// readPriorFile reads the one positional argument and its form; where it
// cannot, it has reported why and gives the exit status, else 0.
func readPriorFile(name string, args []string, stderr io.Writer) (prior.Form, []byte, int) {
	fs := newFlags(name, stderr)
	setUsage(fs, "[--form "+fileFormUsage+"] FILE")
	form := fileFormFlag(fs)
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return "", nil, 2
	}
	if *form != "" {
		if _, err := namedFileForm(*form); err != nil {
			return "", nil, usageError(fs, err)
		}
	}
	b, err := os.ReadFile(pos[0])
	if err != nil {
		return "", nil, fail(err, stderr)
	}
	f, err := fileForm(*form, pos[0], b)
	if err != nil {
		return "", nil, usageError(fs, err)
	}
	return f, b, 0
}

// runPriorLoad is `waiops prior load FILE > NATIVE`.
func runPriorLoad(args []string, stdout, stderr io.Writer) int {
	form, b, rc := readPriorFile("prior load", args, stderr)
	if rc != 0 {
		return rc
	}
	_, native, err := prior.Load(form, b)
	if err != nil {
		return fail(err, stderr)
	}
	stdout.Write(native)
	return 0
}

// runPriorInspect is `waiops prior inspect FILE`: the form, whether the
// file is canonical, its SHA-256, its metadata and its tensors in §9.3's
// order, one per line.
func runPriorInspect(args []string, stdout, stderr io.Writer) int {
	form, b, rc := readPriorFile("prior inspect", args, stderr)
	if rc != 0 {
		return rc
	}
	f, err := prior.Read(form, b)
	if err != nil {
		return fail(err, stderr)
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
