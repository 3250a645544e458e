package prior

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader for safetensors headers (§9.1 step 3) and NNC
// topologies (§12.2). encoding/json admits a member named twice and has no
// nesting limit, so it cannot apply §9.1; this one keeps members in the
// order written and numbers as their text.

type jkind uint8

const (
	jString jkind = iota
	jNumber
	jObject
	jArray
	jLiteral // true, false, null
)

// jvalue is one JSON value: str is a string's unescaped text or a number's
// or literal's text as written.
type jvalue struct {
	kind    jkind
	str     string
	members []jmember
	elems   []jvalue
}

type jmember struct {
	name  string
	value jvalue
}

// maxDepth is §9.1 step 3's nesting limit; the outermost value is level 1
// (DECISIONS F).
const maxDepth = 64

type jparser struct {
	b []byte
	p int
}

// parseJSON reads b as one JSON text (RFC 8259), whitespace around the
// value admitted, no member named twice in an object (names compared after
// unescaping), at most maxDepth levels.
func parseJSON(b []byte) (jvalue, error) {
	j := jparser{b: b}
	j.ws()
	v, err := j.value(1)
	if err != nil {
		return jvalue{}, err
	}
	j.ws()
	if j.p != len(b) {
		return jvalue{}, fmt.Errorf("bytes after the value at %d", j.p)
	}
	return v, nil
}

func (j *jparser) ws() {
	for j.p < len(j.b) {
		switch j.b[j.p] {
		case ' ', '\t', '\n', '\r':
			j.p++
		default:
			return
		}
	}
}

var errEnd = errors.New("the text ends inside a value")

