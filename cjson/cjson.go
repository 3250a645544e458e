// Package cjson writes and reads the canonical JSON of integer-operators
// §8.5, which the certificate and every vector file (§14.1) use: no
// whitespace, members in ascending byte order of their keys, every integer a
// decimal string, strings of printable ASCII with only \" and \\ escaped.
//
// Values are built from nil, bool, string, the Go integer types, *big.Int,
// []any (and a few typed slices), map[string]any and Raw.
package cjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
)

// Raw is a value that is already canonical JSON; it is written as it stands.
type Raw []byte

// Marshal returns the canonical bytes of v, with no final newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func write(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		return writeString(b, x)
	case int:
		writeInt(b, strconv.FormatInt(int64(x), 10))
	case int8:
		writeInt(b, strconv.FormatInt(int64(x), 10))
	case int16:
		writeInt(b, strconv.FormatInt(int64(x), 10))
	case int32:
		writeInt(b, strconv.FormatInt(int64(x), 10))
	case int64:
		writeInt(b, strconv.FormatInt(x, 10))
	case uint8:
		writeInt(b, strconv.FormatUint(uint64(x), 10))
	case uint16:
		writeInt(b, strconv.FormatUint(uint64(x), 10))
	case uint32:
		writeInt(b, strconv.FormatUint(uint64(x), 10))
	case uint64:
		writeInt(b, strconv.FormatUint(x, 10))
	case *big.Int:
		writeInt(b, x.String())
	case Raw:
		b.Write(x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := write(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeString(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []int64:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeInt(b, strconv.FormatInt(e, 10))
		}
		b.WriteByte(']')
	case []int:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeInt(b, strconv.Itoa(e))
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // Go compares strings bytewise: §8.5's key order.
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeString(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := write(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cjson: no canonical form for %T", v)
	}
	return nil
}

func writeInt(b *bytes.Buffer, digits string) {
	b.WriteByte('"')
	b.WriteString(digits)
	b.WriteByte('"')
}

// writeString writes s under §8.5: printable ASCII only, \" and \\ escaped.
func writeString(b *bytes.Buffer, s string) error {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			return fmt.Errorf("cjson: byte 0x%02x at %d of %q is not printable ASCII", c, i, s)
		}
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return nil
}

// Unmarshal reads any JSON text into nil, bool, string, json.Number (for a
// bare number, which canonical JSON never holds), []any and map[string]any.
// It refuses trailing data after the value.
func Unmarshal(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("cjson: data after the value")
	}
	return v, nil
}

// Int reads a canonical integer (a decimal string) that fits i64.
func Int(v any) (int64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("cjson: want an integer string, have %T", v)
	}
	if !canonicalDigits(s) {
		return 0, fmt.Errorf("cjson: %q is not a canonical integer", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

// BigInt reads a canonical integer of any size.
func BigInt(v any) (*big.Int, error) {
	s, ok := v.(string)
	if !ok || !canonicalDigits(s) {
		return nil, fmt.Errorf("cjson: %v is not a canonical integer", v)
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, nil
}

// canonicalDigits reports whether s is "0" or an optional "-" then a
// nonzero digit then digits (§8.5).
func canonicalDigits(s string) bool {
	if s == "0" {
		return true
	}
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
