package carriage

import (
	"fmt"
	"strings"
)

// MaxLicence is §18.1's cap on a licence expression's length in bytes.
const MaxLicence = 1024

// CheckLicence reads s as an SPDX licence expression by the grammar of
// SPDX 2.3 Annex D as §18.1 restates it:
//
//	expression = term *( " OR " term )
//	term       = factor *( " AND " factor )
//	factor     = "(" expression ")" / simple [ " WITH " idstring ]
//	simple     = idstring [ "+" ] / [ "DocumentRef-" idstring ":" ] "LicenseRef-" idstring
//	idstring   = 1*( ALPHA / DIGIT / "-" / "." )
//
// AND binding tighter than OR (Annex D's precedence) changes which trees
// are built, never which strings read, so the checker builds none.
// Identifiers are checked for their characters only, not looked up in the
// SPDX licence list (§18.1).
//
// Readings (§18.1 says "tokens separated by single spaces"; the package
// doc lists these): a parenthesis is a token of its own that takes no
// space after "(" or before ")", and exactly one space stands between any
// other two tokens, none before the first or after the last; a word that
// is an operator in another case ("and", "With") is refused wherever it
// stands, as are "DocumentRef-" without ":LicenseRef-" and a
// "LicenseRef-" with "+".
func CheckLicence(s string) error {
	if len(s) == 0 {
		return fmt.Errorf("the expression is empty")
	}
	if len(s) > MaxLicence {
		return fmt.Errorf("%d bytes, past §18.1's 1024", len(s))
	}
	toks, err := spdxTokens(s)
	if err != nil {
		return err
	}
	p := &spdxParser{toks: toks}
	if err := p.expression(0); err != nil {
		return err
	}
	if p.i != len(p.toks) {
		t := p.toks[p.i]
		if err := notOperator(t); err != nil {
			return err
		}
		if t.text == ")" {
			return fmt.Errorf("unbalanced parentheses: ')' at byte %d closes nothing", t.at)
		}
		return fmt.Errorf("%q at byte %d follows a complete expression (AND, OR or WITH expected)", t.text, t.at)
	}
	return nil
}

type spdxToken struct {
	text string
	at   int // byte offset in the expression
}

// spdxTokens splits s into words and parentheses under the spacing rule.
func spdxTokens(s string) ([]spdxToken, error) {
	var toks []spdxToken
	spaces := 0 // spaces before the token at i
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' {
			spaces++
			i++
			continue
		}
		var t spdxToken
		if c == '(' || c == ')' {
			t = spdxToken{s[i : i+1], i}
			i++
		} else {
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '(' && s[j] != ')' {
				j++
			}
			t = spdxToken{s[i:j], i}
			i = j
		}
		want := 1
		switch {
		case len(toks) == 0:
			want = 0
		case toks[len(toks)-1].text == "(" || t.text == ")":
			want = 0
		}
		if spaces != want {
			if len(toks) == 0 {
				return nil, fmt.Errorf("tokens are separated by single spaces: the expression starts with a space")
			}
			return nil, fmt.Errorf("tokens are separated by single spaces: %d before %q at byte %d, where §18.1 wants %d", spaces, t.text, t.at, want)
		}
		toks = append(toks, t)
		spaces = 0
	}
	if spaces > 0 {
		return nil, fmt.Errorf("tokens are separated by single spaces: the expression ends with a space")
	}
	return toks, nil
}

type spdxParser struct {
	toks []spdxToken
	i    int
}

// peekOp reports whether the next token is the operator op.
func (p *spdxParser) peekOp(op string) bool {
	return p.i < len(p.toks) && p.toks[p.i].text == op
}

// maxSpdxDepth bounds the nesting of parentheses; 1024 bytes hold at most
// 512 levels, so no expression §18.1 admits is refused by it.
const maxSpdxDepth = MaxLicence

func (p *spdxParser) expression(depth int) error {
	for {
		if err := p.term(depth); err != nil {
			return err
		}
		if !p.peekOp("OR") {
			return nil
		}
		p.i++
	}
}

func (p *spdxParser) term(depth int) error {
	for {
		if err := p.factor(depth); err != nil {
			return err
		}
		if !p.peekOp("AND") {
			return nil
		}
		p.i++
	}
}

