// Package corpus writes, checks and runs vectors/carriage, the corpus of
// prior-carriage §17 to §19 that needs no network: files under files/
// and one case per line of cases.jsonl, each naming an op, its inputs and
// the outcome expected, a result or a §20 code.
//
// It is for `waiops vectors gen|check` (through gen.Parts, package vectors/gen) and
// `waiops conform`; nothing else should import it. An op is a function in
// the ops table, registered from the file of its family (usage.go,
// sealed.go, listing.go, …), and a family adds its cases with a generator
// in gens: adding an op and its cases touches no other file.
package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
)

// Op runs one case over its inputs and returns its result, a value cjson
// writes, or the refusal it ends in. Any other error is the corpus's
// fault, not the case's outcome.
type Op func(in *Inputs) (any, error)

// ops maps a case's op to its function; each family's file adds its own
// in an init.
var ops = map[string]Op{}

// gens are the families' case generators, each registered in an init of
// its file; Files runs them all, in any order (cases are sorted by id).
var gens []func(*Gen)

// reach are the codes the corpus must reach, each by one case at least;
// each family adds the §20 codes of its section in its init.
var reach []refusal.Code

// Inputs are one case's inputs: canonical JSON values by name, where a
// file is named by its path under files/.
type Inputs struct {
	m    map[string]any
	file func(name string) ([]byte, error)
}

// Str returns the string input of that name.
func (in *Inputs) Str(name string) (string, error) {
	v, ok := in.m[name]
	s, isStr := v.(string)
	if !ok || !isStr {
		return "", fmt.Errorf("input %q is not a string", name)
	}
	return s, nil
}

// File returns the bytes of the file the input of that name names.
func (in *Inputs) File(name string) ([]byte, error) {
	p, err := in.Str(name)
	if err != nil {
		return nil, err
	}
	return in.file(p)
}

// FileAt returns the bytes of files/<path> itself, for an op whose input
// names a directory of files.
func (in *Inputs) FileAt(path string) ([]byte, error) { return in.file(path) }

// Gen collects the corpus: files by path under files/, and cases by id.
type Gen struct {
	files map[string][]byte
	cases map[string][]byte
	err   error
}

// File adds files/<name> and returns name, for a case's inputs.
func (g *Gen) File(name string, b []byte) string {
	if old, ok := g.files[name]; ok && !bytes.Equal(old, b) && g.err == nil {
		g.err = fmt.Errorf("files/%s written twice with different bytes", name)
	}
	g.files[name] = b
	return name
}

// Case runs op over inputs (its files added first) and adds the case,
// whose outcome must be want: "" for a result, else that refusal code.
// The expected result is what the op returns, so a generator states the
// code by hand and the family's unit tests pin the results.
func (g *Gen) Case(id, op string, inputs map[string]any, want refusal.Code) {
	if g.err != nil {
		return
	}
	if _, ok := g.cases[id]; ok {
		g.err = fmt.Errorf("case %q twice", id)
		return
	}
	expect, err := outcome(op, inputs, func(name string) ([]byte, error) {
		b, ok := g.files[name]
		if !ok {
			return nil, fmt.Errorf("no file files/%s", name)
		}
		return b, nil
	})
	if err != nil {
		g.err = fmt.Errorf("case %s: %w", id, err)
		return
	}
	if got := refused(expect); got != want {
		g.err = fmt.Errorf("case %s: outcome %v, the generator wants %q", id, expect, want)
		return
	}
	line, err := cjson.Marshal(map[string]any{"expect": expect, "id": id, "inputs": inputs, "op": op})
	if err != nil {
		g.err = fmt.Errorf("case %s: %w", id, err)
		return
	}
	g.cases[id] = line
}

// outcome runs op and returns the expect member it yields: {"ok": result}
// or {"refuse": code}.
func outcome(op string, inputs map[string]any, file func(string) ([]byte, error)) (map[string]any, error) {
	f, ok := ops[op]
	if !ok {
		return nil, fmt.Errorf("no op %q", op)
	}
	res, err := f(&Inputs{m: inputs, file: file})
	var r *refusal.Error
	switch {
	case errors.As(err, &r):
		return map[string]any{"refuse": string(r.Code)}, nil
	case err != nil:
		return nil, err
	}
	return map[string]any{"ok": res}, nil
}

func refused(expect map[string]any) refusal.Code {
	c, _ := expect["refuse"].(string)
	return refusal.Code(c)
}

// Files is the corpus by path relative to vectors/carriage: README.md,
// files/… and cases.jsonl, the same bytes on every run.
func Files() (map[string][]byte, error) {
	g := &Gen{files: map[string][]byte{}, cases: map[string][]byte{}}
	for _, gen := range gens {
		gen(g)
		if g.err != nil {
			return nil, g.err
		}
	}
	out := map[string][]byte{"README.md": []byte(readme)}
	for n, b := range g.files {
		out["files/"+n] = b
	}
	ids := make([]string, 0, len(g.cases))
	for id := range g.cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var lines []byte
	for _, id := range ids {
		lines = append(append(lines, g.cases[id]...), '\n')
	}
	out["cases.jsonl"] = lines
	return out, nil
}

// Result is what Run found: the cases passed, and one line per case
// failed.
type Result struct {
	Passed   int
	Failures []string
}

// Run runs every case of the corpus in dir (vectors/carriage) over its
// committed files and compares each outcome with the case's expect, the
// result's canonical bytes or the refusal's code. A line that does not
// read, or names an op this build does not have, is a case failed.
func Run(dir string) (Result, error) {
	var res Result
	f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return res, err
	}
	defer f.Close()
	root, err := os.OpenRoot(filepath.Join(dir, "files"))
	if err != nil {
		return res, err
	}
	defer root.Close()
	file := func(name string) ([]byte, error) { return root.ReadFile(name) }
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if msg := runLine(sc.Bytes(), file); msg != "" {
			res.Failures = append(res.Failures, fmt.Sprintf("cases.jsonl line %d: %s", n, msg))
		} else {
			res.Passed++
		}
	}
	return res, sc.Err()
}

// runLine runs one case and returns why it failed, or "".
func runLine(line []byte, file func(string) ([]byte, error)) string {
	v, err := cjson.Unmarshal(line)
	c, _ := v.(map[string]any)
	if err != nil || c == nil {
		return fmt.Sprintf("not a JSON object: %v", err)
	}
	id, _ := c["id"].(string)
	op, _ := c["op"].(string)
	inputs, _ := c["inputs"].(map[string]any)
	expect, _ := c["expect"].(map[string]any)
	if id == "" || inputs == nil || expect == nil || len(c) != 4 {
		return fmt.Sprintf("%s: not a case of id, op, inputs and expect", id)
	}
	got, err := outcome(op, inputs, file)
	if err != nil {
		return fmt.Sprintf("%s: %v", id, err)
	}
	gb, err := cjson.Marshal(got)
	if err != nil {
		return fmt.Sprintf("%s: %v", id, err)
	}
	// expect went through encoding/json: marshal it again to compare.
	wb, err := cjson.Marshal(expect)
	if err != nil {
		return fmt.Sprintf("%s: expect: %v", id, err)
	}
	if !bytes.Equal(gb, wb) {
		return fmt.Sprintf("%s: %s, expected %s", id, gb, wb)
	}
	return ""
}
