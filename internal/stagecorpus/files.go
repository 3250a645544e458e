package stagecorpus

import (
	"fmt"

	"github.com/waiops/waiops/cjson"
)

// Corpus returns the stage vectors of §14.1 by file name
// (<operator>.jsonl), each file's vectors in order, each a complete vector
// {"expect", "id", "in", "modes", "op"} in cjson-decoded form. It is
// deterministic: every stream and operand comes from fixed seeds.
func Corpus() map[string][]map[string]any {
	files := map[string][]map[string]any{}
	for _, c := range corpusCases() {
		name := c.op + ".jsonl"
		files[name] = append(files[name], c.vector())
	}
	return files
}

// CorpusFiles is every file of Corpus as JSON Lines, by file name: one
// canonical JSON vector per line, each line ending with a line feed.
// `waiops vectors gen` writes them to vectors/stage.
func CorpusFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	for n, vs := range Corpus() {
		b, err := corpusFile(vs)
		if err != nil {
			return nil, fmt.Errorf("stage: %s: %v", n, err)
		}
		files[n] = b
	}
	return files, nil
}

// corpusFile is the JSON Lines bytes of one file's vectors.
func corpusFile(vs []map[string]any) ([]byte, error) {
	var out []byte
	for _, v := range vs {
		line, err := cjson.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}

// decoded returns v as cjson.Unmarshal would give it back: the form Eval
// takes and the vector files hold.
func decoded(v any) any {
	b, err := cjson.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("stage: corpus value has no canonical form: %v", err)) // a generator bug
	}
	d, err := cjson.Unmarshal(b)
	if err != nil {
		panic(err)
	}
	return d
}
