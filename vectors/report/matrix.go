package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
)

// MatrixCommand is the command that writes the matrix pages; their first
// line names it.
const MatrixCommand = "waiops conform matrix"

// MatrixRow is one fabric's report as the matrix reads it from its
// conformance.json.
type MatrixRow struct {
	Dir      string // the report's folder, relative to the matrix's
	Fabric   string
	Profile  string
	Identity []string // "key: value", in sorted order of the keys
	Corpus   string
	Date     string // "" in a report written before reports carried one
	Groups   map[string]conform.Tally
	Passed   int
	Failed   int
}

// Matrix is every report under one folder: a row per fabric, a column per
// group (an operator's file, a §14.2 graph file, a stage operator), split
// by corpus part.
type Matrix struct {
	Root  string // the folder, as named to ReadMatrix
	Rows  []MatrixRow
	Parts []MatrixPart
}

// MatrixPart is one part of the corpus (ops, graphs, stage) and its groups.
type MatrixPart struct {
	Name   string
	Groups []string
}

// ReadMatrix reads dir/*/conformance.json, one report per subfolder, in
// sorted order of the folders. A folder without a report is skipped; a
// report that cannot be read fails.
func ReadMatrix(dir string) (*Matrix, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "conformance.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no */conformance.json under %s", dir)
	}
	sort.Strings(paths)
	m := &Matrix{Root: dir}
	seen := map[string]bool{}
	for _, p := range paths {
		row, err := readMatrixRow(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		m.Rows = append(m.Rows, row)
		for g := range row.Groups {
			seen[g] = true
		}
	}
	parts := map[string][]string{}
	for g := range seen {
		part := "ops"
		if k, _, ok := strings.Cut(g, "/"); ok {
			part = k
		}
		parts[part] = append(parts[part], g)
	}
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	// The corpus's own order (ProjectDirs), then any other part by name.
	rank := func(n string) int {
		for i, d := range vectors.ProjectDirs {
			if d == n {
				return i
			}
		}
		return len(vectors.ProjectDirs)
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		sort.Strings(parts[n])
		m.Parts = append(m.Parts, MatrixPart{Name: n, Groups: parts[n]})
	}
	return m, nil
}

func readMatrixRow(path string) (MatrixRow, error) {
	var r MatrixRow
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	v, err := cjson.Unmarshal(b)
	if err != nil {
		return r, err
	}
	top, ok := v.(map[string]any)
	if !ok {
		return r, fmt.Errorf("a report is an object")
	}
	r.Dir = filepath.ToSlash(filepath.Base(filepath.Dir(path)))
	fab, _ := top["fabric"].(map[string]any)
	r.Fabric, _ = fab["name"].(string)
	r.Profile, _ = fab["profile"].(string)
	id, _ := fab["identity"].(map[string]any)
	keys := make([]string, 0, len(id))
	for k := range id {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Identity = append(r.Identity, fmt.Sprintf("%s: %v", k, id[k]))
	}
	r.Corpus, _ = top["corpus_sha256"].(string)
	r.Date, _ = top["date"].(string)
	if r.Fabric == "" || r.Corpus == "" {
		return r, fmt.Errorf("no fabric name or corpus digest")
	}
	count := func(m map[string]any, k string) (int, error) {
		n, err := cjson.Int(m[k])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s: want a count, have %v", k, m[k])
		}
		return int(n), nil
	}
	if r.Passed, err = count(top, "passed"); err != nil {
		return r, err
	}
	if r.Failed, err = count(top, "failed"); err != nil {
		return r, err
	}
	groups, ok := top["groups"].(map[string]any)
	if !ok {
		return r, fmt.Errorf("no groups")
	}
	r.Groups = map[string]conform.Tally{}
	for g, t := range groups {
		tm, ok := t.(map[string]any)
		if !ok {
			return r, fmt.Errorf("group %s is not an object", g)
		}
		var tl conform.Tally
		if tl.Passed, err = count(tm, "passed"); err != nil {
			return r, fmt.Errorf("group %s: %w", g, err)
		}
		if tl.Failed, err = count(tm, "failed"); err != nil {
			return r, fmt.Errorf("group %s: %w", g, err)
		}
		r.Groups[g] = tl
	}
	return r, nil
}

// Cell is the text of row r's cell for group g: "pass N" when all N of
// its vectors passed, "FAIL F of N" when F failed, "–" when the fabric ran
// none (a group of another profile, or stage vectors off the CPU).
func (r MatrixRow) Cell(g string) string {
	t, ok := r.Groups[g]
	switch {
	case !ok:
		return "–"
	case t.Failed == 0:
		return fmt.Sprintf("pass %d", t.Passed)
	}
	return fmt.Sprintf("FAIL %d of %d", t.Failed, t.Passed+t.Failed)
}

