package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/tree"
	"github.com/waiops/waiops/prior"
	"github.com/waiops/waiops/refusal"
)

// §19.1's heads and §19.2 steps 2 and 3 over held files: the heads of a
// generic-like set of 9,000 bytes in pieces of one chunk and of two, and of
// a title sealed (inner form wai.prior.sealed); heads broken one way each;
// files verified whole, with a byte changed in piece 3, short, long, and
// against a head whose inner misstates its set.

// treeIV is the sealed title's counter block, "wai-ops iv tree ".
const treeIV = "7761692d6f7073206976207472656520"

func init() {
	ops["tree"] = opTree
	ops["head"] = opHead
	ops["verify"] = opVerify
	ops["pieces"] = opPieces
	gens = append(gens, genTree)
	reach = append(reach, tree.HeadMalformed, tree.InnerForm, tree.RootMismatch, tree.PieceMismatch, tree.DigestMismatch)
}

// opTree is `tree` {set, g, inner_form}: the head Write makes, its fields
// and its SHA-256 (the digest a wai.prior.tree pin names).
func opTree(in *Inputs) (any, error) {
	set, err := in.File("set")
	if err != nil {
		return nil, err
	}
	gs, err := in.Str("g")
	if err != nil {
		return nil, err
	}
	g, err := strconv.Atoi(gs)
	if err != nil {
		return nil, fmt.Errorf("input g: %v", err)
	}
	form, err := in.Str("inner_form")
	if err != nil {
		return nil, err
	}
	h, err := tree.Write(bytes.NewReader(set), g, form)
	if err != nil {
		return nil, err
	}
	f := h.Fields()
	sum := sha256.Sum256(h.Encode())
	f["sha256"] = hex.EncodeToString(sum[:])
	return f, nil
}

// readHead reads the head input by §19.1's checks.
func readHead(in *Inputs) (*tree.Head, error) {
	b, err := in.File("head")
	if err != nil {
		return nil, err
	}
	return tree.Read(b)
}

// opHead is `head` {head}: the head's fields, as `waiops prior head`
// prints them.
func opHead(in *Inputs) (any, error) {
	h, err := readHead(in)
	if err != nil {
		return nil, err
	}
	return h.Fields(), nil
}

// opVerify is `verify` {head, set}: §19.2 steps 2 and 3 over the held
// file; result {inner, length}, the identity the held set has.
func opVerify(in *Inputs) (any, error) {
	h, err := readHead(in)
	if err != nil {
		return nil, err
	}
	set, err := in.File("set")
	if err != nil {
		return nil, err
	}
	if _, err := tree.Verify(h, bytes.NewReader(set)); err != nil {
		return nil, err
	}
	return map[string]any{"inner": hex.EncodeToString(h.Inner[:]), "length": h.Length}, nil
}

// opPieces is `pieces` {head, set}: each piece of the file checked on its
// own (tree.PieceVerifies, as a fetcher checks one); result {failed}, the
// pieces that do not verify, a piece the file ends inside or before among
// them.
func opPieces(in *Inputs) (any, error) {
	h, err := readHead(in)
	if err != nil {
		return nil, err
	}
	set, err := in.File("set")
	if err != nil {
		return nil, err
	}
	failed := []int{}
	for i := range h.Values {
		off, n := h.Piece(i)
		end := min(off+n, uint64(len(set)))
		if off >= end || !tree.PieceVerifies(h, i, set[off:end]) {
			failed = append(failed, i)
		}
	}
	return map[string]any{"failed": failed}, nil
}

// treeGeneric is the generic-like set: 9,000 bytes, 9 pieces at g = 0 and 5
// at g = 1, form-less like generic.
func treeGeneric() []byte {
	b := make([]byte, 9000)
	for i := range b {
		b[i] = byte(i*31 + i>>7)
	}
	return b
}

// treeTitle is a title-like safetensors prior of 9,600 data bytes, sealed
// for its head of inner form wai.prior.sealed.
func treeTitle() ([]byte, error) {
	data := make([]byte, 4*4*600)
	for i := range 4 * 600 {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i*i*40503+7))
	}
	return prior.Write(prior.Safetensors, &prior.File{
		Meta:    map[string]string{"wai.title": "title"},
		Tensors: []prior.Tensor{{Name: "layer.000.weight", DType: "I32", Shape: []uint64{4, 600}, Data: data}},
	})
}

