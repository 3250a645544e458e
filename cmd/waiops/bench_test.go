package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchNetworkPeer: `bench --ops bmshj2018 --peers ort-float` with no
// ONNX Runtime in --peers-dir still measures bmshj2018 (quick: from a 1×1
// latent; --bmshj-sizes 2 here) and records the float peer as skipped,
// exit 0; a latent height of 0 is bad usage (exit 2).
func TestBenchNetworkPeer(t *testing.T) {
	out := t.TempDir()
	var so, se bytes.Buffer
	args := []string{"bench", "--quick", "--fabric", "cpu", "--ops", "bmshj2018", "--bmshj-sizes", "2",
		"--peers", "ort-float", "--peers-dir", t.TempDir(), "--out", out}
	if rc := dispatch(args, &so, &se); rc != 0 {
		t.Fatalf("exit %d: %s", rc, se.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Figures []struct {
			Case string `json:"case"`
		} `json:"figures"`
		NetPeers []struct {
			Case    string `json:"case"`
			Skipped string `json:"skipped"`
		} `json:"network_peers"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 1 || r.Figures[0].Case != "bmshj2018_2" || len(r.NetPeers) == 0 ||
		r.NetPeers[0].Case != "bmshj2018_2" || !strings.Contains(r.NetPeers[0].Skipped, "not installed") {
		t.Fatalf("report %+v", r)
	}
	if rc := dispatch([]string{"bench", "--bmshj-sizes", "0"}, &so, &se); rc != 2 {
		t.Fatalf("--bmshj-sizes 0: exit %d, want 2", rc)
	}
}

// TestBenchConvPeersMissing: `bench --peers onednn,ort-qlinear` with a
// peers directory holding neither peer notes each on stderr, once, with
// why, and still writes the report, exit 0.
func TestBenchConvPeersMissing(t *testing.T) {
	out := t.TempDir()
	var so, se bytes.Buffer
	args := []string{"bench", "--quick", "--fabric", "cpu", "--ops", "conv1x1", "--sizes", "4", "--runs", "1",
		"--peers", "onednn,ort-qlinear", "--peers-dir", t.TempDir(), "--out", out}
	if rc := dispatch(args, &so, &se); rc != 0 {
		t.Fatalf("exit %d: %s", rc, se.String())
	}
	for _, want := range []string{"note: peer onednn skipped: onednn_conv.c not in ", "note: peer ort-qlinear skipped: "} {
		if n := strings.Count(se.String(), want); n != 1 {
			t.Errorf("%q %d times on stderr, want once:\n%s", want, n, se.String())
		}
	}
	if _, err := os.Stat(filepath.Join(out, "bench.md")); err != nil {
		t.Fatal(err)
	}
}
