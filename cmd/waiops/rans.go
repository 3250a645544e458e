package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
)

func init() {
	commands["rans encode"] = command{summary: "encode symbols as a CompressAI-compatible rans64 stream (integer-operators E1)", run: runRansEncode}
	commands["rans decode"] = command{summary: "decode a rans64 stream under E1's modes (integer-operators §5E)", run: runRansDecode}
}

// ransHelp says how both rans commands read their input.
const ransHelp = `Input: one JSON object, from FILE or from stdin when FILE is absent or "-",
in the stage form of integer-operators §14.1, every integer a decimal string:
  decode: {"stream": hex, "tables": [{"cdf": [...], "offset": o}...], "reads": [table index...]}
  encode: the same with "symbols": [...] in place of "stream".
The modes are E1's (integer-operators §5E): give them as a "modes" member, in the §14.1
form {"table", "escape", "end"[, "lo", "hi"]}, or with the flags below; not both.
Output: canonical JSON on stdout, {"symbols": [...]} or {"stream": hex}.
A refusal prints "refuse <code>: <why>" on stderr and exits 3; input that does
not read as that object exits 1. encode decodes its stream
back under the modes and refuses what that decode refuses.
`

// ransFlags registers the mode flags and returns a function that forms the
// modes object once the flags are parsed.
func ransFlags(fs *flag.FlagSet) func() map[string]any {
	table := fs.String("table", "t4097", "table rule: t4097 or t2")
	escape := fs.String("escape", "lenient", "escape rule: lenient or strict")
	end := fs.String("end", "canonical", "end rule: canonical or final_only")
	lo := fs.Int64("lo", 0, "strict's lo")
	hi := fs.Int64("hi", 0, "strict's hi")
	return func() map[string]any {
		m := map[string]any{"table": *table, "escape": *escape, "end": *end}
		if *escape == "strict" {
			m["lo"], m["hi"] = fmt.Sprint(*lo), fmt.Sprint(*hi)
		}
		return m
	}
}

// ransInput parses the arguments and reads the input object and its modes.
// A usage error gives a nonzero exit status and a nil error.
func ransInput(name string, args []string, stdin io.Reader, stderr io.Writer) (map[string]any, stage.RansModes, int, error) {
	fs := newFlags(name, stderr)
	modesOf := ransFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: waiops %s [--table t4097|t2] [--escape lenient|strict] [--end canonical|final_only] [--lo N] [--hi N] [FILE]\n%s", name, ransHelp)
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) > 1 {
		if err == nil {
			fs.Usage()
		}
		return nil, stage.RansModes{}, 2, nil
	}
	var raw []byte
	if len(pos) == 0 || pos[0] == "-" {
		if isTerminal(stdin) {
			fmt.Fprintf(stderr, "waiops %s: reading the input object from stdin (end it with Ctrl-D; -h for its form)\n", name)
		}
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return nil, stage.RansModes{}, 0, err
	}
	v, err := cjson.Unmarshal(raw)
	if err != nil {
		return nil, stage.RansModes{}, 0, err
	}
	in, ok := v.(map[string]any)
	if !ok {
		return nil, stage.RansModes{}, 0, fmt.Errorf("the input is not a JSON object")
	}
	modes := modesOf()
	if mv, ok := in["modes"]; ok {
		flagged := false
		fs.Visit(func(*flag.Flag) { flagged = true })
		mm, isObj := mv.(map[string]any)
		if flagged {
			return nil, stage.RansModes{}, usageError(fs, fmt.Errorf("give the modes as an object member or as flags, not both")), nil
		}
		if !isObj {
			return nil, stage.RansModes{}, 0, fmt.Errorf("the input's modes member is not an object")
		}
		modes = mm
	}
	m, err := stage.RansModesOf(modes)
	return in, m, 0, err
}

func runRansDecode(args []string, stdout, stderr io.Writer) int {
	in, m, code, err := ransInput("rans decode", args, stdin, stderr)
	if code != 0 {
		return code
	}
	if err != nil {
		return fail(err, stderr)
	}
	stream, tables, reads, err := stage.RansInOf(in)
	if err != nil {
		return fail(err, stderr)
	}
	var d stage.RansDecoder
	syms, err := d.Decode(stream, tables, reads, m)
	if err != nil {
		return fail(err, stderr)
	}
	return writeJSON(stdout, stderr, map[string]any{"symbols": syms})
}

func runRansEncode(args []string, stdout, stderr io.Writer) int {
	in, m, code, err := ransInput("rans encode", args, stdin, stderr)
	if code != 0 {
		return code
	}
	if err != nil {
		return fail(err, stderr)
	}
	tables, reads, err := stage.RansTablesOf(in)
	if err == nil {
		err = stage.CheckRansTables(tables, reads, m)
	}
	if err != nil {
		return fail(err, stderr)
	}
	l, ok := in["symbols"].([]any)
	if !ok || len(l) != len(reads) {
		return fail(refusal.NewAt(refusal.ModelMismatch, -1, "symbols must be an array of one integer per read"), stderr)
	}
	syms := make([]int64, len(l))
	for i, s := range l {
		if syms[i], err = cjson.Int(s); err != nil {
			return fail(refusal.NewAt(refusal.ModelMismatch, -1, "symbols[%d]: %v", i, err), stderr)
		}
	}
	var e stage.RansEncoder
	for i, s := range syms {
		if err := e.Symbol(tables[reads[i]], s); err != nil {
			return fail(err, stderr)
		}
	}
	stream := e.Bytes()
	var d stage.RansDecoder
	got, err := d.Decode(stream, tables, reads, m)
	if err != nil {
		return fail(err, stderr)
	}
	if !slices.Equal(got, syms) {
		return fail(fmt.Errorf("the stream does not decode back to the symbols (a symbol outside i32 saturates)"), stderr)
	}
	return writeJSON(stdout, stderr, map[string]any{"stream": fmt.Sprintf("%x", stream)})
}
