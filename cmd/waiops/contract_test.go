package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
)

// contractCase is a command line that fails (exit 1) or is refused (exit
// 3): want opens the last line of stderr, and stdout stays empty.
type contractCase struct {
	args []string
	rc   int
	want string
}

// contractCases gives one failing command line for every command, with
// junk (five bytes no reader takes) and none (no such file) in dir. A
// command that cannot fail has a case with rc 0 and no args: it is run
// and must succeed with nothing on stderr.
func contractCases(junk, none, dir string) map[string]contractCase {
	out := filepath.Join(dir, "out")
	refused := func(code string, args ...string) contractCase { return contractCase{args, 3, "refuse " + code + ": "} }
	failed := func(args ...string) contractCase { return contractCase{args, 1, "waiops: "} }
	return map[string]contractCase{
		"bench":            failed("--fabric", "cpu", "--ops", "conv3x3_raw", "--sizes", "16", "--peer-data", filepath.Join(junk, "x"), "--out", out),
		"certify":          refused("model_mismatch", junk),
		"conform":          failed("--vectors", none),
		"conform matrix":   failed(none),
		"decode int_synth": refused("payload_malformed", "--set", junk, "--payload", junk, "--out", out, "--fabric", "cpu"),
		"decode world":     refused("geometry_mismatch", "--T", junk, "--gs", junk, "--z0", junk, "--rows", junk, "--out", out, "--fabric", "cpu"),
		"decode jpegai": refused("model_mismatch", "--hs-y", junk, "--hs-uv", junk, "--norm", junk, "--soz", junk, "--sorp", junk,
			"--sors", junk, "--grfs", junk, "--out", out, "--fabric", "cpu"),
		"gpu info":         failed(), // no GL context: see TestStreamsAndExitCodes
		"import":           failed(junk, "--calib", none, "--out", out),
		"lower":            refused("payload_malformed", "--lowering", "int_synth/1", junk, "--out", out),
		"prior dcz":        failed("--dictionary", none, junk, out),
		"prior encode":     refused("native_malformed", "--form", "wai.prior.gguf", junk),
		"prior fetch":      refused("form_not_registered", strings.Repeat("ab", 32), "--store", dir, "--form", "wai.prior.zip"),
		"prior fetch-tree": refused("tree_head_malformed", junk, "--store", dir, "--source", "http://127.0.0.1:1/"),
		"prior head":       refused("tree_head_malformed", junk),
		"prior inspect":    refused("nnc_truncated", junk),
		"prior list":       failed(none, out),
		"prior load":       refused("nnc_truncated", junk),
		"prior open":       failed("--keys", none, junk, out),
		"prior plan":       refused("plan_malformed", junk),
		"prior seal":       failed("--key-file", none, "--kid", testKID, "--iv", titleIV, junk, out),
		"prior serve":      failed("--store", none),
		"prior tree":       refused("tree_head_malformed", "--g", "0", junk, out),
		"prior usage":      refused("set_usage_malformed", junk),
		"prior verify":     refused("tree_head_malformed", junk, junk),
		"rans decode":      failed(junk),
		"rans encode":      failed(junk),
		"run":              failed(junk, "--inputs", junk, "--fabric", "cpu"),
		"vectors check":    failed(none),
		"vectors gen":      failed("--out", filepath.Join(junk, "x")),
		"version":          {}, // prints what the build knows: nothing it reads can fail
		"view int_synth":   failed("--set", none, "--payload", junk),
		"view world":       failed("--T", none, "--gs", junk, "--z0", junk, "--rows", junk),
	}
}

// TestStreamsAndExitCodes holds every command of the table to the one
// rule: an unknown flag is bad usage (exit 2, the reason and the usage
// once on stderr, nothing on stdout); a failure exits 1 and a refusal 3,
// the reason or "refuse <code>: <why>" the last line on stderr, nothing on
// stdout, and no refusal line but the one.
func TestStreamsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	junk, none := filepath.Join(dir, "junk"), filepath.Join(dir, "none")
	if err := os.WriteFile(junk, []byte("nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := contractCases(junk, none, dir)
	for name := range cases {
		if _, ok := commands[name]; !ok {
			t.Errorf("a case for %q, which is no command", name)
		}
	}
	for name := range commands {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			words := strings.Fields(name)
			so, se, rc := call(append(words, "--no-such-flag")...)
			if rc != 2 || so != "" || !strings.HasPrefix(se, "flag provided but not defined: -no-such-flag\n") || strings.Count(se, "usage: waiops "+name) != 1 {
				t.Errorf("unknown flag: exit %d, stdout %q, stderr %q; want 2, the usage once on stderr", rc, so, se)
			}
			c, ok := cases[name]
			if !ok {
				t.Fatalf("no failing command line for %q in contractCases", name)
			}
			if c.want == "" {
				if so, se, rc := call(words...); rc != 0 || so == "" || se != "" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0 and stdout alone", rc, so, se)
				}
				return
			}
			so, se, rc = call(append(words, c.args...)...)
			if name == "gpu info" && rc == 0 {
				// A GL context is made in this process: without a display
				// the built command cannot make one (the default build's
				// GLFW needs one).
				if testing.Short() {
					t.Skip("a GL context is here; the case without one builds the command")
				}
				cmd := exec.Command(builtCommand(t), words...)
				cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
				var sob, seb strings.Builder
				cmd.Stdout, cmd.Stderr = &sob, &seb
				cmd.Run()
				so, se, rc = sob.String(), seb.String(), cmd.ProcessState.ExitCode()
			}
			lines := strings.Split(strings.TrimSuffix(se, "\n"), "\n")
			last := lines[len(lines)-1]
			refusals := strings.Count("\n"+se, "\nrefuse ")
			if rc != c.rc || so != "" || !strings.HasPrefix(last, c.want) || refusals != c.rc/3 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, stdout empty, the last line on stderr %q...", c.args, rc, so, se, c.rc, c.want)
			}
		})
	}
	if _, err := fabric.OpenGPU(); err == nil {
		t.Log("a GL context is here: gpu info's failure ran in the built command without a display")
	}
}
