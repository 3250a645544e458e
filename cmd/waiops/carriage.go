package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/waiops/waiops/carriage"
)

func init() {
	commands["prior usage"] = command{summary: "read a usage statement (prior-carriage §18.1)", run: runPriorUsage}
	commands["prior seal"] = command{summary: "seal a set as wai.prior.sealed under an AES-128 key (prior-carriage §18.2)", run: runPriorSeal}
	commands["prior open"] = command{summary: "open a sealed set with a keys file (prior-carriage §18.2)", run: runPriorOpen}
	commands["prior list"] = command{summary: "write the wai.prior.set listing of a directory's files (prior-carriage §15, the listing of docs/READINGS.md)", run: runPriorList}
}

// runPriorUsage is `waiops prior usage FILE`: ok, or the refusal.
func runPriorUsage(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior usage", stderr)
	setUsage(fs, "FILE")
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return 2
	}
	// One byte past §18.1's cap is enough for ReadUsage to refuse it.
	b, err := readAtMost(pos[0], carriage.MaxUsage+1)
	if err != nil {
		return fail(err, stderr)
	}
	if _, err := carriage.ReadUsage(b); err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}

// hex16Flag reads a --flag of 32 lower-case hexadecimal digits.
func hex16Flag(name, v string) ([16]byte, error) {
	b, err := carriage.Hex16(v)
	if err != nil {
		return b, fmt.Errorf("--%s: %v", name, err)
	}
	return b, nil
}

// runPriorSeal is `waiops prior seal --key-file FILE --kid HEX32 --iv
// HEX32 [--form F] [--usage FILE] IN OUT`: OUT is the sealed set (- for
// stdout); it prints `sealed <sha256> inner <sha256>`, the set's two
// identities (on stderr where OUT is stdout). --key HEX32 and --inner-form
// F are the older spellings, still accepted.
func runPriorSeal(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior seal", stderr)
	setUsage(fs, "--key-file FILE|- --kid HEX32 --iv HEX32 [--form F] [--usage FILE] IN OUT")
	keyFile := fs.String("key-file", "", "a file holding the AES-128 key as 32 hex digits (- for stdin), so that the key stays out of the command line")
	keyHex := fs.String("key", "", olderSpelling+"--key-file, the key itself: 32 hex digits (other users of this machine can read a command line: prefer --key-file)")
	kidHex := fs.String("kid", "", "the key's identifier, 32 hex digits")
	ivHex := fs.String("iv", "", "the initial counter block, 32 hex digits (never one whose counters a set sealed under this key used)")
	form := innerFormFlag(fs, "the inner form (prior-carriage §18.2): wai.prior.safetensors, wai.prior.gguf, or none (empty) for a capability's one file")
	usageFile := fs.String("usage", "", "a usage statement (prior-carriage §18.1) to bind in the header")
	pos, ok := positionals(fs, args, 2, func() bool { return *kidHex != "" && *ivHex != "" })
	if !ok {
		return 2
	}
	if (*keyFile == "") == (*keyHex == "") {
		return usageError(fs, fmt.Errorf("give the key once: --key-file FILE (or --key HEX32)"))
	}
	if *keyHex != "" {
		fmt.Fprintln(stderr, "note: --key puts the key in the command line, which other users of this machine can read; --key-file FILE keeps it out")
	} else {
		b, err := readKeyFile(*keyFile)
		if err != nil {
			return fail(err, stderr)
		}
		*keyHex = string(b)
	}
	h := carriage.Header{InnerForm: *form}
	key, err := hex16Flag("key", *keyHex)
	if err == nil {
		h.KID, err = hex16Flag("kid", *kidHex)
	}
	if err == nil {
		h.IV, err = hex16Flag("iv", *ivHex)
	}
	if err != nil {
		return usageError(fs, err)
	}
	if *usageFile != "" {
		// One byte past §18.1's cap is enough for Seal to refuse it.
		if h.Usage, err = readAtMost(*usageFile, carriage.MaxUsage+1); err != nil {
			return fail(err, stderr)
		}
	}
	in, size, err := openSized(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	defer in.Close()
	var out *carriage.Header
	var sealed [32]byte
	err = writeResult(pos[1], stdout, func(w io.Writer) error {
		out, sealed, err = carriage.Seal(w, in, size, key, h)
		return err
	})
	if err != nil {
		return fail(err, stderr)
	}
	resultLine(pos[1], stdout, stderr, "sealed %x inner %x\n", sealed, out.Inner)
	return 0
}

// readKeyFile reads a key file (stdin for "-"): 32 hex digits, the white
// space around them trimmed. More than a line's worth is not a key file.
func readKeyFile(path string) ([]byte, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 256))
	} else {
		b, err = readAtMost(path, 256)
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b), nil
}

// runPriorOpen is `waiops prior open --keys KEYS.json IN OUT`: OUT is the
// plaintext (- for stdout), written only when §18.2's five checks pass; it
// prints `inner <sha256> form <F or ->` (on stderr where OUT is stdout).
func runPriorOpen(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior open", stderr)
	setUsage(fs, "--keys KEYS.json IN OUT")
	keysFile := fs.String("keys", "", `the sink's keys: a JSON object {"<kid hex>": "<key hex>", ...}, lower-case hex (docs/READINGS.md, carriage)`)
	pos, ok := positionals(fs, args, 2, func() bool { return *keysFile != "" })
	if !ok {
		return 2
	}
	kb, err := os.ReadFile(*keysFile)
	if err != nil {
		return fail(err, stderr)
	}
	keys, err := carriage.ReadKeys(kb)
	if err != nil {
		return fail(err, stderr)
	}
	in, size, err := openSized(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	defer in.Close()
	var o *carriage.Opened
	err = writeResult(pos[1], stdout, func(w io.Writer) error {
		o, err = carriage.Open(in, size, keys, w)
		return err
	})
	if err != nil {
		return fail(err, stderr)
	}
	form := o.Header.InnerForm
	if form == "" {
		form = "-"
	}
	resultLine(pos[1], stdout, stderr, "inner %x form %s\n", o.Header.Inner, form)
	return 0
}

// runPriorList is `waiops prior list DIR OUT`: OUT is the listing of every
// file under DIR (- for stdout); it prints `set <sha256>`, the set's digest
// (on stderr where OUT is stdout).
func runPriorList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior list", stderr)
	setUsage(fs, "DIR OUT")
	pos, ok := positionals(fs, args, 2, nil)
	if !ok {
		return 2
	}
	l, err := carriage.ListDir(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	if err := writeBytes(pos[1], stdout, l); err != nil {
		return fail(err, stderr)
	}
	resultLine(pos[1], stdout, stderr, "set %x\n", sha256.Sum256(l))
	return 0
}
