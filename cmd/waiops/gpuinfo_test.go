package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/whg1"
)

// TestGPUInfo: with a GL context, `waiops gpu info` prints one JSON object
// whose identity is the fabric's and whose features list extensions;
// without one it says why on stderr and exits 1. With a graph it gives the
// device memory the graph holds: a relu of 3 × 2 × 4 declared elements has
// no parameters (0 bytes loaded) and keeps its input and output, 24 words
// each, after a decode. Two positionals are a usage
// error.
func TestGPUInfo(t *testing.T) {
	var so, se bytes.Buffer
	rc := dispatch([]string{"gpu", "info"}, &so, &se)
	f, err := fabric.OpenGPU()
	if err != nil {
		if rc != 1 || so.Len() != 0 || !strings.HasPrefix(se.String(), "waiops: ") {
			t.Fatalf("no GPU (%v): exit %d, stdout %q, stderr %q; want 1", err, rc, so.String(), se.String())
		}
		return
	}
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, se.String())
	}
	var got gpuInfo
	if err := json.Unmarshal(so.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, so.String())
	}
	want := f.Identity()
	if got.Identity["fabric"] != "gpu" || got.Identity["renderer"] != want["renderer"] || len(got.Features.Extensions) == 0 {
		t.Fatalf("gpu info %+v", got)
	}
	g := &whg1.Graph{
		Tensors: []whg1.Tensor{{Channels: 3, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -5, Hi: 5}, {Channels: 3, Exponent: whg1.NoExponent}},
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 2, MaxW: 4}},
		Outputs: []uint32{1},
		Ops:     []whg1.Op{{Code: whg1.OpRelu, In: []uint32{0}, Out: []uint32{1}}},
	}
	path := filepath.Join(t.TempDir(), "relu.whg1")
	if err := os.WriteFile(path, whg1.Encode(g), 0o644); err != nil {
		t.Fatal(err)
	}
	so.Reset()
	if rc := dispatch([]string{"gpu", "info", path}, &so, &se); rc != 0 {
		t.Fatalf("gpu info GRAPH: exit %d: %s", rc, se.String())
	}
	got = gpuInfo{}
	if err := json.Unmarshal(so.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// After one decode at 2×4 the graph holds its two staging buffers and no
	// tensor buffer: the input (3·2·4 = 24 elements in [-5, 5], i8 on the
	// wire) is read packed by relu, and relu stores its output ([0, 5], u8)
	// packed into the output's staging; 24 bytes each, 4 elements a word.
	const held = 24 + 24
	if m := got.Graph; m == nil || m.LoadedBytes != 0 || m.DecodedBytes == nil || *m.DecodedBytes != held {
		t.Fatalf("gpu info GRAPH: %+v, want %d decoded bytes", got.Graph, held)
	}
	if rc := dispatch([]string{"gpu", "info", path, "extra"}, &so, &se); rc != 2 {
		t.Fatalf("gpu info GRAPH extra: exit %d, want 2", rc)
	}
}
