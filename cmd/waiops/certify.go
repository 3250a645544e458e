package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

func init() {
	commands["certify"] = command{summary: "write the bounds certificate of WHG1 graphs (integer-operators §8.5), or an admissible range (§8.4)", run: runCertify}
}

// runCertify is `waiops certify [--capability C] [--lowering L]
// [--set-sha256 HEX] FILE.whg1...` and `waiops certify --admissible TENSOR
// --profile P FILE.whg1`.
func runCertify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("certify", stderr)
	setUsage(fs, "[--capability C] [--lowering L] [--set-sha256 HEX] FILE.whg1...\n"+
		"       waiops certify --admissible TENSOR --profile acc32|acc64 FILE.whg1")
	var capability, setSum *string
	fs.Func("capability", "the capability string (default null)", func(s string) error { capability = &s; return nil })
	fs.Func("set-sha256", "the set's digest, 64 lowercase hex digits (default null)", func(s string) error {
		if !isDigest(s) {
			return fmt.Errorf("%q is not 64 lowercase hexadecimal digits", s)
		}
		setSum = &s
		return nil
	})
	lowering := fs.String("lowering", "whg1", "the lowering identifier (integer-operators §13)")
	admissible := fs.String("admissible", "", "print the admissible range of this tensor index")
	profile := fs.String("profile", "", "the profile for --admissible: acc32 or acc64")
	files, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	roles := make([]certify.Role, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fail(err, stderr)
		}
		g, err := whg1.Parse(b)
		if err != nil {
			return fail(err, stderr)
		}
		roles[i] = certify.Role{Name: strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), Bytes: b, Graph: g}
	}
	if *admissible != "" {
		t, err := strconv.ParseUint(*admissible, 10, 32)
		if err != nil || len(files) != 1 {
			fmt.Fprintln(stderr, "waiops certify: --admissible takes one tensor index and one file")
			return 2
		}
		r, err := certify.Admissible(roles[0].Graph, uint32(t), certify.Profile(*profile))
		if err != nil {
			return fail(err, stderr)
		}
		fmt.Fprintln(stdout, r)
		return 0
	}
	cert, err := certify.Certify(capability, *lowering, setSum, roles)
	if err != nil {
		return fail(err, stderr)
	}
	stdout.Write(cert.Bytes())
	return 0
}

// isDigest reports whether s is 64 lowercase hexadecimal digits (§8.5).
func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
