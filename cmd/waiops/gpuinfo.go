package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
)

func init() {
	commands["gpu info"] = command{summary: "print the GL fabric's identity, limits and features as JSON", run: gpuInfoCmd}
}

// gpuInfo is what `waiops gpu info` prints.
type gpuInfo struct {
	Identity map[string]string `json:"identity"` // as a conformance report names the fabric
	Features gpu.Features      `json:"features"`
}

// gpuInfoCmd is `waiops gpu info`: the GL fabric's identity and
// limits as conformance reports give them, and its features, as one JSON
// object. Without a GL context it says why on stderr, exit 1.
func gpuInfoCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gpu info", stderr)
	if _, ok := positionals(fs, args, 0, nil); !ok {
		return 2
	}
	f, err := fabric.OpenGPU()
	if err != nil {
		return fail(err, stderr)
	}
	d, err := gpu.Open() // the device plan opened: one context per process
	if err != nil {
		return fail(err, stderr)
	}
	feat, err := d.Features()
	if err != nil {
		return fail(err, stderr)
	}
	b, err := json.MarshalIndent(gpuInfo{Identity: f.Identity(), Features: feat}, "", "  ")
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