func genTree(g *Gen) {
	fail := func(err error) { g.err = err }
	generic := treeGeneric()
	set := g.File("tree/generic.set", generic)
	plain, err := treeTitle()
	if err != nil {
		fail(err)
		return
	}
	h := carriage.Header{InnerForm: tree.FormSafetensors, Usage: []byte(titleUsage)}
	h.KID, _ = carriage.Hex16(TestKID)
	h.IV, _ = carriage.Hex16(treeIV)
	key, _ := carriage.Hex16(TestKey)
	var sealedBuf bytes.Buffer
	if _, _, err := carriage.Seal(&sealedBuf, bytes.NewReader(plain), int64(len(plain)), key, h); err != nil {
		fail(err)
		return
	}
	sealed := g.File("tree/title-sealed.wsk1", sealedBuf.Bytes())
	keys := g.File("keys.json", []byte(`{"`+TestKID+`":"`+TestKey+`"}`))
	g.Case("tree.title_sealed.open", "open", map[string]any{"sealed": sealed, "keys": keys}, "")

	// The heads, each written by the tree op and read by the head op.
	heads := map[string][]byte{}
	for _, c := range []struct {
		name, set string
		body      []byte
		g         int
		form      string
	}{
		{"generic", set, generic, 0, ""},
		{"generic-g1", set, generic, 1, ""},
		{"title-sealed", sealed, sealedBuf.Bytes(), 0, tree.FormSealed},
	} {
		hd, err := tree.Write(bytes.NewReader(c.body), c.g, c.form)
		if err != nil {
			fail(err)
			return
		}
		heads[c.name] = hd.Encode()
		file := g.File("tree/"+c.name+".wtr1", heads[c.name])
		g.Case("tree.write."+c.name, "tree", map[string]any{"set": c.set, "g": strconv.Itoa(c.g), "inner_form": c.form}, "")
		g.Case("tree.head."+c.name, "head", map[string]any{"head": file}, "")
		g.Case("tree.verify."+c.name, "verify", map[string]any{"head": file, "set": c.set}, "")
		g.Case("tree.pieces."+c.name, "pieces", map[string]any{"head": file, "set": c.set}, "")
	}
	// Heads Write refuses: a set of one piece, g past 16, a listing's form.
	small := g.File("generic.plain", genericPlain())
	for _, c := range []struct {
		id, set, g, form string
		code             refusal.Code
	}{
		{"one_piece", small, "0", "", tree.HeadMalformed},
		{"g_3_two_pieces", set, "3", "", ""},
		{"g_4_one_piece", set, "4", "", tree.HeadMalformed},
		{"g_17", set, "17", "", tree.HeadMalformed},
		{"form_listing", set, "0", "wai.prior.set", tree.InnerForm},
	} {
		g.Case("tree.write.refused."+c.id, "tree", map[string]any{"set": c.set, "g": c.g, "inner_form": c.form}, c.code)
	}

	// Heads broken one way each, from generic's (g 0, k 0, n 9).
	good := heads["generic"]
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	withForm := func(form string) []byte {
		hd, _ := tree.Read(good)
		c := *hd
		c.InnerForm = form
		return c.Encode()
	}
	le32 := func(b []byte, at int, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
	le64 := func(b []byte, at int, v uint64) { binary.LittleEndian.PutUint64(b[at:], v) }
	oneValue := append(bytes.Clone(good[:82]), good[82:114]...)
	le64(oneValue, 6, 1000)
	le32(oneValue, 78, 1)
	misstated := edit(func(b []byte) { b[14] ^= 1 })
	broken := []struct {
		id   string
		b    []byte
		code refusal.Code
	}{
		{"magic", edit(func(b []byte) { b[3] = '2' }), tree.HeadMalformed},
		{"ends_in_l", good[:10], tree.HeadMalformed},
		{"g_17", edit(func(b []byte) { b[4] = 17 }), tree.HeadMalformed},
		{"k_65", edit(func(b []byte) { b[5] = 65 }), tree.HeadMalformed},
		{"form_byte", withForm("wai.prior gguf"), tree.HeadMalformed},
		{"l_0", edit(func(b []byte) { le64(b, 6, 0) }), tree.HeadMalformed},
		{"l_a_piece_more", edit(func(b []byte) { le64(b, 6, 9*1024+1) }), tree.HeadMalformed},
		{"n_10", edit(func(b []byte) { le32(b, 78, 10) }), tree.HeadMalformed},
		{"n_1", oneValue, tree.HeadMalformed},
		{"a_byte_less", good[:len(good)-1], tree.HeadMalformed},
		{"a_byte_more", append(bytes.Clone(good), 0), tree.HeadMalformed},
		{"form_coded_nnc", withForm("wai.prior.nnc"), tree.InnerForm},
		{"form_listing", withForm("wai.prior.set"), tree.InnerForm},
		{"form_tree", withForm("wai.prior.tree"), tree.InnerForm},
		{"form_unregistered", withForm("wai.prior.other"), tree.InnerForm},
		{"value_3_changed", edit(func(b []byte) { b[82+3*32] ^= 1 }), tree.RootMismatch},
		{"root_changed", edit(func(b []byte) { b[46+31] ^= 0x80 }), tree.RootMismatch},
		{"inner_misstated", misstated, ""},
	}
	for _, c := range broken {
		g.Case("tree.head.broken."+c.id, "head", map[string]any{"head": g.File("tree/broken/"+c.id+".wtr1", c.b)}, c.code)
	}

	// Held files against the heads: a byte changed in piece 3, a byte short
	// and a byte more, and a head whose inner misstates its set.
	changed0 := bytes.Clone(generic)
	changed0[3*1024+5] ^= 1
	changed1 := bytes.Clone(generic)
	changed1[3*2048+1500] ^= 1
	files := []struct {
		id, head, set string
		code          refusal.Code
	}{
		{"generic.piece_3_changed", "tree/generic.wtr1", g.File("tree/generic-piece3-g0.set", changed0), tree.PieceMismatch},
		{"generic-g1.piece_3_changed", "tree/generic-g1.wtr1", g.File("tree/generic-piece3-g1.set", changed1), tree.PieceMismatch},
		{"generic.a_byte_short", "tree/generic.wtr1", g.File("tree/generic-short.set", generic[:len(generic)-1]), tree.PieceMismatch},
		{"generic.a_byte_more", "tree/generic.wtr1", g.File("tree/generic-long.set", append(bytes.Clone(generic), 0)), tree.DigestMismatch},
		{"generic.inner_misstated", "tree/broken/inner_misstated.wtr1", set, tree.DigestMismatch},
		{"generic-g1.title_sealed", "tree/generic-g1.wtr1", sealed, tree.PieceMismatch},
	}
	for _, c := range files {
		in := map[string]any{"head": c.head, "set": c.set}
		g.Case("tree.verify."+c.id, "verify", in, c.code)
		g.Case("tree.pieces."+c.id, "pieces", in, "")
	}
}
