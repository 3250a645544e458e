package serve

import (
	"net/http"
	"strconv"
	"strings"
)

// rangeFor rewrites r's Range header, before http.ServeContent reads it,
// into what RFC 9110 §14 asks of a server whose only range unit is bytes,
// for a representation of size bytes. ServeContent applies a Range to any
// method, answers an unknown unit with 416, and takes a suffix of length 0
// for a range of none; here:
//
//   - §14.2: a Range on a method other than GET is ignored (GET is the only
//     method range handling is defined for; a HEAD is answered as the GET
//     without a Range would be);
//   - §14.2: a Range whose unit the server does not know is ignored; unit
//     names are case-insensitive (§14.1), so "Bytes=" is bytes;
//   - §14.1.1, §14.1.2: a range-set is satisfiable when one of its ranges
//     has a first-pos below size or is a suffix of non-zero length; a
//     suffix of length 0 is dropped here (ServeContent drops a first-pos
//     past the end itself), and a set with no range left becomes one that
//     ServeContent answers 416 with Content-Range: bytes */size;
//   - a ranges-specifier that does not parse is left as it is:
//     ServeContent rejects it with 416, as §14.2 permits (MAY ignore or
//     reject).
//
// If-Range and the other preconditions stay ServeContent's, evaluated
// before the Range (RFC 9110 §13.2.2).
func rangeFor(r *http.Request, size int64) {
	v := r.Header.Get("Range")
	if v == "" {
		return
	}
	unit, set, ok := strings.Cut(v, "=")
	if r.Method != http.MethodGet || !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		r.Header.Del("Range")
		return
	}
	var kept []string
	for spec := range strings.SplitSeq(set, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return // invalid: ServeContent's 416
		}
		first, last = strings.TrimSpace(first), strings.TrimSpace(last)
		if first == "" {
			n, err := strconv.ParseUint(last, 10, 63)
			if err != nil {
				return
			}
			if n > 0 && size > 0 {
				kept = append(kept, "-"+last)
			}
			continue
		}
		a, err := strconv.ParseUint(first, 10, 63)
		if err != nil {
			return
		}
		if last != "" {
			if b, err := strconv.ParseUint(last, 10, 63); err != nil || b < a {
				return
			}
		}
		// A first-pos at or past size is kept: ServeContent drops it.
		kept = append(kept, first+"-"+last)
	}
	if len(kept) == 0 {
		// No range of the set is satisfiable: a first-pos at size is one
		// ServeContent refuses with 416 and bytes */size (for size 0 it
		// sends the whole, empty, representation instead).
		kept = []string{strconv.FormatInt(size, 10) + "-"}
	}
	r.Header.Set("Range", "bytes="+strings.Join(kept, ","))
}
