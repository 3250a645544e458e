package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/serve"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
)

func fetchPattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 3
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

// storeWith writes each set into a new store under its digest.
func storeWith(t *testing.T, sets ...[]byte) string {
	dir := t.TempDir()
	for _, b := range sets {
		d := sha256.Sum256(b)
		if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(d[:])), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func serveStore(t *testing.T, dir string) string {
	s := httptest.NewServer(serve.New(store.Store(dir), false))
	t.Cleanup(s.Close)
	return s.URL + fetch.WellKnown
}

// serveUnchecked serves dir's files by name with net/http's file server,
// checking nothing: a server that serves other bytes under a set's name,
// as `prior serve` does not (it serves only a file whose digest is its
// name), for the sink's checks to catch.
func serveUnchecked(t *testing.T, dir string) string {
	s := httptest.NewServer(http.StripPrefix(fetch.WellKnown, http.FileServer(http.Dir(dir))))
	t.Cleanup(s.Close)
	return s.URL + fetch.WellKnown
}

func hexOf(b []byte) string { d := sha256.Sum256(b); return hex.EncodeToString(d[:]) }

// TestPriorFetchCommand: the set held from the second root after the first
// served other bytes, the flags after and before the digest; every root
// passed over is prior_not_held; --max-bytes is inclusive.
func TestPriorFetchCommand(t *testing.T) {
	set := fetchPattern(20000, 1)
	k := hexOf(set)
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(fetchPattern(20000, 2)) }))
	defer wrong.Close()
	bad := wrong.URL + "/sets/"
	good := serveStore(t, storeWith(t, set))
	sink := t.TempDir()
	so, se, rc := run("prior", "fetch", k, "--store", sink, "--root", bad, "--hint", good, "--timeout", "5s")
	if rc != 0 || so != "held "+k+"\n" || se != "root "+bad+": set_digest_mismatch\n" {
		t.Fatalf("fetch: %d %q %q", rc, so, se)
	}
	if got, _ := os.ReadFile(filepath.Join(sink, k)); !bytes.Equal(got, set) {
		t.Error("the held file is not the set")
	}
	// Bounds: 19999 refuses, 20000 holds.
	sink2 := t.TempDir()
	so, se, rc = run("prior", "fetch", "--store", sink2, "--root", good, "--max-bytes", "19999", k)
	if rc != 3 || so != "" || !strings.HasPrefix(se, "root "+good+": set_too_large\nrefuse prior_not_held: ") || strings.Count(se, "\n") != 2 {
		t.Fatalf("bound 19999: %d %q %q", rc, so, se)
	}
	if ents, _ := os.ReadDir(sink2); len(ents) != 0 {
		t.Errorf("a refused fetch left %d files", len(ents))
	}
	if so, _, rc = run("prior", "fetch", "--store", sink2, "--root", good, "--max-bytes", "20000", k); rc != 0 {
		t.Fatalf("bound 20000: %d %q", rc, so)
	}
	// The origin's well-known root, after the others.
	origin := strings.TrimSuffix(good, fetch.WellKnown)
	if so, se, rc = run("prior", "fetch", k, "--store", t.TempDir(), "--root", bad, "--origin", origin+"/anything"); rc != 0 || se != "root "+bad+": set_digest_mismatch\n" {
		t.Fatalf("origin: %d %q %q", rc, so, se)
	}
	for _, args := range [][]string{
		{"prior", "fetch", k, "--store", t.TempDir()},                  // no roots is a refusal, below
		{"prior", "fetch", k[:63], "--store", sink, "--root", good},    // not a digest
		{"prior", "fetch", k, "--store", sink, "--root", "http://x/s"}, // a root not ending in /
		{"prior", "fetch", k, "--store", sink, "--root", good, "--max-bytes", "-1"},
	} {
		_, _, rc := run(args...)
		if want := map[bool]int{true: 3, false: 2}[len(args) == 5]; rc != want {
			t.Errorf("%v: exit %d, want %d", args[3:], rc, want)
		}
	}
}

