package corpus

import (
	"strings"
	"testing"
)

// familyCases runs one family's generator alone and returns its cases'
// lines by id.
func familyCases(t *testing.T, gen func(*Gen)) map[string]string {
	t.Helper()
	g := &Gen{files: map[string][]byte{}, cases: map[string][]byte{}}
	gen(g)
	if g.err != nil {
		t.Fatal(g.err)
	}
	out := map[string]string{}
	for id, b := range g.cases {
		out[id] = string(b)
	}
	return out
}

// TestTreeCases pins what the tree family's cases find, worked by hand
// from §19.1 and §19.2: which pieces fail, and the heads' fields.
func TestTreeCases(t *testing.T) {
	cases := familyCases(t, genTree)
	want := map[string]string{
		"tree.pieces.generic.piece_3_changed":    `{"ok":{"failed":["3"]}}`,
		"tree.pieces.generic-g1.piece_3_changed": `{"ok":{"failed":["3"]}}`,
		"tree.pieces.generic.a_byte_short":       `{"ok":{"failed":["8"]}}`,
		"tree.pieces.generic.a_byte_more":        `{"ok":{"failed":[]}}`,
		"tree.pieces.generic.inner_misstated":    `{"ok":{"failed":[]}}`,
		"tree.pieces.generic-g1.title_sealed":    `{"ok":{"failed":["0","1","2","3","4"]}}`,
		"tree.pieces.generic":                    `{"ok":{"failed":[]}}`,
		"tree.verify.generic.piece_3_changed":    `{"refuse":"tree_piece_mismatch"}`,
		"tree.verify.generic.inner_misstated":    `{"refuse":"tree_digest_mismatch"}`,
		"tree.head.broken.inner_misstated":       `"inner_form":"","length":"9000","pieces":"9"`,
		"tree.head.generic-g1":                   `{"ok":{"g":"1","inner":"`,
		"tree.head.title-sealed":                 `"inner_form":"wai.prior.sealed"`,
		"tree.write.refused.g_3_two_pieces":      `"pieces":"2"`,
	}
	for id, w := range want {
		if !strings.Contains(cases[id], w) {
			t.Errorf("%s: %s, want it to hold %s", id, cases[id], w)
		}
	}
}