// Failing reports whether any vector of group g failed on r.
func (r MatrixRow) Failing(g string) bool { return r.Groups[g].Failed > 0 }

// Header is the pages' first line: what wrote them.
func (m *Matrix) Header() string {
	return fmt.Sprintf("generated by `%s %s` from the reports beside it; do not edit", MatrixCommand, filepath.ToSlash(m.Root))
}

// Markdown is the matrix as a Markdown page: the fabrics (identity,
// corpus digest, date, totals), then one table per corpus part with a row
// per fabric and a column per group.
func (m *Matrix) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- %s -->\n", m.Header())
	b.WriteString("# Conformance matrix\n\n")
	b.WriteString("Each row is one fabric's report in the folder it names; each cell is one operator's\n")
	b.WriteString("vector file, §14.2 graph file or stage operator: `pass N` when all N vectors passed,\n")
	b.WriteString("`FAIL F of N` when F failed, `–` when the fabric runs none of them.\n\n")
	b.WriteString("| fabric | profile | identity | corpus SHA-256 | date | passed | failed |\n|---|---|---|---|---|---|---|\n")
	for _, r := range m.Rows {
		date := r.Date
		if date == "" {
			date = "–"
		}
		fmt.Fprintf(&b, "| [%s](%s/conformance.html) | %s | %s | `%s` | %s | %d | %d |\n",
			mdCell(r.Dir), r.Dir, mdCell(r.Profile), mdCell(strings.Join(r.Identity, "; ")), r.Corpus, date, r.Passed, r.Failed)
	}
	for _, p := range m.Parts {
		fmt.Fprintf(&b, "\n## %s\n\n| fabric |", p.Name)
		for _, g := range p.Groups {
			fmt.Fprintf(&b, " %s |", mdCell(strings.TrimPrefix(g, p.Name+"/")))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(p.Groups)) + "\n")
		for _, r := range m.Rows {
			fmt.Fprintf(&b, "| %s |", mdCell(r.Dir))
			for _, g := range p.Groups {
				c := r.Cell(g)
				if r.Failing(g) {
					c = "**" + c + "**"
				}
				fmt.Fprintf(&b, " %s |", c)
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// mdCell keeps a value inside its table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// HTML is the matrix as a self-contained page (no script, no external
// style), the same tables as Markdown.
func (m *Matrix) HTML() ([]byte, error) {
	var b bytes.Buffer
	// html/template drops the comments of a template: the first line is
	// written here.
	fmt.Fprintf(&b, "<!-- %s -->\n", m.Header())
	if err := matrixPage.Execute(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteMatrix reads dir's reports and writes dir/index.md and
// dir/index.html.
func WriteMatrix(dir string) error {
	m, err := ReadMatrix(dir)
	if err != nil {
		return err
	}
	h, err := m.HTML()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.md"), m.Markdown(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), h, 0o644)
}

var matrixPage = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"short": func(p MatrixPart, g string) string { return strings.TrimPrefix(g, p.Name+"/") },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>wai-ops/1 conformance matrix</title>
<style>
body{font-family:sans-serif;margin:2em}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #999;padding:.2em .5em;text-align:left;vertical-align:top}
.fail{background:#fdd;color:#a00;font-weight:bold}.pass{color:#060}.none{color:#999}
.id{font-size:85%;max-width:40em}code{font-size:85%}
</style></head><body>
<h1>wai-ops/1 conformance matrix</h1>
<p>Each row is one fabric's report; each cell is one operator's vector file, §14.2 graph file or
stage operator: <em>pass N</em> when all N vectors passed, <em>FAIL F of N</em> when F failed,
– when the fabric runs none of them.</p>
<table><tr><th>fabric</th><th>profile</th><th>identity</th><th>corpus SHA-256</th><th>date</th><th>passed</th><th>failed</th></tr>
{{range .Rows}}<tr><td><a href="{{.Dir}}/conformance.html">{{.Dir}}</a></td><td>{{.Profile}}</td><td class="id">{{range $i, $e := .Identity}}{{if $i}}<br>{{end}}{{$e}}{{end}}</td><td><code>{{.Corpus}}</code></td><td>{{if .Date}}{{.Date}}{{else}}–{{end}}</td><td>{{.Passed}}</td><td{{if .Failed}} class="fail"{{end}}>{{.Failed}}</td></tr>
{{end}}</table>
{{range $p := .Parts}}<h2>{{$p.Name}}</h2>
<table><tr><th>fabric</th>{{range $p.Groups}}<th>{{short $p .}}</th>{{end}}</tr>
{{range $r := $.Rows}}<tr><th>{{$r.Dir}}</th>{{range $g := $p.Groups}}{{$c := $r.Cell $g}}<td class="{{if $r.Failing $g}}fail{{else if eq $c "–"}}none{{else}}pass{{end}}">{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{end}}</body></html>
`))
