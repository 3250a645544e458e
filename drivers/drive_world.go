package drivers

import (
	"fmt"
	"math/big"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
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

// WorldSet is a world/1 pair (§13.5, informative) lowered, certified and
// loaded once: Start renders a clip from a latent, and several clips may
// run at once when the decoders it loaded allow it.
type WorldSet struct {
	set          *Set
	tDec, gDec   whg1.Decoder
	tModel, gMod *whg1.Graph
	afrac        int64
}

// LoadWorld lowers the pair (world/1's load checks and the certificate)
// and loads both graphs on load, each where its own verdict allows.
func LoadWorld(load fabric.Loader, tBytes, gsBytes []byte) (*WorldSet, error) {
	set, err := Lower(World, nil, []File{{Name: "T.whm", Data: tBytes}, {Name: "g_s.whm", Data: gsBytes}})
	if err != nil {
		return nil, err
	}
	w := &WorldSet{set: set, tModel: set.Role("T").Graph, gMod: set.Role("g_s").Graph}
	if w.tDec, err = set.Load(load, "T"); err != nil {
		return nil, err
	}
	if w.gDec, err = set.Load(load, "g_s"); err != nil {
		return nil, err
	}
	net, err := ParseWHM(tBytes, false) // Lower has read it: it parses
	if err != nil {
		return nil, err
	}
	w.afrac = int64(net.Afrac)
	return w, nil
}

// Set is the lowered pair, with its certificate.
func (w *WorldSet) Set() *Set { return w.set }

// Actions is A, the number of action planes: the entries of every row.
func (w *WorldSet) Actions() int { return len(w.tModel.Scalars) }

// Planes checks the rows (every row has A entries, model_mismatch) and
// gives each move's plane value, dequantize(m, afrac, 0) with T's afrac
// (E2); a plane value that leaves i64 is field_range.
func (w *WorldSet) Planes(rows [][]int64) ([][]int64, error) {
	a := w.Actions()
	for i, r := range rows {
		if len(r) != a {
			return nil, refusal.New(refusal.ModelMismatch, "row %d has %d entries; the set has A = %d", i, len(r), a)
		}
	}
	planes := make([][]int64, len(rows))
	for i, r := range rows {
		planes[i] = make([]int64, a)
		for k, m := range r {
			var err error
			if planes[i][k], err = stage.Dequantize(m, w.afrac, 0); err != nil {
				return nil, refusal.New(refusal.FieldRange, "row %d, plane %d: %v", i, k, err)
			}
		}
	}
	return planes, nil
}

// Clip is one world/1 run: the latent z it carries from frame to frame,
// and the frame g_s(z), [3, H, W]. One clip is one sequence: step it from
// one goroutine.
type Clip struct {
	w     *WorldSet
	z     *tensor.T
	frame *tensor.T
}

// Start plans both graphs on z_0's shape (T must give it back, g_s must
// give three channels: model_mismatch) and renders frame 0, g_s(z_0).
func (w *WorldSet) Start(z0 *tensor.T) (*Clip, error) {
	shape := z0.Shape
	pt, err := w.tModel.PlanRun([]tensor.Shape{shape}, make([]int64, w.Actions()))
	if err != nil {
		return nil, refusal.New(refusal.ModelMismatch, "T does not plan on z0 %v: %v", shape, err)
	}
	if got := pt.Shapes[w.tModel.Outputs[0]]; got != shape {
		return nil, refusal.New(refusal.ModelMismatch, "T gives %v for z0 %v", got, shape)
	}
	pg, err := w.gMod.PlanData([]*tensor.T{z0}, nil)
	if err != nil {
		return nil, refusal.New(refusal.ModelMismatch, "g_s does not plan on z0 %v: %v", shape, err)
	}
	if c := pg.Plan().Shapes[w.gMod.Outputs[0]].C; c != 3 {
		return nil, refusal.New(refusal.ModelMismatch, "g_s gives %d channels, not 3", c)
	}
	c := &Clip{w: w, z: z0}
	if c.frame, err = c.render(pg); err != nil {
		return nil, fmt.Errorf("frame 0: %w", err)
	}
	return c, nil
}

// render is g_s(z), planned as r (nil: planned here).
func (c *Clip) render(r *whg1.Planned) (*tensor.T, error) {
	var out []*tensor.T
	var err error
	if r != nil {
		out, err = whg1.DecodePlanned(c.w.gDec, r)
	} else {
		out, err = c.w.gDec.Decode([]*tensor.T{c.z}, nil)
	}
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Frame is the clip's current frame, [3, H, W].
func (c *Clip) Frame() *tensor.T { return c.frame }

// Latent is the latent z the current frame was rendered from.
func (c *Clip) Latent() *tensor.T { return c.z }

// Step takes one row of plane values (from Planes): z becomes T(z) with
// them as the scalars, and the next frame g_s(z) is returned. On an error
// the clip is left at its last frame.
func (c *Clip) Step(planes []int64) (*tensor.T, error) {
	out, err := c.w.tDec.Decode([]*tensor.T{c.z}, planes)
	if err != nil {
		return nil, err
	}
	prev := c.z
	c.z = out[0]
	f, err := c.render(nil)
	if err != nil {
		c.z = prev
		return nil, err
	}
	c.frame = f
	return f, nil
}

// Render renders a whole clip from z_0 (§13.5): frame 0 is g_s(z_0); for
// each row in order, z becomes T(z) with the row's plane values as the
// scalars, and the next frame is g_s(z). Every check runs before the first
// frame; a refusal returns no frames.
func (w *WorldSet) Render(z0 *tensor.T, rows [][]int64) ([]*tensor.T, error) {
	planes, err := w.Planes(rows)
	if err != nil {
		return nil, err
	}
	c, err := w.Start(z0)
	if err != nil {
		return nil, err
	}
	frames := append(make([]*tensor.T, 0, len(rows)+1), c.Frame())
	for i, p := range planes {
		f, err := c.Step(p)
		if err != nil {
			return nil, fmt.Errorf("transition %d: %w", i, err)
		}
		frames = append(frames, f)
	}
	return frames, nil
}

// RenderWorld loads the pair and renders one clip (LoadWorld, then
// WorldSet.Render).
func RenderWorld(load fabric.Loader, tBytes, gsBytes []byte, z0 *tensor.T, rows [][]int64) ([]*tensor.T, error) {
	w, err := LoadWorld(load, tBytes, gsBytes)
	if err != nil {
		return nil, err
	}
	return w.Render(z0, rows)
}
