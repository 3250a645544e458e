package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/waiops/waiops/carriage"
)

// §18.1's statements, good and broken one rule each.

func init() {
	ops["usage"] = func(in *Inputs) (any, error) {
		b, err := in.File("statement")
		if err != nil {
			return nil, err
		}
		u, err := carriage.ReadUsage(b)
		if err != nil {
			return nil, err
		}
		return usageResult(u), nil
	}
	gens = append(gens, genUsage)
	reach = append(reach, carriage.SetUsageMalformed)
}

// usageResult is a statement's fields as a case's result: null for null,
// ai_usage by the SHA-256 of its bytes as written.
func usageResult(u *carriage.Usage) map[string]any {
	str := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	var ai any
	if u.AIUsage != nil {
		h := sha256.Sum256(u.AIUsage)
		ai = hex.EncodeToString(h[:])
	}
	return map[string]any{
		"ai_usage_sha256": ai, "content_derived": u.ContentDerived, "licence": str(u.Licence),
		"redistribute": u.Redistribute, "terms": str(u.Terms),
	}
}

// stmt writes a statement with the members' JSON values given; a member
// given as "" is left out.
func stmt(licence, terms, derived, redistribute, ai string) string {
	var parts []string
	add := func(name, v string) {
		if v != "" {
			parts = append(parts, `"`+name+`":`+v)
		}
	}
	add("kind", `"wai-set-usage"`)
	add("licence", licence)
	add("terms", terms)
	add("content_derived", derived)
	add("redistribute", redistribute)
	add("ai_usage", ai)
	return "{" + strings.Join(parts, ",") + "}"
}

// The statements the sealed sets and listings bind.
var (
	titleUsage = stmt(`"LicenseRef-wai-title-terms"`, `"https://example.com/titles/terms"`, "true", "false", `{"train":"no"}`)
	setUsage   = stmt(`"CC-BY-4.0 OR MIT"`, `"https://example.com/sets/terms"`, "false", "true", "null")
)