// TestPriorFetchForm: --form is the pin's declared form, checked by §2
// before any request: a sealed set or a tree head is form_unreadable, a
// string no form registers is form_not_registered, and a root that would be
// asked is never asked.
func TestPriorFetchForm(t *testing.T) {
	set := fetchPattern(3000, 4)
	k := hexOf(set)
	asked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked++; w.Write(set) }))
	defer srv.Close()
	root := srv.URL + "/"
	for form, want := range map[string]string{"wai.prior.sealed": "form_unreadable", "wai.prior.tree": "form_unreadable", "wai.prior.zip": "form_not_registered"} {
		so, se, rc := run("prior", "fetch", k, "--store", t.TempDir(), "--root", root, "--form", form)
		if rc != 3 || so != "" || !strings.HasPrefix(se, "refuse "+want+": ") {
			t.Errorf("--form %s: exit %d, %q %q; want refuse %s", form, rc, so, se, want)
		}
	}
	if asked != 0 {
		t.Errorf("a refused form asked the root %d times", asked)
	}
	if so, _, rc := run("prior", "fetch", "--form", "wai.prior.safetensors", k, "--store", t.TempDir(), "--root", root); rc != 0 || so != "held "+k+"\n" {
		t.Errorf("--form wai.prior.safetensors: exit %d, %q", rc, so)
	}
}

// TestPriorFetchListingAndDcz: a listing and its files from two roots, and
// a successor coded against the predecessor the sink holds, the refused
// coded response reported before the plain retry.
func TestPriorFetchListingAndDcz(t *testing.T) {
	a, b := fetchPattern(3000, 3), fetchPattern(4000, 4)
	l := &carriage.Listing{Files: []carriage.ListedFile{
		{Path: "a", Length: 3000, SHA256: sha256.Sum256(a)},
		{Path: "b/c", Length: 4000, SHA256: sha256.Sum256(b)},
	}}
	lb, _ := l.Marshal()
	r1, r2 := serveStore(t, storeWith(t, lb, a)), serveStore(t, storeWith(t, b))
	sink := t.TempDir()
	so, se, rc := run("prior", "fetch", hexOf(lb), "--listing", "--store", sink, "--root", r1, "--root", r2)
	if rc != 0 || so != "held "+hexOf(lb)+"\n" || se != "root "+r1+": set_location_unavailable\n" {
		t.Fatalf("listing: %d %q %q", rc, so, se)
	}
	for _, x := range [][]byte{lb, a, b} {
		if got, _ := os.ReadFile(filepath.Join(sink, hexOf(x))); !bytes.Equal(got, x) {
			t.Errorf("%s not held", hexOf(x)[:12])
		}
	}

	pred := fetchPattern(100000, 5)
	succ := bytes.Clone(pred)
	for i := 0; i < len(succ); i += 501 {
		succ[i]++
	}
	tmp := t.TempDir()
	pp, sp, coded := filepath.Join(tmp, "pred"), filepath.Join(tmp, "succ"), filepath.Join(tmp, "succ.dcz")
	os.WriteFile(pp, pred, 0o644)
	os.WriteFile(sp, succ, 0o644)
	if so, se, rc := run("prior", "dcz", sp, coded, "--dictionary", pp); rc != 0 {
		t.Fatalf("dcz: %d %q %q", rc, so, se)
	}
	body, _ := os.ReadFile(coded)
	if len(body) > len(succ)/10 {
		t.Fatalf("the coded successor is %d bytes", len(body))
	}
	for _, c := range []struct {
		body []byte
		line string
	}{
		{body, ""},
		{body[:len(body)-5], "coded URL: dcz_malformed\n"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Available-Dictionary") != "" {
				w.Header().Set("Content-Encoding", "dcz")
				w.Write(c.body)
				return
			}
			w.Write(succ)
		}))
		root := srv.URL + "/"
		sink := storeWith(t, pred)
		so, se, rc := run("prior", "fetch", hexOf(succ), "--store", sink, "--root", root, "--predecessor", hexOf(pred))
		srv.Close()
		if want := strings.ReplaceAll(c.line, "URL", root); rc != 0 || so != "held "+hexOf(succ)+"\n" || se != want {
			t.Errorf("dcz: %d %q %q, want stderr %q", rc, so, se, want)
		}
		if got, _ := os.ReadFile(filepath.Join(sink, hexOf(succ))); !bytes.Equal(got, succ) {
			t.Error("the successor is not held")
		}
	}
}

