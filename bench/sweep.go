package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/waiops/waiops/tensor"
)

// Sweep chooses a run's cases: the operator families, the sides of their
// input planes, and the synthesis network's input sides.
type Sweep struct {
	Sides      []int
	SynthSides []int
	// BmshjSides are the bmshj2018 network's latent heights (its width is
	// 3/2 of that: 32 is a 768×512 picture).
	BmshjSides []int
	// TinycodecCrop, when above 0, crops the imported network's held-out
	// latents to their top-left TinycodecCrop×TinycodecCrop.
	TinycodecCrop int
	// Ops are the families to run (a family of opFamilies, "graph_synth4",
	// or one of Apps' "int_synth" and "world"); empty means DefaultOps.
	Ops []string
}

// DefaultOps are the families a run without --ops measures: every one
// but conv3x3_raw, the peers' conv, which runs when named.
func DefaultOps() []string {
	var ops []string
	for _, f := range opFamilies {
		if f.name != "conv3x3_raw" {
			ops = append(ops, f.name)
		}
	}
	return append(append(ops, networkOps...), tinycodecOp, "int_synth", "world")
}

// KnownOps are every family a Sweep can name.
func KnownOps() []string { return append(DefaultOps(), "conv3x3_raw") }

// DefaultSweep is the sweep of a plain `waiops bench`: sides 16 to 128,
// the synthesis network from 4, 8 and 16, bmshj2018 from a 32×48 latent,
// tinycodec's whole held-out latents; quick keeps 16, 32, 4, bmshj2018
// from a 1×1 latent (a 16×16 picture: the full one takes seconds a decode
// on 2 cores, and llvmpipe seconds on even a 2×3 one) and tinycodec's
// latents cropped to 8×8 (a 64×64 picture: llvmpipe takes most of a
// second on the whole 256×256 one).
func DefaultSweep(quick bool) Sweep {
	if quick {
		return Sweep{Sides: []int{16, 32}, SynthSides: []int{4}, BmshjSides: []int{1}, TinycodecCrop: 8}
	}
	return Sweep{Sides: []int{16, 32, 64, 128}, SynthSides: []int{4, 8, 16}, BmshjSides: []int{32}}
}

// Wants reports whether the sweep runs family op.
func (s Sweep) Wants(op string) bool {
	if len(s.Ops) == 0 {
		return slices.Contains(DefaultOps(), op)
	}
	return slices.Contains(s.Ops, op)
}

// ParseOps reads a comma-separated family list, refusing a name no sweep
// knows.
func ParseOps(s string) ([]string, error) {
	var ops []string
	for _, op := range strings.Split(s, ",") {
		if !slices.Contains(KnownOps(), op) {
			return nil, fmt.Errorf("unknown family %q (known: %s)", op, strings.Join(KnownOps(), ", "))
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// ParseSides reads a comma-separated list of plane sides, each from 1 to
// 4096 (a 64-channel plane passes §3's 2^26 elements past 1024, and such
// cases are left out).
func ParseSides(s string) ([]int, error) {
	var sides []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4096 {
			return nil, fmt.Errorf("side %q is not a whole number from 1 to 4096", f)
		}
		sides = append(sides, n)
	}
	return sides, nil
}

// outputsSHA256 hashes a decode's outputs, each element as an int64 in
// little-endian order, outputs one after another: equal hashes across
// runs and machines say equal integers without shipping them.
func outputsSHA256(outs []*tensor.T) string {
	h := sha256.New()
	buf := make([]byte, 0, 8<<10)
	for _, t := range outs {
		for _, v := range t.Data {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
			if len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// WritePeerData writes, for every conv3x3_raw case, the file an outside
// peer reads (peerConv.file: six int32 then the int8 input and weights) as
// DIR/<case>.bin, and for every network case its float twin
// (twin.writeFiles: DIR/<case>.net.json and .net.f32), runs being the timed
// runs the peer should take. scripts/torch_peer.py reads them.
func WritePeerData(dir string, cases []*Case, runs int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range cases {
		if slices.Contains(networkOps, c.Op) {
			tw, err := twinOf(c)
			if err == nil {
				err = tw.writeFiles(dir, runs)
			}
			if err != nil {
				return err
			}
		}
		if c.Op != "conv3x3_raw" {
			continue
		}
		p := newPeerConv(c.Size, runs)
		if err := os.WriteFile(filepath.Join(dir, c.Name()+".bin"), p.file(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
