package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sort"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/refusal"
)

// docs/READINGS.md D-H1's listings and the statement a listing binds (§18.1): a
// wai-usage.json at the top-level path held with its terms, one there that
// does not read, and one at a/wai-usage.json that binds nothing.

func init() {
	ops["hold"] = opHold
	gens = append(gens, genListings)
	reach = append(reach, carriage.SetUsageMalformed, carriage.SetDigestMismatch, carriage.PriorNotHeld)
}

// opHold is `hold`: the listing's files read from files/<dir>/<path>.
func opHold(in *Inputs) (any, error) {
	l, err := in.File("listing")
	if err != nil {
		return nil, err
	}
	dir, err := in.Str("dir")
	if err != nil {
		return nil, err
	}
	s, err := carriage.Hold(l, func(f carriage.ListedFile) (io.ReadCloser, error) {
		b, err := in.FileAt(dir + "/" + f.Path)
		return io.NopCloser(bytes.NewReader(b)), err
	})
	if err != nil {
		return nil, err
	}
	var usage any
	if s.Usage != nil {
		usage = usageResult(s.Usage)
	}
	return map[string]any{"digest": hex.EncodeToString(s.Digest[:]), "files": len(s.Listing.Files), "usage": usage}, nil
}

// listing is the listing of files, by path.
func listing(files map[string][]byte) ([]byte, error) {
	l := &carriage.Listing{}
	for p, b := range files {
		l.Files = append(l.Files, carriage.ListedFile{Path: p, Length: uint64(len(b)), SHA256: sha256.Sum256(b)})
	}
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	return l.Marshal()
}

func genListings(g *Gen) {
	weights := genericPlain()
	sets := []struct {
		id    string
		files map[string][]byte
		code  refusal.Code
	}{
		{"usage_top_level", map[string][]byte{"weights.bin": weights, carriage.UsagePath: []byte(setUsage)}, ""},
		{"usage_does_not_read", map[string][]byte{"weights.bin": weights, carriage.UsagePath: []byte(stmt(`"MIT and BSD"`, "null", "false", "true", "null"))}, carriage.SetUsageMalformed},
		{"usage_not_top_level", map[string][]byte{"weights.bin": weights, "a/" + carriage.UsagePath: []byte("a file of the set, not a statement")}, ""},
		{"no_usage", map[string][]byte{"weights.bin": weights, "a/b.bin": {1, 2, 3}}, ""},
	}
	for _, s := range sets {
		l, err := listing(s.files)
		if err != nil {
			g.err = err
			return
		}
		for p, b := range s.files {
			g.File("sets/"+s.id+"/"+p, b)
		}
		g.Case("hold."+s.id, "hold", map[string]any{"listing": g.File("sets/"+s.id+".listing", l), "dir": "sets/" + s.id}, s.code)
	}
	// A held file that is not the listing's, a file not held, a listing
	// that is not canonical: the set is not held.
	l, err := listing(map[string][]byte{"weights.bin": weights, "missing.bin": {0}})
	if err != nil {
		g.err = err
		return
	}
	changed := bytes.Clone(weights)
	changed[0] ^= 1
	g.File("sets/file_changed/weights.bin", changed)
	g.File("sets/file_changed/missing.bin", []byte{0})
	g.Case("hold.file_changed", "hold", map[string]any{"listing": g.File("sets/file_changed.listing", l), "dir": "sets/file_changed"}, carriage.SetDigestMismatch)
	g.File("sets/file_missing/weights.bin", weights)
	g.Case("hold.file_missing", "hold", map[string]any{"listing": g.File("sets/file_missing.listing", l), "dir": "sets/file_missing"}, carriage.PriorNotHeld)
	g.Case("hold.listing_not_canonical", "hold", map[string]any{"listing": g.File("sets/file_missing_spaced.listing", append(l, '\n')), "dir": "sets/file_missing"}, carriage.PriorNotHeld)
	// A listing that states weights.bin's SHA-256 with a length one short
	// of its bytes: the file is the listing's only when both are
	// (D-H1), so the set is not held.
	short := &carriage.Listing{Files: []carriage.ListedFile{{Path: "weights.bin", Length: uint64(len(weights)) - 1, SHA256: sha256.Sum256(weights)}}}
	sl, err := short.Marshal()
	if err != nil {
		g.err = err
		return
	}
	g.File("sets/length_misstated/weights.bin", weights)
	g.Case("hold.length_misstated", "hold", map[string]any{"listing": g.File("sets/length_misstated.listing", sl), "dir": "sets/length_misstated"}, carriage.SetDigestMismatch)
}
