package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/waiops/waiops/fabric"
)

// TestGPUInfo: with a GL context, `waiops gpu info` prints one JSON object
// whose identity is the fabric's and whose features list extensions;
// without one it says why on stderr and exits 1. A positional argument is a usage error.
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
	if rc := dispatch([]string{"gpu", "info", "extra"}, &so, &se); rc != 2 {
		t.Fatalf("gpu info extra: exit %d, want 2", rc)
	}
}
