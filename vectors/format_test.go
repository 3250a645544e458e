package vectors

import (
	"bytes"
	"strings"
	"testing"
)

// A graph vector and a stage vector written by hand in the §14.1 form.
const (
	graphLine   = `{"decodes":[{"expect":{"outputs":[{"data":["0","5"],"shape":["1","1","2"]}]},"inputs":[{"data":["-3","5"],"shape":["1","1","2"]}],"scalars":[]},{"expect":{"refuse":"field_range"},"inputs":[{"data":["-30","5"],"shape":["1","1","2"]}],"scalars":["7"]}],"graph":"5748473101","id":"relu_a","load":"ok","profiles":["acc32","acc64"]}`
	refusedLine = `{"decodes":[],"graph":"00","id":"bad_magic","load":"model_mismatch","profiles":["acc32","acc64"]}`
	stageLine   = `{"expect":{"at":"-1","refuse":"model_mismatch"},"id":"s1","in":{"v":"3"},"modes":{},"op":"coded"}`
)

func TestParseMarshalRoundTrip(t *testing.T) {
	for _, file := range []string{graphLine + "\n" + refusedLine + "\n", stageLine + "\n"} {
		f, err := Parse([]byte(file))
		if err != nil {
			t.Fatalf("%v\n%s", err, file)
		}
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, []byte(file)) {
			t.Fatalf("round trip:\n got %s\nwant %s", b, file)
		}
	}
	f, _ := Parse([]byte(graphLine + "\n"))
	v := f.Graph[0]
	if v.ID != "relu_a" || !bytes.Equal(v.Graph, []byte("WHG1\x01")) || v.Load != LoadOK || len(v.Decodes) != 2 {
		t.Fatalf("parsed %+v", v)
	}
	if d := v.Decodes[1]; d.Refuse != "field_range" || d.Scalars[0] != 7 || d.Inputs[0].Data[0] != -30 {
		t.Fatalf("decode 1 parsed as %+v", d)
	}
	if got := v.Decodes[0].Outputs[0].Data; got[0] != 0 || got[1] != 5 {
		t.Fatalf("outputs %v", got)
	}
}

// TestParseStrict: every departure from §14.1 fails the read.
func TestParseStrict(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"no final LF", graphLine, "line feed"},
		{"empty", "", "empty"},
		{"unknown member", strings.Replace(refusedLine, `"id"`, `"extra":"1","id"`, 1) + "\n", "not canonical"},
		{"unknown member canonical", strings.Replace(refusedLine, `"graph"`, `"extra":"1","graph"`, 1) + "\n", `unknown member "extra"`},
		{"missing member", strings.Replace(refusedLine, `"id":"bad_magic",`, "", 1) + "\n", `lacks member "id"`},
		{"unknown load outcome", strings.Replace(refusedLine, "model_mismatch", "nope", 1) + "\n", "unknown load outcome"},
		{"unknown decode outcome", strings.Replace(graphLine, `"refuse":"field_range"`, `"refuse":"stream_exhausted"`, 1) + "\n", "unknown refusal code"},
		{"expect with both", strings.Replace(graphLine, `{"refuse":"field_range"}`, `{"outputs":[],"refuse":"field_range"}`, 1) + "\n", "unknown member"},
		{"load refusal with one profile", strings.Replace(refusedLine, `"acc32",`, "", 1) + "\n", "load refusal"},
		{"profiles descending", strings.Replace(graphLine, `["acc32","acc64"]`, `["acc64","acc32"]`, 1) + "\n", "ascending"},
		{"unknown profile", strings.Replace(graphLine, `"acc32"`, `"acc16"`, 1) + "\n", "unknown profile"},
		{"uppercase hex", strings.Replace(refusedLine, `"00"`, `"0A"`, 1) + "\n", "lowercase"},
		{"bare number", strings.Replace(graphLine, `"7"`, `7`, 1) + "\n", "no canonical form"},
		{"whitespace", strings.Replace(refusedLine, `,"id"`, `, "id"`, 1) + "\n", "not canonical"},
		{"non-canonical integer", strings.Replace(graphLine, `"7"`, `"07"`, 1) + "\n", "canonical integer"},
		{"shape and data disagree", strings.Replace(graphLine, `["0","5"]`, `["0"]`, 1) + "\n", "elements for shape"},
		{"duplicate id", refusedLine + "\n" + refusedLine + "\n", "not unique"},
		{"mixed kinds", refusedLine + "\n" + stageLine + "\n", "stage vector in a file of graph vectors"},
		{"unknown stage op", strings.Replace(stageLine, `"coded"`, `"decoded"`, 1) + "\n", "unknown stage operator"},
		{"stage refusal without at", strings.Replace(stageLine, `"at":"-1",`, "", 1) + "\n", `lacks member "at"`},
		{"unknown stage code", strings.Replace(stageLine, "model_mismatch", "oops", 1) + "\n", "unknown refusal code"},
	} {
		_, err := Parse([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestOneLine: report text is one line of printable ASCII (§8.5).
func TestOneLine(t *testing.T) {
	if got := OneLine("§4 run: a\n−1"); got != "U+00A74 run: a U+22121" {
		t.Fatalf("%q", got)
	}
	if got := OneLine(strings.Repeat("x", 250)); len(got) != 203 {
		t.Fatalf("%d bytes", len(got))
	}
}
