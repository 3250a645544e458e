package spectest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// root is the checkout's root, from this package's folder.
const root = "../.."

// tableRow is one row of docs/REFUSALS.md.
type tableRow struct {
	spec, where, reach string
}

// refusalTable reads docs/REFUSALS.md's table: code → its row.
func refusalTable(t *testing.T) map[refusal.Code]tableRow {
	b, err := os.ReadFile(filepath.Join(root, "docs", "REFUSALS.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\|$")
	rows := map[refusal.Code]tableRow{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("REFUSALS.md: a row that does not read: %s", line)
		}
		c := refusal.Code(m[1])
		if _, twice := rows[c]; twice {
			t.Fatalf("REFUSALS.md: %s twice", c)
		}
		rows[c] = tableRow{m[2], m[3], m[4]}
	}
	return rows
}

// declaredCodes returns every code the Go sources outside tests declare
// (a refusal.Code constant or conversion of a string literal), with the
// file that declares it.
func declaredCodes(t *testing.T) map[refusal.Code]string {
	decl := regexp.MustCompile(`(?:\bCode\s*=|refusal\.Code\s*=|refusal\.Code\()\s*"([^"]*)"`)
	out := map[refusal.Code]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[refusal.Code(m[1])] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// vectors.LoadOK is the outcome of a graph that loads, not a refusal,
	// and "" is a case that expects none.
	delete(out, "ok")
	delete(out, "")
	return out
}

// TestRefusalTable keeps docs/REFUSALS.md in step with the specs and the
// code: it lists exactly the spec codes, each with its spec and section as
// Codes has them; every code the sources declare is there with a reaching
// case; and every path a reaching case names exists.
func TestRefusalTable(t *testing.T) {
	rows := refusalTable(t)
	for c, r := range rows {
		src, ok := Codes[c]
		if !ok {
			t.Errorf("REFUSALS.md: %s is not a spec code", c)
			continue
		}
		if want := src.Spec + " " + src.Section; r.spec != want {
			t.Errorf("REFUSALS.md: %s is %s's, not %s", c, want, r.spec)
		}
	}
	for c, src := range Codes {
		if _, ok := rows[c]; !ok {
			t.Errorf("REFUSALS.md lacks %s (%s %s)", c, src.Spec, src.Section)
		}
	}
	declared := declaredCodes(t)
	if len(declared) == 0 {
		t.Fatal("no declared codes found: the scan is broken")
	}
	for c, file := range declared {
		r, ok := rows[c]
		switch {
		case !ok:
			t.Errorf("%s declares %s, which REFUSALS.md lacks", file, c)
		case r.reach == "pending":
			t.Errorf("%s declares %s; REFUSALS.md still has its reaching case pending", file, c)
		}
	}
	path := regexp.MustCompile("`([a-z0-9_./-]+/[a-z0-9_.-]+)`")
	for c, r := range rows {
		if r.reach == "pending" {
			continue
		}
		ps := path.FindAllStringSubmatch(r.reach, -1)
		if len(ps) == 0 {
			t.Errorf("REFUSALS.md: %s names no vector or test", c)
		}
		for _, p := range ps {
			if _, err := os.Stat(filepath.Join(root, p[1])); err != nil {
				t.Errorf("REFUSALS.md: %s: %v", c, err)
			}
		}
	}
}
