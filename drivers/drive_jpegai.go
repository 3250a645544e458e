package drivers

import (
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/tensor"
)

// ScaleSegments are the parts of a wai.image.jpegai codestream that the
// scale path reads (§13.6.1 Inputs). The codestream syntax (ISO/IEC
// 6048-1) has no text here (docs/READINGS.md D-G), so the driver takes the
// segment payloads and the GRFS flags as given.
type ScaleSegments struct {
	SOZ, SORP, SORS []byte
	// GRFSY and GRFSUV are each component header's per-channel flags, one
	// per latent channel (160 and 96).
	GRFSY, GRFSUV []bool
}

// ScalePlane is one plane's result of §13.6.1 steps 1–4: z [C, 4, 4], v,
// mask (1 where coded), likely, σ_idx and y_q, each [C, 16, 16]. These are
// what the capability's entropy-consistency claim covers (§12).
type ScalePlane struct {
	Z, V, Mask, Likely, SigmaIdx, YQ *tensor.T
}

// The constants of §13.6.1 step 3.
var (
	bandEdges = []int64{1003, 1352, 1937}
	bandTable = [][]int64{{-31, 20, 122, 181}, {-80, -31, 71, 130}}
)

// DecodeScale runs the scale path and both entropy decodes of
// jpegai-int/1 for the luma and then the chroma plane (§13.6.1). A bundle
// that fails a load check is model_mismatch; a mans_decode refusal is
// stream_exhausted (E8). It returns both planes.
func DecodeScale(load fabric.Loader, hsY, hsUV, norm []byte, seg ScaleSegments) (y, uv *ScalePlane, err error) {
	set, err := Lower(JPEGAI, nil, []File{{"hs_y.json", hsY}, {"hs_uv.json", hsUV}, {"norm.json", norm}})
	if err != nil {
		return nil, nil, err
	}
	n, err := ParseNorm(norm) // already checked by Lower; read for its tables
	if err != nil {
		return nil, nil, err
	}
	if len(seg.GRFSY) != ScaleChannelsY || len(seg.GRFSUV) != ScaleChannelsUV {
		return nil, nil, refusal.New(refusal.ModelMismatch, "%d and %d GRFS flags; the planes have 160 and 96 channels", len(seg.GRFSY), len(seg.GRFSUV))
	}
	// §13.6.1 step 4: T_y[σ] from pmf row σ and B_y[σ] = bounds[σ], σ < 32.
	tab, err := stage.NewSgmTables(n.PMF, n.Bounds[:32])
	if err != nil {
		return nil, nil, err
	}
	type plane struct {
		role   string
		c      int
		rows   [][]int64
		skip   int
		latent []byte
		flags  []bool
	}
	planes := []plane{
		{"hs_y", ScaleChannelsY, n.CdfsY, 0, seg.SORP, seg.GRFSY},
		{"hs_uv", ScaleChannelsUV, n.CdfsUV, ScaleChannelsY, seg.SORS, seg.GRFSUV},
	}
	out := make([]*ScalePlane, 2)
	for i, p := range planes {
		dec, err := set.Load(load, p.role)
		if err != nil {
			return nil, nil, err
		}
		sp := &ScalePlane{}
		// Step 1: a fresh fac decode over SOZ: skip rows of cdfs_y
		// (discarded), then C rows with this plane's rows.
		facRows := make([]stage.FacRow, 0, p.skip+p.c)
		for r := range p.skip {
			facRows = append(facRows, stage.FacRow(n.CdfsY[r]))
		}
		for r := range p.c {
			facRows = append(facRows, stage.FacRow(p.rows[r]))
		}
		lengths := make([]int64, len(facRows))
		for r := range lengths {
			lengths[r] = 16
		}
		syms, err := (&stage.MansDecoder{}).Fac(seg.SOZ, facRows, lengths)
		if err != nil {
			return nil, nil, err
		}
		// z[c][y][x] = sym_{c, 4y + x} − 31: row-major [C, 4, 4].
		sp.Z = tensor.New(tensor.Shape{C: p.c, H: 4, W: 4})
		for k := range sp.Z.Data {
			sp.Z.Data[k] = syms[16*p.skip+k] - 31
		}
		// Step 2: the scale graph gives v [C, 16, 16].
		res, err := dec.Decode([]*tensor.T{sp.Z}, nil)
		if err != nil {
			return nil, nil, err
		}
		sp.V = res[0]
		// Step 3: the stage operators at every channel and position.
		if sp.Likely, err = stage.BlockStat(sp.V, 8, 6, 0, 4351); err != nil {
			return nil, nil, err
		}
		shape := sp.V.Shape
		sp.Mask, sp.SigmaIdx = tensor.New(shape), tensor.New(shape)
		spans := make([]stage.Span, p.c)
		per := shape.H * shape.W
		for c := range p.c {
			row := int64(1)
			if p.flags[c] {
				row = 0
			}
			spans[c] = stage.Span{Mask: make([]bool, per), Sigma: sp.SigmaIdx.Data[c*per : (c+1)*per]}
			for j := range per {
				k := c*per + j
				v := sp.V.Data[k]
				coded := stage.Coded(v, 382)
				spans[c].Mask[j] = coded
				if coded {
					sp.Mask.Data[k] = 1
				}
				rvs, err := stage.BandLookup(sp.Likely.Data[k], bandEdges, bandTable, row)
				if err != nil {
					return nil, nil, err
				}
				if sp.SigmaIdx.Data[k], err = stage.ScaleIndex(satAdd(v, rvs), 7, 32); err != nil {
					return nil, nil, err
				}
			}
		}
		// Step 4: a fresh sgm decode over the plane's latent segment.
		lat, err := (&stage.MansDecoder{}).Sgm(p.latent, tab, spans)
		if err != nil {
			return nil, nil, err
		}
		sp.YQ = tensor.New(shape)
		copy(sp.YQ.Data, lat)
		out[i] = sp
	}
	return out[0], out[1], nil
}

// satAdd is a + b saturated to i64. scale_index clamps R_half_up(v + rvs,
// 7) to [0, 31], and rvs ∈ [−80, 181], so a sum past i64 gives 0 or 31
// exactly as the saturated one does: no exact result changes.
func satAdd(a, b int64) int64 {
	s := a + b
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) { // overflow
		if a >= 0 {
			return 1<<63 - 1
		}
		return -1 << 63
	}
	return s
}

// ParseGRFS reads the GRFS flags as {"y": [160 flags], "uv": [96 flags]},
// each flag true/false or 0/1. Anything else is model_mismatch.
func ParseGRFS(b []byte) (y, uv []bool, err error) {
	m, err := jsonObject(b)
	if err != nil {
		return nil, nil, refusal.New(refusal.ModelMismatch, "GRFS flags: %v", err)
	}
	read := func(name string, n int) ([]bool, error) {
		a, ok := m[name].([]any)
		if !ok || len(a) != n {
			return nil, refusal.New(refusal.ModelMismatch, "GRFS flags: %s is not a list of %d", name, n)
		}
		out := make([]bool, n)
		for i, v := range a {
			if b, ok := v.(bool); ok {
				out[i] = b
				continue
			}
			x, err := jsonInt64(v, 0, 1)
			if err != nil {
				return nil, refusal.New(refusal.ModelMismatch, "GRFS flags: %s[%d]: %v", name, i, err)
			}
			out[i] = x == 1
		}
		return out, nil
	}
	if y, err = read("y", ScaleChannelsY); err != nil {
		return nil, nil, err
	}
	uv, err = read("uv", ScaleChannelsUV)
	return y, uv, err
}