// treeStores writes a set of 8 pieces of 2 KiB (g 1), its head, and two
// stores holding it, the second with a byte changed in piece 3.
func treeStores(t *testing.T) (set []byte, head string, h *tree.Head, a, b string) {
	set = fetchPattern(8*2048-100, 6)
	h, err := tree.Write(bytes.NewReader(set), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	head = filepath.Join(t.TempDir(), "set.wtr1")
	os.WriteFile(head, h.Encode(), 0o644)
	bad := bytes.Clone(set)
	bad[3*2048+77] ^= 0x80
	a = storeWith(t, set)
	b = t.TempDir()
	os.WriteFile(filepath.Join(b, hexOf(set)), bad, 0o644)
	return set, head, h, a, b
}

func TestPriorFetchTreeCommand(t *testing.T) {
	set, head, _, a, b := treeStores(t)
	ra, rb := serveStore(t, a), serveUnchecked(t, b)
	sink := t.TempDir()
	so, se, rc := run("prior", "fetch-tree", "--store", sink, head, "--source", ra, "--source", rb)
	if rc != 0 || so != "held "+hexOf(set)+"\n" || se != "piece 3 "+rb+": tree_piece_mismatch\n" {
		t.Fatalf("fetch-tree: %d %q %q", rc, so, se)
	}
	if got, _ := os.ReadFile(filepath.Join(sink, hexOf(set))); !bytes.Equal(got, set) {
		t.Error("the held file is not the set")
	}
	// Both changed at piece 3: not held.
	sink = t.TempDir()
	so, se, rc = run("prior", "fetch-tree", head, "--store", sink, "--source", rb, "--source", serveUnchecked(t, b))
	if rc != 3 || so != "" || strings.Count(se, ": tree_piece_mismatch\n") != 2 || !strings.Contains(se, ": tree_piece_mismatch\nrefuse prior_not_held: ") {
		t.Fatalf("both changed: %d %q %q", rc, so, se)
	}
	if ents, _ := os.ReadDir(sink); len(ents) != 0 {
		t.Errorf("a refused fetch left %d files", len(ents))
	}
}

// TestPriorServeEndToEnd builds waiops, serves two stores with `prior
// serve`, one with a byte changed in piece 3 (which its server does not
// serve: the file's digest is not its name), fetches the set from both with
// `prior fetch-tree`, and stops the servers with SIGTERM.
func TestPriorServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := builtCommand(t)
	set, head, _, a, b := treeStores(t)
	start := func(dir string) (string, *exec.Cmd) {
		cmd := exec.Command(bin, "prior", "serve", dir, "--addr", "127.0.0.1:0")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "serving http://127.0.0.1:") {
			cmd.Process.Kill()
			t.Fatalf("serve printed %q, %v", line, err)
		}
		return strings.TrimSpace(strings.TrimPrefix(line, "serving ")), cmd
	}
	ra, ca := start(a)
	rb, cb := start(b)
	sink := t.TempDir()
	cmd := exec.Command(bin, "prior", "fetch-tree", head, "--store", sink, "--source", ra, "--source", rb)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	// The server of b holds no file under the set's name whose digest is
	// the name, so each run of pieces asked of it first (runs of two
	// pieces, so that every request slot is busy: run k of source k mod 2,
	// pieces 2–3 and 6–7) is set_location_unavailable there and held from a.
	lines := strings.Split(strings.TrimSuffix(se.String(), "\n"), "\n")
	slices.Sort(lines)
	var want []string
	for _, r := range []string{"2-3", "6-7"} {
		want = append(want, fmt.Sprintf("pieces %s %s: set_location_unavailable", r, rb))
	}
	if err != nil || so.String() != "held "+hexOf(set)+"\n" || !slices.Equal(lines, want) {
		t.Errorf("fetch-tree: %v %q %q", err, so.String(), se.String())
	}
	if got, _ := os.ReadFile(filepath.Join(sink, hexOf(set))); !bytes.Equal(got, set) {
		t.Error("the held file is not the set")
	}
	for _, c := range []*exec.Cmd{ca, cb} {
		c.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve after SIGTERM: %v", err)
			}
		case <-time.After(15 * time.Second):
			c.Process.Kill()
			t.Error("serve did not stop on SIGTERM")
		}
	}
}

