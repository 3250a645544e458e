package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/waiops/waiops/carriage"
)

func init() {
	commands["prior usage"] = command{"read a usage statement (prior-carriage §18.1)", runPriorUsage}
	commands["prior seal"] = command{"seal a set as wai.prior.sealed under an AES-128 key (prior-carriage §18.2)", runPriorSeal}
	commands["prior open"] = command{"open a sealed set with a keys file (prior-carriage §18.2)", runPriorOpen}
	commands["prior list"] = command{"write the wai.prior.set listing of a directory's files (DECISIONS H1)", runPriorList}
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
		return fail(err, stdout, stderr)
	}
	if _, err := carriage.ReadUsage(b); err != nil {
		return fail(err, stdout, stderr)
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

// runPriorSeal is `waiops prior seal --key HEX32 --kid HEX32 --iv HEX32
// [--inner-form F] [--usage FILE] IN OUT`: OUT is the sealed set; it
// prints `sealed <sha256> inner <sha256>`, the set's two identities.
func runPriorSeal(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior seal", stderr)
	setUsage(fs, "--key HEX32 --kid HEX32 --iv HEX32 [--inner-form F] [--usage FILE] IN OUT")
	keyHex := fs.String("key", "", "the AES-128 key, 32 hex digits")
	kidHex := fs.String("kid", "", "the key's identifier, 32 hex digits")
	ivHex := fs.String("iv", "", "the initial counter block, 32 hex digits (never one whose counters a set sealed under this key used)")
	form := fs.String("inner-form", "", "the inner form: wai.prior.safetensors, wai.prior.gguf, or none for a capability's one file")
	usageFile := fs.String("usage", "", "a usage statement (§18.1) to bind in the header")
	pos, ok := positionals(fs, args, 2, func() bool { return *keyHex != "" && *kidHex != "" && *ivHex != "" })
	if !ok {
		return 2
	}
	h := carriage.Header{InnerForm: *form}
	key, err := hex16Flag("key", *keyHex)
	if err == nil {
		h.KID, err = hex16Flag("kid", *kidHex)
	}
	if err == nil {
		h.IV, err = hex16Flag("iv", *ivHex)
	}
	if err == nil && *usageFile != "" {
		// One byte past §18.1's cap is enough for Seal to refuse it.
		h.Usage, err = readAtMost(*usageFile, carriage.MaxUsage+1)
	}
	if err != nil {
		return fail(err, stdout, stderr)
	}
	in, size, err := openSized(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	defer in.Close()
	var out *carriage.Header
	var sealed [32]byte
	err = writeAtomic(pos[1], func(w io.Writer) error {
		out, sealed, err = carriage.Seal(w, in, size, key, h)
		return err
	})
	if err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "sealed %x inner %x\n", sealed, out.Inner)
	return 0
}

// runPriorOpen is `waiops prior open --keys KEYS.json IN OUT`: OUT is the
// plaintext, written only when §18.2's five checks pass; it prints `inner
// <sha256> form <F or ->`.
func runPriorOpen(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior open", stderr)
	setUsage(fs, "--keys KEYS.json IN OUT")
	keysFile := fs.String("keys", "", `the sink's keys, {"<kid hex>": "<key hex>"} (DECISIONS H8)`)
	pos, ok := positionals(fs, args, 2, func() bool { return *keysFile != "" })
	if !ok {
		return 2
	}
	kb, err := os.ReadFile(*keysFile)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	keys, err := carriage.ReadKeys(kb)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	in, size, err := openSized(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	defer in.Close()
	var o *carriage.Opened
	err = writeAtomic(pos[1], func(w io.Writer) error {
		o, err = carriage.Open(in, size, keys, w)
		return err
	})
	if err != nil {
		return fail(err, stdout, stderr)
	}
	form := o.Header.InnerForm
	if form == "" {
		form = "-"
	}
	fmt.Fprintf(stdout, "inner %x form %s\n", o.Header.Inner, form)
	return 0
}

// runPriorList is `waiops prior list DIR OUT`: OUT is the listing of every
// file under DIR; it prints `set <sha256>`, the set's digest.
func runPriorList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior list", stderr)
	setUsage(fs, "DIR OUT")
	pos, ok := positionals(fs, args, 2, nil)
	if !ok {
		return 2
	}
	l, err := carriage.ListDir(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	if err := writeBytesAtomic(pos[1], l); err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "set %x\n", sha256.Sum256(l))
	return 0
}
