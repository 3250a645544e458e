package drivers

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// worldPlan is what world/1's load checks establish (§13.5, informative).
type worldPlan struct {
	t, gs         *Network
	tPlan, gsPlan *netPlan
	c, a          uint32 // the latent's channels C and the action planes A
}

// planWorld runs world/1's load checks (model_mismatch): both networks plan
// (§13.2), their afrac are equal, A = T's input channels − C ≥ 1 with C
// g_s's input channels, and T gives C channels back so that each
// transition reads what the one before it wrote.
func planWorld(tBytes, gsBytes []byte) (*worldPlan, error) {
	w := &worldPlan{}
	var err error
	if w.t, err = ParseWHM(tBytes, false); err != nil {
		return nil, err
	}
	if w.gs, err = ParseWHM(gsBytes, false); err != nil {
		return nil, err
	}
	if w.tPlan, err = planNetwork(w.t, "T"); err != nil {
		return nil, err
	}
	if w.gsPlan, err = planNetwork(w.gs, "g_s"); err != nil {
		return nil, err
	}
	if w.t.Afrac != w.gs.Afrac {
		return nil, refusal.New(refusal.ModelMismatch, "world/1: T's afrac %d is not g_s's %d", w.t.Afrac, w.gs.Afrac)
	}
	w.c = w.gsPlan.inC
	if w.tPlan.inC <= w.c {
		return nil, refusal.New(refusal.ModelMismatch, "world/1: T reads %d channels, the latent has %d, so A < 1", w.tPlan.inC, w.c)
	}
	w.a = w.tPlan.inC - w.c
	if w.tPlan.outC != w.c {
		return nil, refusal.New(refusal.ModelMismatch, "world/1: T gives %d channels back, the latent has %d", w.tPlan.outC, w.c)
	}
	return w, nil
}

// lowerT is world/1's graph T (§13.5): scalars 0 … A − 1 are the plane
// values; fill from each scalar reads z and writes one channel; concat(z,
// fill_0, …, fill_{A−1}) is x_0 under T's layer-0 range check; T's layers;
// then clamp(−2^afrac, 2^afrac).
func (w *worldPlan) lowerT() *whg1.Graph {
	b := newBuilder()
	for range w.a {
		b.scalar(-1<<63, 1<<63-1)
	}
	z := b.input(w.c, whg1.Check, -1<<63, 1<<63-1, 0, 0)
	parts := []uint32{z}
	for a := range w.a {
		parts = append(parts, b.op(whg1.OpFill, &whg1.Fill{Scalar: true, Value: int64(a)}, 1, z))
	}
	x0 := b.op(whg1.OpConcat, nil, w.c+w.a, parts...)
	lo, hi := w.tPlan.inputRange()
	b.check(x0, lo, hi)
	x := emitLayers(b, w.t, w.tPlan, x0)
	lim := int64(1) << w.t.Afrac
	return b.finish(b.clamp(x, -lim, lim))
}