// TestPriorFetchTreeLimits: fetch-tree takes --max-bytes (a head past it is
// set_too_large, exit 3, before any request), and both fetch commands take
// --min-rate and --deadline, refusing a negative one as bad usage.
func TestPriorFetchTreeLimits(t *testing.T) {
	set, head, _, a, _ := treeStores(t)
	ra := serveStore(t, a)
	n := strconv.Itoa(len(set))
	sink := t.TempDir()
	so, se, rc := run("prior", "fetch-tree", head, "--store", sink, "--source", ra, "--max-bytes", strconv.Itoa(len(set)-1))
	if rc != 3 || !strings.Contains(so+se, "refuse set_too_large: ") {
		t.Fatalf("--max-bytes %d: %d %q %q", len(set)-1, rc, so, se)
	}
	if ents, _ := os.ReadDir(sink); len(ents) != 0 {
		t.Errorf("a refused fetch left %d files", len(ents))
	}
	if so, se, rc = run("prior", "fetch-tree", head, "--store", sink, "--source", ra, "--max-bytes", n, "--min-rate", "1", "--deadline", "1m"); rc != 0 || so != "held "+hexOf(set)+"\n" {
		t.Fatalf("--max-bytes %s: %d %q %q", n, rc, so, se)
	}
	for _, args := range [][]string{
		{"prior", "fetch-tree", head, "--store", sink, "--source", ra, "--min-rate", "-1"},
		{"prior", "fetch", hexOf(set), "--store", sink, "--root", ra, "--deadline", "-1s"},
		{"prior", "fetch-tree", head, "--store", sink, "--source", ra, "--max-bytes", "0"},
	} {
		if _, _, rc := run(args...); rc != 2 {
			t.Errorf("%v: exit %d, want 2", args[len(args)-2:], rc)
		}
	}
}

// TestPriorFetchInterrupt: SIGINT or SIGTERM in the middle of a body ends
// `prior fetch` and `prior fetch-tree` with exit 130, nothing printed and no
// temporary file left in the store.
func TestPriorFetchInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "waiops")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	set, head, _, _, _ := treeStores(t)
	sent := make(chan struct{}, 16)
	// The server sends the first half of what it is asked, then waits.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := set
		var a, b int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err == nil {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(set)))
			w.Header().Set("Content-Length", strconv.Itoa(b-a+1))
			w.WriteHeader(http.StatusPartialContent)
			body = set[a : b+1]
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(set)))
		}
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		sent <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	root := srv.URL + fetch.WellKnown
	for _, c := range []struct {
		sig  os.Signal
		args []string
	}{
		{os.Interrupt, []string{"prior", "fetch", hexOf(set), "--root", root}},
		{syscall.SIGTERM, []string{"prior", "fetch-tree", head, "--source", root}},
	} {
		sink := t.TempDir()
		cmd := exec.Command(bin, append(c.args, "--store", sink)...)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-sent:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: no request came", c.args[1])
		}
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 || so.Len() != 0 || strings.Contains(se.String(), "refuse ") {
			t.Errorf("%s after %v: exit %d (%v), stdout %q, stderr %q; want 130, no result and no refusal", c.args[1], c.sig, code, err, so.String(), se.String())
		}
		if ents, _ := os.ReadDir(sink); len(ents) != 0 {
			t.Errorf("%s: an interrupted fetch left %d files", c.args[1], len(ents))
		}
		for len(sent) > 0 {
			<-sent
		}
	}
}