func (j *jparser) value(depth int) (jvalue, error) {
	if j.p >= len(j.b) {
		return jvalue{}, errEnd
	}
	switch c := j.b[j.p]; {
	case c == '{' || c == '[':
		if depth > maxDepth {
			return jvalue{}, fmt.Errorf("nesting past %d levels at %d", maxDepth, j.p)
		}
		if c == '{' {
			return j.object(depth)
		}
		return j.array(depth)
	case c == '"':
		s, err := j.string()
		return jvalue{kind: jString, str: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return j.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(j.b[j.p:], []byte(lit)) {
			j.p += len(lit)
			return jvalue{kind: jLiteral, str: lit}, nil
		}
	}
	return jvalue{}, fmt.Errorf("no value at %d", j.p)
}

func (j *jparser) object(depth int) (jvalue, error) {
	j.p++ // '{'
	v := jvalue{kind: jObject}
	seen := map[string]bool{}
	j.ws()
	if j.p < len(j.b) && j.b[j.p] == '}' {
		j.p++
		return v, nil
	}
	for {
		j.ws()
		if j.p >= len(j.b) || j.b[j.p] != '"' {
			return jvalue{}, fmt.Errorf("no member name at %d", j.p)
		}
		at := j.p
		name, err := j.string()
		if err != nil {
			return jvalue{}, err
		}
		if seen[name] {
			return jvalue{}, fmt.Errorf("member %q named twice (at %d)", name, at)
		}
		seen[name] = true
		j.ws()
		if j.p >= len(j.b) || j.b[j.p] != ':' {
			return jvalue{}, fmt.Errorf("no ':' at %d", j.p)
		}
		j.p++
		j.ws()
		m, err := j.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		v.members = append(v.members, jmember{name, m})
		j.ws()
		if j.p >= len(j.b) {
			return jvalue{}, errEnd
		}
		switch j.b[j.p] {
		case ',':
			j.p++
		case '}':
			j.p++
			return v, nil
		default:
			return jvalue{}, fmt.Errorf("no ',' or '}' at %d", j.p)
		}
	}
}

func (j *jparser) array(depth int) (jvalue, error) {
	j.p++ // '['
	v := jvalue{kind: jArray}
	j.ws()
	if j.p < len(j.b) && j.b[j.p] == ']' {
		j.p++
		return v, nil
	}
	for {
		j.ws()
		e, err := j.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		v.elems = append(v.elems, e)
		j.ws()
		if j.p >= len(j.b) {
			return jvalue{}, errEnd
		}
		switch j.b[j.p] {
		case ',':
			j.p++
		case ']':
			j.p++
			return v, nil
		default:
			return jvalue{}, fmt.Errorf("no ',' or ']' at %d", j.p)
		}
	}
}

// number reads RFC 8259's number grammar and keeps its text.
func (j *jparser) number() (jvalue, error) {
	start := j.p
	digits := func() int {
		n := 0
		for j.p < len(j.b) && j.b[j.p] >= '0' && j.b[j.p] <= '9' {
			j.p++
			n++
		}
		return n
	}
	if j.b[j.p] == '-' {
		j.p++
	}
	if j.p < len(j.b) && j.b[j.p] == '0' {
		j.p++
	} else if digits() == 0 {
		return jvalue{}, fmt.Errorf("bad number at %d", start)
	}
	if j.p < len(j.b) && j.b[j.p] == '.' {
		j.p++
		if digits() == 0 {
			return jvalue{}, fmt.Errorf("bad fraction at %d", start)
		}
	}
	if j.p < len(j.b) && (j.b[j.p] == 'e' || j.b[j.p] == 'E') {
		j.p++
		if j.p < len(j.b) && (j.b[j.p] == '+' || j.b[j.p] == '-') {
			j.p++
		}
		if digits() == 0 {
			return jvalue{}, fmt.Errorf("bad exponent at %d", start)
		}
	}
	return jvalue{kind: jNumber, str: string(j.b[start:j.p])}, nil
}

// string reads a string and returns its unescaped text. A raw control
// character, invalid UTF-8 and a lone surrogate escape are refused
// (DECISIONS F).
func (j *jparser) string() (string, error) {
	start := j.p
	j.p++ // '"'
	var out []byte
	for {
		if j.p >= len(j.b) {
			return "", errEnd
		}
		c := j.b[j.p]
		switch {
		case c == '"':
			j.p++
			return string(out), nil
		case c < 0x20:
			return "", fmt.Errorf("control byte 0x%02x in a string at %d", c, j.p)
		case c == '\\':
			r, err := j.escape()
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			j.p++
		default:
			r, n := utf8.DecodeRune(j.b[j.p:])
			if r == utf8.RuneError && n <= 1 {
				return "", fmt.Errorf("invalid UTF-8 in the string at %d", start)
			}
			out = append(out, j.b[j.p:j.p+n]...)
			j.p += n
		}
	}
}

// escape reads one escape sequence at j.p (the backslash) and returns its
// character; a surrogate pair is one escape of two.
func (j *jparser) escape() (rune, error) {
	at := j.p
	if j.p+1 >= len(j.b) {
		return 0, errEnd
	}
	c := j.b[j.p+1]
	j.p += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := j.hex4()
		if err != nil {
			return 0, err
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		if r < 0xDC00 && j.p+1 < len(j.b) && j.b[j.p] == '\\' && j.b[j.p+1] == 'u' {
			j.p += 2
			lo, err := j.hex4()
			if err != nil {
				return 0, err
			}
			if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
				return p, nil
			}
		}
		return 0, fmt.Errorf("lone surrogate escape at %d", at)
	}
	return 0, fmt.Errorf("bad escape at %d", at)
}

func (j *jparser) hex4() (rune, error) {
	if j.p+4 > len(j.b) {
		return 0, errEnd
	}
	v, err := strconv.ParseUint(string(j.b[j.p:j.p+4]), 16, 16)
	if err != nil {
		return 0, fmt.Errorf("bad \\u escape at %d", j.p-2)
	}
	j.p += 4
	return rune(v), nil
}

// appendJSONString appends s as a JSON string escaped as RFC 8785 §3.2.2.2
// escapes it (§11.1, §12.3): \" and \\, the five short escapes \b \t \n \f
// \r, other control characters as \u00xx in lowercase hexadecimal, and
// every other character as it stands.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendJSONMeta appends meta as a JSON object of string values, keys in
// ascending byte order, no whitespace (§11.1, §12.3).
func appendJSONMeta(b []byte, meta map[string]string) []byte {
	b = append(b, '{')
	for i, k := range sortedKeys(meta) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, meta[k])
	}
	return append(b, '}')
}
