package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/plan"
)

func init() {
	commands["gpu info"] = command{"print the GL fabric's identity, limits and features as JSON", gpuInfoCmd}
}

// gpuInfo is what `waiops gpu info` prints.
type gpuInfo struct {
	Identity map[string]string `json:"identity"` // as a conformance report names the fabric
	Features gpu.Features      `json:"features"`
}

// gpuInfoCmd is `waiops gpu info`: the GL fabric's identity and
// limits as conformance reports give them, and its features, as one JSON
// object. Without a GL context it says why on stderr, exit 2.
func gpuInfoCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gpu info", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: waiops gpu info")
		return 2
	}
	f, err := plan.OpenGPU()
	if err != nil {
		return fail(err, stdout, stderr)
	}
	d, err := gpu.Open() // the device plan opened: one context per process
	if err != nil {
		return fail(err, stdout, stderr)
	}
	feat, err := d.Features()
	if err != nil {
		return fail(err, stdout, stderr)
	}
	b, err := json.MarshalIndent(gpuInfo{Identity: f.Identity(), Features: feat}, "", "  ")
	if err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