func (p *spdxParser) factor(depth int) error {
	if p.i >= len(p.toks) {
		if p.i == 0 {
			return fmt.Errorf("the expression is empty")
		}
		last := p.toks[p.i-1]
		return fmt.Errorf("the expression ends after %q at byte %d, where a licence is expected", last.text, last.at)
	}
	t := p.toks[p.i]
	switch t.text {
	case "(":
		if depth >= maxSpdxDepth {
			return fmt.Errorf("parentheses nest past %d levels", maxSpdxDepth)
		}
		p.i++
		if err := p.expression(depth + 1); err != nil {
			return err
		}
		if !p.peekOp(")") {
			if p.i < len(p.toks) {
				if err := notOperator(p.toks[p.i]); err != nil {
					return err
				}
			}
			return fmt.Errorf("unbalanced parentheses: '(' at byte %d is not closed", t.at)
		}
		p.i++
		if p.peekOp("WITH") {
			return fmt.Errorf("WITH at byte %d follows a parenthesis: an exception applies to a simple expression only", p.toks[p.i].at)
		}
		return nil
	case ")":
		return fmt.Errorf("')' at byte %d where a licence is expected", t.at)
	}
	if err := simpleExpression(t); err != nil {
		return err
	}
	p.i++
	if !p.peekOp("WITH") {
		return nil
	}
	p.i++
	if p.i >= len(p.toks) {
		return fmt.Errorf("WITH at the end, with no exception identifier after it")
	}
	e := p.toks[p.i]
	if e.text == "(" || e.text == ")" {
		return fmt.Errorf("%q at byte %d where WITH's exception identifier is expected", e.text, e.at)
	}
	if err := notOperator(e); err != nil {
		return err
	}
	if err := idstring(e.text, e.at, "the exception identifier"); err != nil {
		return err
	}
	p.i++
	if p.peekOp("WITH") {
		return fmt.Errorf("WITH at byte %d follows an exception: a simple expression takes one WITH", p.toks[p.i].at)
	}
	return nil
}

// notOperator refuses a word that spells AND, OR or WITH in any case where
// an identifier stands: operators are upper case and are not identifiers.
func notOperator(t spdxToken) error {
	for _, op := range []string{"AND", "OR", "WITH"} {
		if strings.EqualFold(t.text, op) {
			if t.text == op {
				return fmt.Errorf("the operator %s at byte %d stands where an identifier is expected", op, t.at)
			}
			return fmt.Errorf("%q at byte %d: the operators are upper case (%s)", t.text, t.at, op)
		}
	}
	return nil
}

// simpleExpression checks one simple expression: a licence identifier
// with "+" or not, or a licence reference.
func simpleExpression(t spdxToken) error {
	if err := notOperator(t); err != nil {
		return err
	}
	w := t.text
	if rest, ok := strings.CutPrefix(w, "DocumentRef-"); ok {
		doc, ref, found := strings.Cut(rest, ":")
		if !found || !strings.HasPrefix(ref, "LicenseRef-") {
			return fmt.Errorf("%q at byte %d: DocumentRef- is followed by an identifier string, ':' and a LicenseRef-", w, t.at)
		}
		if err := idstring(doc, t.at+len("DocumentRef-"), "the DocumentRef- identifier string"); err != nil {
			return err
		}
		return licenceRef(ref, t.at+len("DocumentRef-")+len(doc)+1)
	}
	if strings.HasPrefix(w, "LicenseRef-") {
		return licenceRef(w, t.at)
	}
	// A licence identifier, with one "+" at its end or not.
	id := strings.TrimSuffix(w, "+")
	return idstring(id, t.at, "the licence identifier")
}

// licenceRef checks "LicenseRef-" and an identifier string; no "+" follows
// a reference (Annex D's "+" is a license-id's only).
func licenceRef(w string, at int) error {
	id := strings.TrimPrefix(w, "LicenseRef-")
	if strings.HasSuffix(id, "+") {
		return fmt.Errorf("%q at byte %d: '+' follows a licence identifier only, not a LicenseRef-", w, at)
	}
	return idstring(id, at+len("LicenseRef-"), "the LicenseRef- identifier string")
}

// idstring checks Annex D's idstring: one or more letters, digits, '-' and
// '.'.
func idstring(s string, at int, what string) error {
	if s == "" {
		return fmt.Errorf("%s at byte %d is empty", what, at)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return fmt.Errorf("%s %q: byte %q at %d is not a letter, digit, '-' or '.'", what, s, c, at+i)
		}
	}
	return nil
}
