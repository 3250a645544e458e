package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

func init() {
	commands["run"] = command{summary: "decode a WHG1 graph on a fabric the planner picks", run: runCmd}
}

// runCmd is `waiops run GRAPH.whg1 --inputs IN.json [--scalars 1,2]
// [--fabric auto|cpu|gpu|hybrid]`: §4's run of one decode, or a sequence of
// decodes through one state (§10.3).
func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stderr)
	setUsage(fs, "GRAPH.whg1 --inputs IN.json [--scalars 1,2] "+fabricUsage(graphFabrics))
	inPath := fs.String("inputs", "", "JSON file: an array of data input tensors (one decode), or {\"decodes\":[{\"inputs\":[...],\"scalars\":[...]}]}")
	scalarList := fs.String("scalars", "", "comma-separated scalar values for a single decode")
	fab := fabricFlag(fs, "auto", graphFabrics)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 || *inPath == "" {
		fs.Usage()
		return 2
	}
	choice, err := fabric.ParseChoice(*fab)
	if err != nil {
		return fail(err, stderr)
	}
	graphBytes, err := os.ReadFile(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	raw, err := os.ReadFile(*inPath)
	if err != nil {
		return fail(err, stderr)
	}
	decodes, sequence, err := readDecodes(raw, *scalarList)
	if err != nil {
		return fail(fmt.Errorf("%s: %v", *inPath, err), stderr)
	}
	sess, err := plan.NewSession(fabric.Options{Fabric: choice, Notes: stderr})
	if err != nil {
		return fail(err, stderr)
	}
	defer sess.Close()
	if sess.Note() != "" {
		fmt.Fprintln(stderr, "note:", sess.Note())
	}
	g, err := sess.Load(graphBytes)
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintln(stderr, "fabric:", g.Fabric().Name())
	seq := g.Sequence()
	if !sequence {
		outs, err := seq.Decode(decodes[0].inputs, decodes[0].scalars)
		if err != nil {
			return fail(err, stderr)
		}
		return writeJSON(stdout, stderr, tensor.ListJSON(outs))
	}
	results := make([]any, len(decodes))
	for i, d := range decodes {
		outs, err := seq.Decode(d.inputs, d.scalars)
		var r *refusal.Error
		switch {
		case errors.As(err, &r):
			// §10.3: a refused decode is that decode's outcome and leaves the
			// state as it was; the sequence goes on. The reason goes to stderr.
			fmt.Fprintf(stderr, "refuse %s: decode %d: %s\n", r.Code, i, oneLine(r.Msg))
			results[i] = map[string]any{"refuse": string(r.Code)}
		case err != nil:
			return fail(err, stderr)
		default:
			results[i] = map[string]any{"outputs": tensor.ListJSON(outs)}
		}
	}
	return writeJSON(stdout, stderr, map[string]any{"decodes": results})
}

type decodeArgs struct {
	inputs  []*tensor.T
	scalars []int64
}

// readDecodes reads IN.json: an array of tensors is one decode (with the
// --scalars flag); an object {"decodes": [...]} is a sequence.
func readDecodes(raw []byte, scalarList string) ([]decodeArgs, bool, error) {
	v, err := cjson.Unmarshal(raw)
	if err != nil {
		return nil, false, err
	}
	if arr, ok := v.([]any); ok {
		ins, err := tensor.ListFromJSON(arr)
		if err != nil {
			return nil, false, err
		}
		sc, err := parseScalarList(scalarList)
		if err != nil {
			return nil, false, err
		}
		return []decodeArgs{{ins, sc}}, false, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("want an array of tensors or an object with \"decodes\"")
	}
	list, ok := obj["decodes"].([]any)
	if !ok || len(obj) != 1 {
		return nil, false, fmt.Errorf("want exactly one member, \"decodes\", an array")
	}
	out := make([]decodeArgs, len(list))
	for i, d := range list {
		m, ok := d.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("decodes[%d]: want an object", i)
		}
		ins, err := tensor.ListFromJSON(m["inputs"])
		if err != nil {
			return nil, false, fmt.Errorf("decodes[%d]: %v", i, err)
		}
		out[i].inputs = ins
		if sv, present := m["scalars"]; present {
			sl, ok := sv.([]any)
			if !ok {
				return nil, false, fmt.Errorf("decodes[%d]: scalars must be an array", i)
			}
			for j, s := range sl {
				n, err := cjson.Int(s)
				if err != nil {
					return nil, false, fmt.Errorf("decodes[%d].scalars[%d]: %v", i, j, err)
				}
				out[i].scalars = append(out[i].scalars, n)
			}
		}
	}
	return out, true, nil
}

func parseScalarList(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--scalars: %v", err)
		}
		out = append(out, n)
	}
	return out, nil
}

// writeJSON writes v as canonical JSON and a newline.
func writeJSON(stdout, stderr io.Writer, v any) int {
	b, err := cjson.Marshal(v)
	if err != nil {
		return fail(err, stderr)
	}
	stdout.Write(append(b, '\n'))
	return 0
}
