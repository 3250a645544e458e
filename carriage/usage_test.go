package carriage

import (
	"errors"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// statement is a usage statement with licence and terms as JSON values.
func statement(licence, terms string) string {
	return `{"kind":"wai-set-usage","licence":` + licence + `,"terms":` + terms +
		`,"content_derived":true,"redistribute":false,"ai_usage":null}`
}

func TestLicenceGrammar(t *testing.T) {
	id1023 := "LicenseRef-" + strings.Repeat("a", 1024-len("LicenseRef-")-1)
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		// Simple expressions: an identifier with "+" or not, a reference.
		{"MIT", true},
		{"GPL-2.0+", true},
		{"GPL-2.0++", false},
		{"+GPL-2.0", false},
		{"GPL-2.0 +", false},
		{"+", false},
		{"LicenseRef-my.Licence-1", true},
		{"LicenseRef-", false},
		{"LicenseRef-x+", false},
		{"DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2", true},
		{"DocumentRef-doc:MIT", false},
		{"DocumentRef-doc", false},
		{"DocumentRef-:LicenseRef-a", false},
		{"DocumentRef-doc:LicenseRef-", false},
		{"DocumentRef-a:b:LicenseRef-c", false},
		// Identifiers: letters, digits, '-' and '.' only; not looked up.
		{"Not-On-Any.List-9", true},
		{"MIT_2", false},
		{"MIT/2", false},
		{"Licença", false},
		// WITH and an exception identifier.
		{"GPL-2.0-or-later WITH Bison-exception-2.2", true},
		{"GPL-2.0+ WITH Classpath-exception-2.0", true},
		{"LicenseRef-a WITH b", true},
		{"MIT WITH", false},
		{"MIT WITH a+", false},
		{"MIT WITH LicenseRef-a:b", false},
		{"MIT WITH a WITH b", false},
		{"(MIT OR BSD) WITH a", false},
		{"MIT WITH (a)", false},
		// AND, OR, parentheses.
		{"MIT AND BSD-3-Clause OR Apache-2.0", true},
		{"(MIT OR BSD-3-Clause) AND (Apache-2.0 WITH LLVM-exception)", true},
		{"((MIT))", true},
		{"(MIT", false},
		{"MIT)", false},
		{"(MIT))", false},
		{"((MIT)", false},
		{"()", false},
		{"MIT AND", false},
		{"AND MIT", false},
		{"MIT BSD", false},
		{"MIT AND AND BSD", false},
		{"MIT OR", false},
		// Operators upper case.
		{"MIT and BSD", false},
		{"MIT Or BSD", false},
		{"MIT with a", false},
		{"and", false},
		// Single spaces: none inside parentheses, one elsewhere.
		{"MIT  AND BSD", false},
		{"MIT AND  BSD", false},
		{" MIT", false},
		{"MIT ", false},
		{"( MIT)", false},
		{"(MIT )", false},
		{"MIT AND(BSD)", false},
		{"(MIT)AND BSD", false},
		{"MIT\tAND BSD", false},
		{"", false},
		// At most 1024 bytes.
		{id1023, true},
		{id1023 + "b", true},
		{id1023 + "bc", false},
	} {
		err := CheckLicence(c.expr)
		if (err == nil) != c.ok {
			t.Errorf("%.60q: %v, want ok %v", c.expr, err, c.ok)
		}
	}
	if n := len(id1023 + "b"); n != 1024 {
		t.Fatalf("edge case is %d bytes", n)
	}
}

func TestLicenceDeepParentheses(t *testing.T) {
	// 510 levels fit in 1023 bytes; nothing there is refused for depth.
	e := strings.Repeat("(", 510) + "MIT" + strings.Repeat(")", 509)
	if err := CheckLicence(e + ")"); err != nil {
		t.Errorf("510 levels: %v", err)
	}
	if err := CheckLicence(e); err == nil {
		t.Errorf("510 opened, 509 closed: admitted")
	}
}

