package prior

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
)

const corpusDir = "../vectors/prior"

// TestCorpusVectors checks every committed vector's outcome: an encode
// reproduces its file byte for byte (or refuses with its code); a load
// reproduces the native bytes (or refuses with its code).
func TestCorpusVectors(t *testing.T) {
	f, err := os.Open(filepath.Join(corpusDir, "vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	reached := map[refusal.Code]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		v, err := cjson.Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		vec := v.(map[string]any)
		id, form := vec["id"].(string), Form(vec["form"].(string))
		expect := vec["expect"].(map[string]any)
		var out []byte
		binding := ""
		switch vec["kind"] {
		case "encode":
			out, binding, err = Encode(form, read(vec["native"].(string)))
		case "load":
			binding, out, err = Load(form, read(vec["file"].(string)))
		default:
			t.Fatalf("%s: unknown kind %v", id, vec["kind"])
		}
		if code, ok := expect["refuse"].(string); ok {
			var r *refusal.Error
			if !errors.As(err, &r) || string(r.Code) != code {
				t.Errorf("%s: got %v, want refusal %s", id, err, code)
			}
			reached[refusal.Code(code)] = true
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		var want []byte
		if vec["kind"] == "encode" {
			want = read(expect["file"].(string))
		} else {
			want = read(expect["native"].(string))
			if binding != expect["binding"] {
				t.Errorf("%s: binding %q, want %q", id, binding, expect["binding"])
			}
		}
		if !bytes.Equal(out, want) || sha(out) != expect["sha256"] {
			t.Errorf("%s: bytes differ from the expected ones", id)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range Codes {
		if !reached[c] {
			t.Errorf("no vector refuses with %s", c)
		}
	}
	t.Logf("%d vectors", n)
}
