package decoder

import "github.com/waiops/waiops/drivers"

// ScaleSegments and ScalePlane are wai.image.jpegai's scale-path inputs
// and outputs (jpegai-int/1, §13.6.1).
type (
	ScaleSegments = drivers.ScaleSegments
	ScalePlane    = drivers.ScalePlane
)

// ScaleResult is one run of the jpegai scale path: the y and uv planes and
// the fabric that ran it.
type ScaleResult struct {
	Y, UV  *ScalePlane
	Fabric Fabric
}

// DecodeJPEGAIScale loads the jpegai-int/1 bundle members hs_y.json,
// hs_uv.json and norm.json and runs the scale path and its two entropy
// decodes on seg (§13.6.1), for the y and uv planes.
func (d *Decoder) DecodeJPEGAIScale(hsY, hsUV, norm []byte, seg ScaleSegments) (*ScaleResult, error) {
	h := d.newHeld()
	defer h.release()
	y, uv, fabric, err := drivers.DecodeScale(h.loader(), hsY, hsUV, norm, seg)
	if err != nil {
		return nil, own(err)
	}
	return &ScaleResult{Y: y, UV: uv, Fabric: Fabric(fabric)}, nil
}

// ParseGRFS reads the jpegai scale path's flags, {"y": [160 flags], "uv":
// [96 flags]} with each flag true/false or 0/1.
func ParseGRFS(b []byte) (y, uv []bool, err error) { return drivers.ParseGRFS(b) }
