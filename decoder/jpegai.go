package decoder

import "github.com/waiops/waiops/drivers"

// ScaleSegments are the parts of a wai.image.jpegai codestream that the
// scale path reads (jpegai-int/1, §13.6.1 Inputs): the segment payloads
// and the GRFS flags, as given (the codestream syntax has no text here).
type ScaleSegments struct {
	SOZ, SORP, SORS []byte
	// GRFSY and GRFSUV are each component header's per-channel flags, one
	// per latent channel (160 and 96).
	GRFSY, GRFSUV []bool
}

// ScalePlane is one plane's result of §13.6.1 steps 1–4: z [C, 4, 4], v,
// mask (1 where coded), likely, σ_idx and y_q, each [C, 16, 16]: what the
// capability's entropy-consistency claim covers (§12).
type ScalePlane struct {
	Z, V, Mask, Likely, SigmaIdx, YQ *Tensor
}

// ScaleResult is one run of the jpegai scale path: the y and uv planes and
// the fabric that ran it ("hs_y cpu, hs_uv gpu" when the two graphs ran
// apart).
type ScaleResult struct {
	Y, UV  *ScalePlane
	Fabric string
}

// DecodeJPEGAIScale loads the jpegai-int/1 bundle members hs_y.json,
// hs_uv.json and norm.json and runs the scale path and its two entropy
// decodes on seg (§13.6.1), for the y and uv planes.
func (d *Decoder) DecodeJPEGAIScale(hsY, hsUV, norm []byte, seg ScaleSegments) (*ScaleResult, error) {
	h := d.newHeld()
	defer h.release()
	y, uv, err := drivers.DecodeScale(h, hsY, hsUV, norm, drivers.ScaleSegments(seg))
	if err != nil {
		return nil, err
	}
	fy, fuv := string(fabricOf(h.graph(0))), string(fabricOf(h.graph(1)))
	f := fy
	if fy != fuv {
		f = "hs_y " + fy + ", hs_uv " + fuv
	}
	return &ScaleResult{Y: (*ScalePlane)(y), UV: (*ScalePlane)(uv), Fabric: f}, nil
}

// ParseGRFS reads the jpegai scale path's flags, {"y": [160 flags], "uv":
// [96 flags]} with each flag true/false or 0/1.
func ParseGRFS(b []byte) (y, uv []bool, err error) { return drivers.ParseGRFS(b) }
