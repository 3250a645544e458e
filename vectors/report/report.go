// Package report writes a conformance run (a conform.Report) as
// conformance.json and conformance.html, and reads a folder of such reports
// back into the matrix of every fabric against every group: what `waiops
// conform --report` and `waiops conform matrix` use.
package report

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"time"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
)

// Readings names the rules of docs/READINGS.md that the project adopts where
// the spec's text is damaged or cites documents not held, and that a
// conformance result depends on: every report names them, so that a reader
// knows which interpretations its verdicts rest on.
var Readings = []string{
	"docs/READINGS.md D-A: text lost in rendering (abs, sigmoid bounds, tag 4 predicate)",
	"docs/READINGS.md D-B: rans64_decode is CompressAI's rans64",
	"docs/READINGS.md D-C: mc_predict, up2_predict, rate_predict",
	"docs/READINGS.md D-E: readings of text that allows more than one",
	"docs/READINGS.md D-D: native artifact layouts (WHM1, WAM1, WSR1, int_synth payload)",
	"docs/READINGS.md D-F: readings of prior-carriage (NNC decoding, JSON headers, profiles)",
	"docs/READINGS.md D-H: listings, fetches, dcz, plans, usage, keys and pieces (prior-carriage sections 15 to 19)",
}

// JSON is the report as canonical JSON (§8.5): fabric identity, corpus
// digest, the run's date (RFC 3339, UTC), per-group tallies and every
// failure.
func JSON(r *conform.Report) map[string]any {
	id := map[string]any{}
	for k, v := range r.Identity {
		id[vectors.OneLine(k)] = vectors.OneLine(v) // a renderer string may hold any character
	}
	groups := map[string]any{}
	for n, t := range r.Groups {
		groups[n] = map[string]any{"failed": t.Failed, "passed": t.Passed}
	}
	fails := make([]any, len(r.Failures))
	for i, f := range r.Failures {
		fails[i] = map[string]any{"decode": f.Decode, "file": vectors.OneLine(f.File), "group": f.Group, "id": f.ID, "what": f.What}
		if f.Line > 0 {
			fails[i].(map[string]any)["line"] = f.Line
		}
	}
	return map[string]any{
		"corpus_sha256": r.Corpus,
		"date":          r.Date.Format(time.RFC3339),
		"failed":        r.Failed,
		"failures":      fails,
		"fabric":        map[string]any{"identity": id, "name": r.Fabric, "profile": r.Profile},
		"files":         r.Files,
		"groups":        groups,
		"passed":        r.Passed,
		"readings":      Readings,
	}
}

// Write writes r's conformance.json and conformance.html into dir.
func Write(r *conform.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := cjson.Marshal(JSON(r))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	var h bytes.Buffer
	if err := htmlReport.Execute(&h, page{r, Readings}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "conformance.html"), h.Bytes(), 0o644)
}

// htmlReport is a self-contained page: no script, no external style.
var htmlReport = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>wai-ops/1 conformance: {{.Fabric}} ({{.Profile}})</title>
<style>
body{font-family:sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #999;padding:.2em .6em;text-align:left}
.fail{color:#a00}.pass{color:#060}code{font-size:90%}
</style></head><body>
<h1>wai-ops/1 conformance: {{.Fabric}} fabric, profile {{.Profile}}</h1>
<p class="{{if .Failed}}fail{{else}}pass{{end}}"><strong>{{.Passed}} passed, {{.Failed}} failed</strong></p>
<h2>Fabric</h2>
<table>{{range $k, $v := .Identity}}<tr><th>{{$k}}</th><td>{{$v}}</td></tr>{{end}}</table>
<h2>Corpus</h2>
<p>{{.Files}} files; SHA-256 over their bytes in sorted order: <code>{{.Corpus}}</code>; run {{.Date.Format "2006-01-02T15:04:05Z07:00"}}</p>
<h2>Per operator</h2>
<table><tr><th>operator or file</th><th>passed</th><th>failed</th></tr>
{{range $n := .GroupNames}}{{with index $.Groups $n}}<tr><td>{{$n}}</td><td>{{.Passed}}</td><td{{if .Failed}} class="fail"{{end}}>{{.Failed}}</td></tr>{{end}}
{{end}}</table>
<h2>Failures</h2>
{{if .Failures}}<table><tr><th>file</th><th>vector</th><th>decode</th><th>first difference</th></tr>
{{range .Failures}}<tr><td>{{.File}}</td><td><code>{{.ID}}</code></td><td>{{if .Line}}line {{.Line}}{{else if lt .Decode 0}}load{{else}}{{.Decode}}{{end}}</td><td>{{.What}}</td></tr>
{{end}}</table>{{else}}<p>None.</p>{{end}}
<h2>Readings</h2>
<ul>{{range .Readings}}<li>{{.}}</li>{{end}}</ul>
</body></html>
`))

// page is what the HTML template reads: the report's fields and methods,
// and the readings it rests on.
type page struct {
	*conform.Report
	Readings []string
}
