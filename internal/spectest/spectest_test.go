package spectest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// specDir is where the spec texts are: $WAIOPS_SPEC, else the shared
// folder beside the checkout. It is "" when neither holds them.
func specDir() string {
	for _, d := range []string{os.Getenv("WAIOPS_SPEC"), "../../../shared/spec"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "prior-carriage.md")); err == nil {
			return d
		}
	}
	return ""
}

func readSpec(t *testing.T, name string) string {
	d := specDir()
	if d == "" {
		t.Skip("the spec texts are not at hand (set WAIOPS_SPEC)")
	}
	b, err := os.ReadFile(filepath.Join(d, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tableCodes returns the codes of the first column of the markdown table
// that follows heading in text.
func tableCodes(t *testing.T, text, heading string) []refusal.Code {
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no heading %q", heading)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)` \\|")
	var codes []refusal.Code
	inTable := false
	for _, line := range strings.Split(text[i+len(heading)+2:], "\n") {
		if strings.HasPrefix(line, "|") {
			inTable = true
			if m := row.FindStringSubmatch(line); m != nil {
				codes = append(codes, refusal.Code(m[1]))
			}
			continue
		}
		if inTable {
			break
		}
	}
	if len(codes) == 0 {
		t.Fatalf("%s: no table of codes", heading)
	}
	return codes
}

// TestCodesMatchSpec: Codes holds exactly the codes of prior-carriage's two
// tables and READINGS D-H10, and every code of integer-operators it names
// appears in that text as a word.
func TestCodesMatchSpec(t *testing.T) {
	pc := readSpec(t, "prior-carriage.md")
	want := map[refusal.Code]Source{}
	for _, c := range tableCodes(t, pc, "## 13. Refusals") {
		want[c] = Source{"prior-carriage", "§13"}
	}
	for _, c := range tableCodes(t, pc, "## 20. Refusals of §15 to §19") {
		want[c] = Source{"prior-carriage", "§20"}
	}
	dec := readSpec(t, "DECISIONS.md")
	i := strings.Index(dec, "10. **Codes.**")
	if i < 0 {
		t.Fatal("DECISIONS.md: no H10")
	}
	h10 := dec[i:]
	if j := strings.Index(h10, "\n\n"); j >= 0 {
		h10 = h10[:j]
	}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(h10, -1) {
		want[refusal.Code(m[1])] = Source{"DECISIONS", "H10"}
	}
	io := readSpec(t, "integer-operators.md")
	for c, src := range Codes {
		switch src.Spec {
		case "integer-operators":
			if !regexp.MustCompile(`(^|[^a-z_])` + string(c) + `([^a-z_]|$)`).MatchString(io) {
				t.Errorf("%s is not a refusal code of integer-operators.md", c)
			}
		case "prior-carriage":
			if src.Section == "§2" || src.Section == "§7" {
				if !strings.Contains(pc, "(`"+string(c)+"`)") && !strings.Contains(pc, "with `"+string(c)+"`") {
					t.Errorf("%s is not a refusal of prior-carriage.md %s", c, src.Section)
				}
				continue
			}
			fallthrough
		default:
			if w, ok := want[c]; !ok || w != src {
				t.Errorf("%s: Codes says %v, the spec tables %v", c, src, w)
			}
		}
	}
	for c, src := range want {
		if _, ok := Codes[c]; !ok {
			t.Errorf("%s (%s %s) is missing from Codes", c, src.Spec, src.Section)
		}
	}
}

// TestRefusal: the helper accepts a spec code and names a foreign one.
func TestRefusal(t *testing.T) {
	r := Refusal(t, refusal.New(refusal.TooLarge, "x"), refusal.TooLarge)
	if r.Code != refusal.TooLarge {
		t.Fatal(r)
	}
	if _, ok := Codes["ok"]; ok {
		t.Fatal(`"ok" is a vector outcome, not a code`)
	}
}
