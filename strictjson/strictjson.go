// Package strictjson reads JSON text (RFC 8259) strictly: no object names a
// member twice (names compared after unescaping), a nesting limit the caller
// states, raw control characters, invalid UTF-8 and lone surrogate escapes
// refused (docs/READINGS.md D-F), members kept in the order written and numbers as
// their text. encoding/json admits a member named twice and has no nesting
// limit, so it cannot apply prior-carriage §9.1 or §18.1.
//
// The safetensors header (§9.1 step 3), NNC topologies (§12.2) and usage
// statements (§18.1) are read with it.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a Value.
type Kind uint8

const (
	String Kind = iota
	Number
	Object
	Array
	Literal // true, false, null
)

// Value is one JSON value: Str is a string's unescaped text or a number's
// or literal's text as written; Raw is the value's bytes as written, a
// slice of the text Parse read.
type Value struct {
	Kind    Kind
	Str     string
	Members []Member
	Elems   []Value
	Raw     []byte
}

// Member is one member of an object, in the order written.
type Member struct {
	Name  string
	Value Value
}

type parser struct {
	b        []byte
	p        int
	maxDepth int
}

// Parse reads b as one JSON text (RFC 8259), whitespace around the value
// admitted, no member named twice in an object (names compared after
// unescaping), at most maxDepth levels of objects and arrays, the outermost
// value being level 1 (D-F).
func Parse(b []byte, maxDepth int) (Value, error) {
	j := parser{b: b, maxDepth: maxDepth}
	j.ws()
	v, err := j.value(1)
	if err != nil {
		return Value{}, err
	}
	j.ws()
	if j.p != len(b) {
		return Value{}, fmt.Errorf("bytes after the value at %d", j.p)
	}
	return v, nil
}

func (j *parser) ws() {
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

// value reads one value and keeps its bytes as written in Raw.
func (j *parser) value(depth int) (Value, error) {
	start := j.p
	v, err := j.bare(depth)
	if err != nil {
		return Value{}, err
	}
	v.Raw = j.b[start:j.p:j.p]
	return v, nil
}

func (j *parser) bare(depth int) (Value, error) {
	if j.p >= len(j.b) {
		return Value{}, errEnd
	}
	switch c := j.b[j.p]; {
	case c == '{' || c == '[':
		if depth > j.maxDepth {
			return Value{}, fmt.Errorf("nesting past %d levels at %d", j.maxDepth, j.p)
		}
		if c == '{' {
			return j.object(depth)
		}
		return j.array(depth)
	case c == '"':
		s, err := j.string()
		return Value{Kind: String, Str: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return j.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(j.b[j.p:], []byte(lit)) {
			j.p += len(lit)
			return Value{Kind: Literal, Str: lit}, nil
		}
	}
	return Value{}, fmt.Errorf("no value at %d", j.p)
}

func (j *parser) object(depth int) (Value, error) {
	j.p++ // '{'
	v := Value{Kind: Object}
	seen := map[string]bool{}
	if j.empty('}') {
		return v, nil
	}
	for {
		j.ws()
		if j.p >= len(j.b) || j.b[j.p] != '"' {
			return Value{}, fmt.Errorf("no member name at %d", j.p)
		}
		at := j.p
		name, err := j.string()
		if err != nil {
			return Value{}, err
		}
		if seen[name] {
			return Value{}, fmt.Errorf("member %q named twice (at %d)", name, at)
		}
		seen[name] = true
		j.ws()
		if j.p >= len(j.b) || j.b[j.p] != ':' {
			return Value{}, fmt.Errorf("no ':' at %d", j.p)
		}
		j.p++
		j.ws()
		m, err := j.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.Members = append(v.Members, Member{name, m})
		end, err := j.after('}')
		if err != nil {
			return Value{}, err
		}
		if end {
			return v, nil
		}
	}
}

func (j *parser) array(depth int) (Value, error) {
	j.p++ // '['
	v := Value{Kind: Array}
	if j.empty(']') {
		return v, nil
	}
	for {
		j.ws()
		e, err := j.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.Elems = append(v.Elems, e)
		end, err := j.after(']')
		if err != nil {
			return Value{}, err
		}
		if end {
			return v, nil
		}
	}
}

// empty reports whether close follows at once: an object or array with
// nothing in it (RFC 8259 §4, §5), close read.
func (j *parser) empty(close byte) bool {
	j.ws()
	if j.p < len(j.b) && j.b[j.p] == close {
		j.p++
		return true
	}
	return false
}

// after reads what follows a member or an element: ',' (another follows)
// or close (the object or array ends, end true); anything else is refused.
func (j *parser) after(close byte) (end bool, err error) {
	j.ws()
	if j.p >= len(j.b) {
		return false, errEnd
	}
	switch j.b[j.p] {
	case ',':
		j.p++
		return false, nil
	case close:
		j.p++
		return true, nil
	}
	return false, fmt.Errorf("no ',' or '%c' at %d", close, j.p)
}

// number reads RFC 8259's number grammar and keeps its text.
func (j *parser) number() (Value, error) {
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
		return Value{}, fmt.Errorf("bad number at %d", start)
	}
	if j.p < len(j.b) && j.b[j.p] == '.' {
		j.p++
		if digits() == 0 {
			return Value{}, fmt.Errorf("bad fraction at %d", start)
		}
	}
	if j.p < len(j.b) && (j.b[j.p] == 'e' || j.b[j.p] == 'E') {
		j.p++
		if j.p < len(j.b) && (j.b[j.p] == '+' || j.b[j.p] == '-') {
			j.p++
		}
		if digits() == 0 {
			return Value{}, fmt.Errorf("bad exponent at %d", start)
		}
	}
	return Value{Kind: Number, Str: string(j.b[start:j.p])}, nil
}

// string reads a string and returns its unescaped text. A raw control
// character, invalid UTF-8 and a lone surrogate escape are refused
// (D-F).
func (j *parser) string() (string, error) {
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
func (j *parser) escape() (rune, error) {
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

func (j *parser) hex4() (rune, error) {
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
