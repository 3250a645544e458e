package carriage

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// SetUsageMalformed is §20's code for a usage statement that does not read
// (§18.1), for a listing whose bound statement does not read, and for
// §18.2 step 3.
const SetUsageMalformed refusal.Code = "set_usage_malformed"

// MaxUsage is §18.1's cap on a statement's length in bytes (and §18.2's on
// a sealed header's u).
const MaxUsage = 65536

// Usage is a usage statement (§18.1). A nil pointer or slice is the
// statement's null.
type Usage struct {
	Licence        *string // an SPDX licence expression (SPDX 2.3 Annex D)
	Terms          *string // an https URI (docs/READINGS.md D-H7)
	ContentDerived bool
	Redistribute   bool
	// AIUsage is the ai_usage object's bytes as the statement writes them:
	// ai-usage §3 is not held, so the object is kept as given (D-G).
	AIUsage []byte
}

// The six members of §18.1, exactly.
var usageMembers = []string{"kind", "licence", "terms", "content_derived", "redistribute", "ai_usage"}

// ReadUsage reads a usage statement (§18.1). Every rule it breaks is
// set_usage_malformed, with a reason naming the rule.
func ReadUsage(b []byte) (*Usage, error) {
	bad := func(format string, args ...any) (*Usage, error) {
		return nil, refusal.New(SetUsageMalformed, "usage statement: "+format, args...)
	}
	// §18.1: at most 65 536 bytes, checked before the text is read.
	if len(b) > MaxUsage {
		return bad("%d bytes, past §18.1's 65 536", len(b))
	}
	// §18.1, D-H7: UTF-8 JSON in which no object names a member
	// twice, at any depth. §18.1 states no nesting limit; a text of
	// MaxUsage bytes cannot nest deeper than MaxUsage levels.
	v, err := strictjson.Parse(b, MaxUsage)
	if err != nil {
		return bad("not JSON with each member named once: %v", err)
	}
	if v.Kind != strictjson.Object {
		return bad("not a JSON object")
	}
	// §18.1: exactly the six members.
	m := map[string]strictjson.Value{}
	for _, mb := range v.Members {
		if !slices.Contains(usageMembers, mb.Name) {
			return bad("member %q is not one of §18.1's six", mb.Name)
		}
		m[mb.Name] = mb.Value
	}
	for _, name := range usageMembers {
		if _, ok := m[name]; !ok {
			return bad("member %q is missing (§18.1 has exactly six)", name)
		}
	}
	if k := m["kind"]; k.Kind != strictjson.String || k.Str != "wai-set-usage" {
		return bad(`kind is not "wai-set-usage"`)
	}
	u := &Usage{}
	var ok bool
	if u.ContentDerived, ok = boolean(m["content_derived"]); !ok {
		return bad("content_derived is not true or false")
	}
	if u.Redistribute, ok = boolean(m["redistribute"]); !ok {
		return bad("redistribute is not true or false")
	}
	if u.Licence, ok = stringOrNull(m["licence"]); !ok {
		return bad("licence is not a string or null")
	}
	if u.Licence != nil {
		if err := CheckLicence(*u.Licence); err != nil {
			return bad("licence: %v", err)
		}
	}
	if u.Terms, ok = stringOrNull(m["terms"]); !ok {
		return bad("terms is not a string or null")
	}
	if u.Terms != nil {
		if err := checkTerms(*u.Terms); err != nil {
			return bad("terms: %v", err)
		}
	}
	// §18.1 and D-G: ai_usage is an object, kept as given, or null.
	switch a := m["ai_usage"]; {
	case a.Kind == strictjson.Object:
		u.AIUsage = append([]byte(nil), a.Raw...)
	case a.Kind != strictjson.Literal || a.Str != "null":
		return bad("ai_usage is not an object or null")
	}
	return u, nil
}

// checkTerms applies §18.1's rule for terms and D-H7's reading of
// "an https URI": 8 to 2048 bytes, each '!' to '~', starting "https://",
// read as a URI (RFC 3986, as net/url reads one) with a non-empty host.
func checkTerms(s string) error {
	if len(s) < 8 || len(s) > 2048 {
		return fmt.Errorf("%d bytes, not 8 to 2048", len(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return fmt.Errorf("byte 0x%02x at %d is not '!' to '~'", s[i], i)
		}
	}
	if !strings.HasPrefix(s, "https://") {
		return fmt.Errorf(`not an https URI (it does not start "https://")`)
	}
	p, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URI: %v", err)
	}
	if p.Hostname() == "" {
		return fmt.Errorf("the https URI has an empty host")
	}
	return nil
}

func boolean(v strictjson.Value) (bool, bool) {
	if v.Kind != strictjson.Literal || v.Str == "null" {
		return false, false
	}
	return v.Str == "true", true
}

func stringOrNull(v strictjson.Value) (*string, bool) {
	switch {
	case v.Kind == strictjson.String:
		s := v.Str
		return &s, true
	case v.Kind == strictjson.Literal && v.Str == "null":
		return nil, true
	}
	return nil, false
}