func TestUsage(t *testing.T) {
	terms := func(n int) string { // an https URI of n bytes
		s := "https://example.com/"
		return `"` + s + strings.Repeat("t", n-len(s)) + `"`
	}
	long := `{"kind":"wai-set-usage","licence":null,"terms":null,"content_derived":false,"redistribute":true,"ai_usage":{"x":"`
	pad := func(n int) string { // a statement of exactly n bytes
		return long + strings.Repeat("y", n-len(long)-3) + `"}}`
	}
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"good", statement(`"MIT"`, `"https://example.com/terms"`), true},
		{"nulls", statement(`null`, `null`), true},
		{"65536 bytes", pad(65536), true},
		{"65537 bytes", pad(65537), false},
		{"whitespace", " {\n\"kind\" : \"wai-set-usage\", \"licence\":null,\"terms\":null,\"content_derived\":false,\"redistribute\":false,\"ai_usage\":null}\n", true},
		{"member twice", `{"kind":"wai-set-usage","kind":"wai-set-usage","licence":null,"terms":null,"content_derived":false,"redistribute":false,"ai_usage":null}`, false},
		{"member twice in ai_usage", strings.Replace(statement(`null`, `null`), `"ai_usage":null`, `"ai_usage":{"a":{"b":1,"b":2}}`, 1), false},
		{"ai_usage object", strings.Replace(statement(`null`, `null`), `"ai_usage":null`, `"ai_usage":{"a":[1,{"b":2}]}`, 1), true},
		{"ai_usage array", strings.Replace(statement(`null`, `null`), `"ai_usage":null`, `"ai_usage":[]`, 1), false},
		{"ai_usage string", strings.Replace(statement(`null`, `null`), `"ai_usage":null`, `"ai_usage":"x"`, 1), false},
		{"seventh member", strings.Replace(statement(`null`, `null`), `{`, `{"x":1,`, 1), false},
		{"member missing", strings.Replace(statement(`null`, `null`), `,"ai_usage":null`, ``, 1), false},
		{"kind other", strings.Replace(statement(`null`, `null`), `wai-set-usage`, `wai-set-usagE`, 1), false},
		{"content_derived string", strings.Replace(statement(`null`, `null`), `"content_derived":true`, `"content_derived":"true"`, 1), false},
		{"redistribute null", strings.Replace(statement(`null`, `null`), `"redistribute":false`, `"redistribute":null`, 1), false},
		{"licence number", statement(`1`, `null`), false},
		{"licence bad", statement(`"MIT and BSD"`, `null`), false},
		{"terms 7 bytes", statement(`null`, `"https:/"`), false},
		{"terms 8 bytes, no host", statement(`null`, `"https://"`), false},
		{"terms 9 bytes", statement(`null`, `"https://a"`), true},
		{"terms 2048 bytes", statement(`null`, terms(2048)), true},
		{"terms 2049 bytes", statement(`null`, terms(2049)), false},
		{"terms http", statement(`null`, `"http://example.com/"`), false},
		{"terms space", statement(`null`, `"https://example.com/a b"`), false},
		{"terms non-ASCII", statement(`null`, `"https://example.com/é"`), false},
		{"terms empty host", statement(`null`, `"https:///terms"`), false},
		{"terms port only", statement(`null`, `"https://:443/terms"`), false},
		{"terms number", statement(`null`, `8`), false},
		{"not an object", `[]`, false},
		{"not JSON", `{`, false},
		{"invalid UTF-8", strings.Replace(statement(`null`, `null`), `wai-set-usage"`, "wai-set-usage\xff\"", 1), false},
	} {
		u, err := ReadUsage([]byte(c.in))
		var r *refusal.Error
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && err == nil:
			t.Errorf("%s: admitted", c.name)
		case !c.ok && (!errors.As(err, &r) || r.Code != SetUsageMalformed):
			t.Errorf("%s: %v, want set_usage_malformed", c.name, err)
		case c.ok && u == nil:
			t.Errorf("%s: no statement", c.name)
		}
	}
}

// TestUsageReasons: each refusal's reason names the rule it breaks.
func TestUsageReasons(t *testing.T) {
	for _, c := range []struct{ in, why string }{
		{statement(`"MIT  AND BSD"`, `null`), "single spaces"},
		{statement(`"MIT and BSD"`, `null`), "upper case"},
		{statement(`"(MIT"`, `null`), "unbalanced parentheses"},
		{statement(`"MIT)"`, `null`), "unbalanced parentheses"},
		{statement(`"DocumentRef-a:MIT"`, `null`), "LicenseRef-"},
		{statement(`"(MIT OR BSD) WITH a"`, `null`), "simple expression"},
		{statement(`"LicenseRef-a+"`, `null`), "'+' follows a licence identifier only"},
		{statement(`"`+strings.Repeat("a", 1025)+`"`, `null`), "1024"},
		{statement(`null`, `"http://example.com/"`), "https"},
		{statement(`null`, `"https:///x"`), "empty host"},
		{`{"kind":"wai-set-usage","kind":1}`, "named twice"},
		{strings.Repeat(" ", 65537), "65 536"},
	} {
		_, err := ReadUsage([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%.50q: %v, want a reason naming %q", c.in, err, c.why)
		}
	}
}

// TestLicenceReasons: a refusal's reason names the rule broken (§18.1),
// not a rule the expression keeps.
func TestLicenceReasons(t *testing.T) {
	for expr, want := range map[string]string{
		"MIT WITH a WITH b":   "one WITH",
		"(MIT WITH a WITH b)": "one WITH",
		"MIT OR OR BSD":       "where an identifier is expected",
		"(MIT) WITH a":        "simple expression only",
		"MIT AND(BSD)":        "single spaces",
	} {
		if err := CheckLicence(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a reason with %q", expr, err, want)
		}
	}
}
