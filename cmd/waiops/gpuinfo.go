package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
)

func init() {
	commands["gpu info"] = command{summary: "print the GL fabric's identity, limits and features as JSON, and with GRAPH.whg1 the device memory that graph holds", run: gpuInfoCmd}
}

// gpuInfo is what `waiops gpu info` prints.
type gpuInfo struct {
	Identity map[string]string `json:"identity"` // as a conformance report names the fabric
	Features gpu.Features      `json:"features"`
	Graph    *graphMemory      `json:"graph,omitempty"`
}

// graphMemory is the device memory one loaded graph holds: its parameters
// once loaded, and with the tensor buffers it keeps after one decode at
// its declared sizes (absent when it declares none).
type graphMemory struct {
	LoadedBytes  int64  `json:"loaded_bytes"`
	DecodedBytes *int64 `json:"decoded_bytes,omitempty"`
}

// measureGraph loads the graph in path on d and decodes it once at its
// declared sizes, every element its declared least value.
func measureGraph(d *gpu.Device, path string) (*graphMemory, error) {
	b, err := os.ReadFile(path) // as run reads a graph
	if err != nil {
		return nil, err
	}
	p, err := d.Load(b)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	m := &graphMemory{LoadedBytes: p.DeviceBytes()}
	g := p.Graph()
	if !g.SizesDeclared() {
		return m, nil
	}
	var ins []*tensor.T
	for _, in := range g.Inputs {
		rec := g.Tensors[in.Tensor]
		t := tensor.New(tensor.Shape{C: int(rec.Channels), H: int(in.MaxH), W: int(in.MaxW)})
		for i := range t.Data {
			t.Data[i] = rec.Lo
		}
		ins = append(ins, t)
	}
	var sc []int64
	for _, s := range g.Scalars {
		sc = append(sc, s.Lo)
	}
	if _, err := p.Decode(ins, sc); err != nil {
		return nil, err
	}
	n := p.DeviceBytes()
	m.DecodedBytes = &n
	return m, nil
}

// gpuInfoCmd is `waiops gpu info`: the GL fabric's identity and
// limits as conformance reports give them, and its features, as one JSON
// object. Without a GL context it says why on stderr, exit 1.
func gpuInfoCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gpu info", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		fs.Usage()
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
	info := gpuInfo{Identity: f.Identity(), Features: feat}
	if len(pos) == 1 {
		if info.Graph, err = measureGraph(d, pos[0]); err != nil {
			return fail(fmt.Errorf("%s: %w", pos[0], err), stderr)
		}
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