func genUsage(g *Gen) {
	q := func(s string) string { return `"` + s + `"` }
	lic := func(l string) string { return stmt(q(l), "null", "false", "false", "null") }
	terms := func(t string) string { return stmt("null", q(t), "false", "false", "null") }
	nulls := stmt("null", "null", "false", "false", "null")
	ref := "LicenseRef-" + strings.Repeat("a", 1024-len("LicenseRef-"))
	https := "https://example.com/"
	// A statement of exactly n bytes, padded inside ai_usage.
	padded := func(n int) string {
		head := stmt("null", "null", "false", "false", `{"pad":"`)
		head = head[:len(head)-1] // the statement's closing brace
		return head + strings.Repeat("p", n-len(head)-3) + `"}}`
	}
	good := []struct{ id, text string }{
		{"nulls", nulls},
		{"title", titleUsage},
		{"set", setUsage},
		{"licence_plus", lic("GPL-2.0+")},
		{"licence_ref", lic("LicenseRef-my.licence-2")},
		{"licence_document_ref", lic("DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2")},
		{"licence_with", lic("GPL-2.0-or-later WITH Bison-exception-2.2")},
		{"licence_compound", lic("(MIT OR BSD-3-Clause) AND (Apache-2.0 WITH LLVM-exception)")},
		{"licence_nested", lic("((MIT))")},
		{"licence_unlisted", lic("Not-On-The.List-9")},
		{"licence_1024_bytes", lic(ref)},
		{"terms_9_bytes", terms("https://a")},
		{"terms_2048_bytes", terms(https + strings.Repeat("t", 2048-len(https)))},
		{"terms_port_query", terms("https://example.com:8443/t?a=1#f")},
		{"whitespace", " {\n  \"ai_usage\" : null ,\"redistribute\":false, \"content_derived\":false,\"terms\":null,\"licence\":null,\"kind\":\"wai-set-usage\"}\n"},
		{"ai_usage_nested", stmt("null", "null", "true", "true", `{"a":[1,{"b":"é"}],"c":{}}`)},
		{"65536_bytes", padded(65536)},
	}
	for _, c := range good {
		g.Case("usage.good."+c.id, "usage", map[string]any{"statement": g.File("usage/"+c.id+".json", []byte(c.text))}, "")
	}
	bad := []struct{ id, text string }{
		{"65537_bytes", padded(65537)},
		{"not_json", `{"kind":`},
		{"not_an_object", `["wai-set-usage"]`},
		{"invalid_utf8", strings.Replace(nulls, `"wai-set-usage"`, "\"wai-set-usage\xc3\"", 1)},
		{"member_twice", strings.Replace(nulls, `"licence":null`, `"licence":null,"licence":null`, 1)},
		{"member_twice_in_ai_usage", stmt("null", "null", "false", "false", `{"a":{"b":1,"b":1}}`)},
		{"member_twice_escaped", strings.Replace(nulls, `"licence":null`, `"licence":null,"licenc\u0065":null`, 1)},
		{"seventh_member", strings.Replace(nulls, `{`, `{"note":"x",`, 1)},
		{"missing_member", stmt("null", "null", "false", "", "null")},
		{"kind_other", strings.Replace(nulls, `wai-set-usage`, `wai-usage`, 1)},
		{"content_derived_not_boolean", stmt("null", "null", `"true"`, "false", "null")},
		{"redistribute_null", stmt("null", "null", "false", "null", "null")},
		{"licence_not_string", stmt("1", "null", "false", "false", "null")},
		{"licence_empty", lic("")},
		{"licence_1025_bytes", lic(ref + "b")},
		{"licence_double_space", lic("MIT  OR BSD")},
		{"licence_leading_space", lic(" MIT")},
		{"licence_trailing_space", lic("MIT ")},
		{"licence_space_in_parenthesis", lic("( MIT)")},
		{"licence_no_space_before_parenthesis", lic("MIT AND(BSD)")},
		{"licence_lower_case_and", lic("MIT and BSD")},
		{"licence_mixed_case_or", lic("MIT Or BSD")},
		{"licence_lower_case_with", lic("GPL-2.0 with Classpath-exception-2.0")},
		{"licence_unbalanced_open", lic("(MIT OR BSD")},
		{"licence_unbalanced_close", lic("MIT OR BSD)")},
		{"licence_empty_parentheses", lic("()")},
		{"licence_operator_at_end", lic("MIT AND")},
		{"licence_operator_at_start", lic("OR MIT")},
		{"licence_two_identifiers", lic("MIT BSD")},
		{"licence_plus_twice", lic("GPL-2.0++")},
		{"licence_plus_first", lic("+GPL-2.0")},
		{"licence_plus_apart", lic("GPL-2.0 +")},
		{"licence_plus_on_ref", lic("LicenseRef-a+")},
		{"licence_ref_empty", lic("LicenseRef-")},
		{"licence_document_ref_without_licence_ref", lic("DocumentRef-doc:MIT")},
		{"licence_document_ref_alone", lic("DocumentRef-doc")},
		{"licence_identifier_character", lic("MIT_2")},
		{"licence_with_no_exception", lic("MIT WITH")},
		{"licence_with_after_parenthesis", lic("(MIT OR BSD) WITH a")},
		{"licence_with_twice", lic("MIT WITH a WITH b")},
		{"terms_not_string", stmt("null", "8", "false", "false", "null")},
		{"terms_7_bytes", terms("https:/")},
		{"terms_empty_host", terms("https:///terms")},
		{"terms_2049_bytes", terms(https + strings.Repeat("t", 2049-len(https)))},
		{"terms_http", terms("http://example.com/terms")},
		{"terms_space", terms("https://example.com/a b")},
		{"terms_non_ascii", terms("https://example.com/é")},
		{"ai_usage_array", stmt("null", "null", "false", "false", "[]")},
		{"ai_usage_false", stmt("null", "null", "false", "false", "false")},
	}
	for _, c := range bad {
		g.Case("usage.bad."+c.id, "usage", map[string]any{"statement": g.File("usage/bad_"+c.id+".json", []byte(c.text))}, carriage.SetUsageMalformed)
	}
}
