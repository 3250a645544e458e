package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const carriageFiles = "../../vectors/carriage/files/"

// The corpus's published test key, kid and title's iv (docs/READINGS.md, carriage).
const (
	testKey  = "7761692d6f70732074657374206b6579"
	testKID  = "7761692d6f70732074657374206b6964"
	titleIV  = "7761692d6f7073206976207469746c65"
	titleSHA = "db145f9608cdc7d02b8c84052b6654bbe39b25b921118ba81cd13f47c843a6be"
)

func TestPriorUsageCommand(t *testing.T) {
	if out, _, rc := run("prior", "usage", carriageFiles+"usage/title.json"); rc != 0 || out != "ok\n" {
		t.Errorf("good statement: exit %d: %q", rc, out)
	}
	out, msg, rc := run("prior", "usage", carriageFiles+"usage/bad_licence_double_space.json")
	if rc != 3 || out != "" || !strings.HasPrefix(msg, "refuse set_usage_malformed: ") || !strings.Contains(msg, "single spaces") {
		t.Errorf("broken statement: exit %d: %q %q", rc, out, msg)
	}
	// Past 65 536 bytes: refused without the whole file read.
	big := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(big, make([]byte, 1<<20), 0o644)
	if out, msg, rc := run("prior", "usage", big); rc != 3 || out != "" || !strings.Contains(msg, "65 536") {
		t.Errorf("1 MiB statement: exit %d: %q %q", rc, out, msg)
	}
	if _, _, rc := run("prior", "usage"); rc != 2 {
		t.Errorf("no FILE: exit %d", rc)
	}
}

// TestPriorSealOpen: seal title's plaintext as the corpus does, flags
// after and before the positionals, get the committed bytes, open them.
func TestPriorSealOpen(t *testing.T) {
	dir := t.TempDir()
	sealed := filepath.Join(dir, "title.wsk1")
	out, _, rc := run("prior", "seal", carriageFiles+"title.plain", "--key", testKey, "--kid", testKID, sealed,
		"--iv", titleIV, "--inner-form", "wai.prior.safetensors", "--usage", carriageFiles+"title-usage.json")
	if rc != 0 || !strings.HasSuffix(out, " inner "+titleSHA+"\n") {
		t.Fatalf("seal: exit %d: %q", rc, out)
	}
	got, _ := os.ReadFile(sealed)
	want, _ := os.ReadFile(carriageFiles + "title.wsk1")
	if !bytes.Equal(got, want) {
		t.Fatal("seal: not the committed title.wsk1")
	}
	plain := filepath.Join(dir, "title.plain")
	out, _, rc = run("prior", "open", "--keys", carriageFiles+"keys.json", sealed, plain)
	if rc != 0 || out != "inner "+titleSHA+" form wai.prior.safetensors\n" {
		t.Fatalf("open: exit %d: %q", rc, out)
	}
	got, _ = os.ReadFile(plain)
	want, _ = os.ReadFile(carriageFiles + "title.plain")
	if !bytes.Equal(got, want) {
		t.Error("open: not title's plaintext")
	}
	out, _, rc = run("prior", "open", carriageFiles+"generic.wsk1", filepath.Join(dir, "generic"), "--keys", carriageFiles+"keys.json")
	if rc != 0 || !strings.HasSuffix(out, " form -\n") {
		t.Errorf("open generic: exit %d: %q", rc, out)
	}
	// A refused open writes no OUT and leaves no temporary file.
	for _, c := range []struct{ in, keys, code string }{
		{"title.wsk1", "keys-none.json", "set_key_absent"},
		{"title.wsk1", "keys-other-key.json", "set_key_mismatch"},
		{"sealed/form_tree.wsk1", "keys.json", "sealed_inner_form"},
		{"sealed/l_2_40_past_the_file.wsk1", "keys.json", "sealed_malformed"},
	} {
		cdir := t.TempDir()
		out, msg, rc := run("prior", "open", "--keys", carriageFiles+c.keys, carriageFiles+c.in, filepath.Join(cdir, "out"))
		if rc != 3 || out != "" || !strings.HasPrefix(msg, "refuse "+c.code+": ") {
			t.Errorf("%s with %s: exit %d: %q %q", c.in, c.keys, rc, out, msg)
		}
		if left, _ := os.ReadDir(cdir); len(left) != 0 {
			t.Errorf("%s with %s: a refused open left %v", c.in, c.keys, left)
		}
	}
	// Bad flags are usage errors; a form §18.2 does not admit is refused.
	if _, _, rc := run("prior", "seal", "--key", "00", "--kid", testKID, "--iv", titleIV, carriageFiles+"title.plain", filepath.Join(dir, "x")); rc != 2 {
		t.Errorf("short key: exit %d", rc)
	}
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(testKey+"\n"), 0o600)
	out, msg, rc := run("prior", "seal", "--key-file", keyFile, "--kid", testKID, "--iv", titleIV, "--form", "wai.prior.tree", carriageFiles+"title.plain", filepath.Join(dir, "x"))
	if rc != 3 || out != "" || !strings.HasPrefix(msg, "refuse sealed_inner_form: ") {
		t.Errorf("tree form: exit %d: %q %q", rc, out, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused seal wrote OUT")
	}
}

func TestPriorListCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "l")
	msg, _, rc := run("prior", "list", carriageFiles+"sets/usage_top_level", out)
	if rc != 0 || msg != "set b55f3bb1791fb4ec4eb8cee35696faa5c222783863f59d0519ed8dab503c5981\n" {
		t.Fatalf("exit %d: %q", rc, msg)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(carriageFiles + "sets/usage_top_level.listing")
	if !bytes.Equal(got, want) {
		t.Errorf("listing %s, want the committed one", got)
	}
}

// TestPriorSealKeyFileAndStdout: the key read from stdin (--key-file -),
// OUT "-" writes the sealed set on stdout, byte for byte the committed
// title.wsk1, and its identities line on stderr; no note about argv, which
// holds no key. Opening to "-" gives the plaintext on stdout alike.
func TestPriorSealKeyFileAndStdout(t *testing.T) {
	old := stdin
	stdin = strings.NewReader(testKey + "\n")
	defer func() { stdin = old }()
	so, se, rc := run("prior", "seal", "--key-file", "-", "--kid", testKID, "--iv", titleIV, "--form", "wai.prior.safetensors",
		"--usage", carriageFiles+"title-usage.json", carriageFiles+"title.plain", "-")
	want, _ := os.ReadFile(carriageFiles + "title.wsk1")
	if rc != 0 || so != string(want) || !strings.HasPrefix(se, "sealed ") || !strings.HasSuffix(se, " inner "+titleSHA+"\n") {
		t.Fatalf("seal to stdout: exit %d, %d bytes on stdout, stderr %q", rc, len(so), se)
	}
	so, se, rc = run("prior", "open", "--keys", carriageFiles+"keys.json", carriageFiles+"title.wsk1", "-")
	plain, _ := os.ReadFile(carriageFiles + "title.plain")
	if rc != 0 || so != string(plain) || se != "inner "+titleSHA+" form wai.prior.safetensors\n" {
		t.Fatalf("open to stdout: exit %d, %d bytes on stdout, stderr %q", rc, len(so), se)
	}
	// --key still works, with the note; both or neither is bad usage.
	out := filepath.Join(t.TempDir(), "x")
	if so, se, rc := run("prior", "seal", "--key", testKey, "--kid", testKID, "--iv", titleIV, carriageFiles+"title.plain", out); rc != 0 ||
		!strings.HasPrefix(so, "sealed ") || !strings.HasPrefix(se, "note: --key puts the key in the command line") {
		t.Errorf("--key: exit %d, %q %q", rc, so, se)
	}
	for _, keys := range [][]string{{}, {"--key", testKey, "--key-file", "-"}} {
		args := append(append([]string{"prior", "seal"}, keys...), "--kid", testKID, "--iv", titleIV, carriageFiles+"title.plain", out)
		if so, se, rc := run(args...); rc != 2 || so != "" || !strings.Contains(se, "give the key once") {
			t.Errorf("%v: exit %d, %q %q", keys, rc, so, se)
		}
	}
}

// TestPriorServeStoreFlag: the store given both ways and differently, or
// not at all, is bad usage.
func TestPriorServeStoreFlag(t *testing.T) {
	for _, args := range [][]string{{"--store", "a", "b"}, {}, {"a", "b"}} {
		so, se, rc := run(append([]string{"prior", "serve"}, args...)...)
		if rc != 2 || so != "" || !strings.Contains(se, "give the store") {
			t.Errorf("%v: exit %d, %q %q", args, rc, so, se)
		}
	}
}
