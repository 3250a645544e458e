package drivers

import (
	"fmt"
	"math/big"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/tensor"
)

// ParseLatent reads z_0 as a §14.1 tensor ({"data", "shape"}, integers as
// decimal strings or JSON numbers) with the reference renderer's codes
// (§13.5, informative until wai.world.model has payload text): a side of 0
// is field_range, more than 2^26 values too_large, a shape that is not
// [C, lat, lat] or data that is not C·lat·lat values geometry_mismatch.
func ParseLatent(b []byte) (*tensor.T, error) {
	m, err := jsonObject(b)
	if err != nil {
		return nil, refusal.New(refusal.GeometryMismatch, "z0: %v", err)
	}
	sh, ok := m["shape"].([]any)
	if !ok || len(sh) != 3 {
		return nil, refusal.New(refusal.GeometryMismatch, "z0: shape is not [C, lat, lat]")
	}
	var d [3]int64
	for i, v := range sh {
		n, err := jsonInt(v)
		switch {
		case err != nil || n.Sign() < 0:
			return nil, refusal.New(refusal.GeometryMismatch, "z0: shape[%d] is not a size", i)
		case n.Sign() == 0:
			return nil, refusal.New(refusal.FieldRange, "z0: a side of 0")
		case n.Cmp(big.NewInt(maxElems)) > 0:
			return nil, refusal.New(refusal.TooLarge, "z0: shape[%d] = %v passes 2^26 values", i, n)
		}
		d[i] = n.Int64()
	}
	if d[0]*d[1] > maxElems || d[0]*d[1]*d[2] > maxElems { // each ≤ 2^26: no overflow
		return nil, refusal.New(refusal.TooLarge, "z0: %v passes 2^26 values", d)
	}
	if d[1] != d[2] {
		return nil, refusal.New(refusal.GeometryMismatch, "z0: %v is not [C, lat, lat]", d)
	}
	// The data is read against the shape before the tensor is made, so a
	// shape that claims 2^26 values over a short text allocates nothing
	// past the text (§3: caps before anything is allocated).
	data, err := jsonInts(m["data"], []uint64{uint64(d[0] * d[1] * d[2])}, -1<<63, 1<<63-1)
	if err != nil {
		return nil, refusal.New(refusal.GeometryMismatch, "z0: %v", err)
	}
	return &tensor.T{Shape: tensor.Shape{C: int(d[0]), H: int(d[1]), W: int(d[2])}, Data: data}, nil
}

// ParseRows reads the action rows: a JSON array of rows, each a list of A
// moves, one per action plane (§13.5: (dx, dy, 0) for a single agent,
// (dxA, dyA, dxB, dyB) for two). A value that is not an integer of i64 is
// field_range.
func ParseRows(b []byte) ([][]int64, error) {
	v, err := jsonArray(b)
	if err != nil {
		return nil, refusal.New(refusal.ModelMismatch, "rows: %v", err)
	}
	rows := make([][]int64, len(v))
	for i, r := range v {
		a, ok := r.([]any)
		if !ok {
			return nil, refusal.New(refusal.ModelMismatch, "row %d is not a list", i)
		}
		if rows[i], err = jsonInts(a, []uint64{uint64(len(a))}, -1<<63, 1<<63-1); err != nil {
			return nil, refusal.New(refusal.FieldRange, "row %d: %v", i, err)
		}
	}
	return rows, nil
}

// RenderWorld renders world/1 (§13.5, informative): frame 0 is g_s(z_0);
// for each row in order, z becomes T(z) with the row's plane values as the
// scalars, and the next frame is g_s(z). A row's plane values are its
// moves dequantized, dequantize(m, afrac, 0) (E2), and a plane value that
// leaves i64 is field_range. Every check runs before the first frame; a
// refusal returns no frames. It also names the fabric that ran.
func RenderWorld(load Loader, tBytes, gsBytes []byte, z0 *tensor.T, rows [][]int64) ([]Frame, string, error) {
	set, err := Lower(World, nil, []File{{Name: "T.whm", Data: tBytes}, {Name: "g_s.whm", Data: gsBytes}})
	if err != nil {
		return nil, "", err
	}
	tDec, tModel, tFabric, err := load(set.Graph("T"))
	if err != nil {
		return nil, "", err
	}
	gDec, gModel, fabric, err := load(set.Graph("g_s"))
	if err != nil {
		return nil, "", err
	}
	if tFabric != fabric { // each graph runs where its own verdict allows
		fabric = "T " + tFabric + ", g_s " + fabric
	}
	// Load check: every row has A entries. Then each move's plane value
	// (the stage operator of §13.5's row), with T's afrac.
	a := len(tModel.Scalars)
	for i, r := range rows {
		if len(r) != a {
			return nil, "", refusal.New(refusal.ModelMismatch, "row %d has %d entries; the set has A = %d", i, len(r), a)
		}
	}
	net, err := ParseWHM(tBytes, false) // Lower has read it: it parses
	if err != nil {
		return nil, "", err
	}
	planes := make([][]int64, len(rows))
	for i, r := range rows {
		planes[i] = make([]int64, a)
		for k, m := range r {
			if planes[i][k], err = stage.Dequantize(m, int64(net.Afrac), 0); err != nil {
				return nil, "", refusal.New(refusal.FieldRange, "row %d, plane %d: %v", i, k, err)
			}
		}
	}
	// Before the first frame: both graphs plan on z_0's shape, T gives it
	// back, and g_s gives three channels (model_mismatch).
	shape := z0.Shape
	pt, err := tModel.PlanRun([]tensor.Shape{shape}, make([]int64, a))
	if err != nil {
		return nil, "", refusal.New(refusal.ModelMismatch, "T does not plan on z0 %v: %v", shape, err)
	}
	if got := pt.Shapes[tModel.Outputs[0]]; got != shape {
		return nil, "", refusal.New(refusal.ModelMismatch, "T gives %v for z0 %v", got, shape)
	}
	pg, err := gModel.PlanRun([]tensor.Shape{shape}, nil)
	if err != nil {
		return nil, "", refusal.New(refusal.ModelMismatch, "g_s does not plan on z0 %v: %v", shape, err)
	}
	if c := pg.Shapes[gModel.Outputs[0]].C; c != 3 {
		return nil, "", refusal.New(refusal.ModelMismatch, "g_s gives %d channels, not 3", c)
	}
	frames := make([]Frame, 0, len(rows)+1)
	z := z0
	for i := 0; i <= len(rows); i++ {
		if i > 0 {
			out, err := tDec.Decode([]*tensor.T{z}, planes[i-1])
			if err != nil {
				return nil, "", fmt.Errorf("transition %d: %w", i-1, err)
			}
			z = out[0]
		}
		out, err := gDec.Decode([]*tensor.T{z}, nil)
		if err != nil {
			return nil, "", fmt.Errorf("frame %d: %w", i, err)
		}
		f, err := frameOf(out[0])
		if err != nil {
			return nil, "", err
		}
		frames = append(frames, f)
	}
	return frames, fabric, nil
}
