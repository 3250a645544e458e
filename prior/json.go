package prior

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
