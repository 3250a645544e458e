package cpuref

import (
	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// convTKernel is §5.3 conv_transpose. Its definition, the gather form, is
//
//	acc[o][y][x] = Σ Wt[ci][o][i][j] · X[ci][ty/sh][tx/sw]
//	over ci < cin, i < kh, j < kw with ty = y + ph − i ≥ 0, ty mod sh = 0,
//	ty/sh < H, and likewise tx = x + pw − j for the columns
//	out[o][y][x] = rq_o(acc[o][y][x])
//
// and a position that no tap reaches holds rq_o(0). It is computed as the
// sh·sw phase convolutions of §9.3: for the residues ρ = (ρy, ρx),
//
//	Z_ρ[o][u][v] = Σ_ci Σ_{t,t′} Wt[ci][o][ρy + sh·t][ρx + sw·t′] · X̃[ci][u − t][v − t′]
//	out[o][y][x] = rq_o(Z_ρ[o][u][v]), u = (y + ph)/sh, v = (x + pw)/sw,
//	ρ = ((y + ph) mod sh, (x + pw) mod sw)
//
// Each Z_ρ is a stride-1 conv (a convKernel) with the flipped sub-kernel
// W′[o][ci][a][b] = Wt[ci][o][ρy + sh·(th − 1 − a)][ρx + sw·(tw − 1 − b)],
// th = ⌈(kh − ρy)/sh⌉ by tw taps, and padding (th − 1, tw − 1): its output
// row u reads input rows u − th + 1 … u, exactly the taps above. The
// products are those of §5.3 and the sums are exact (§4, §6: reordering),
// so the integers are the same. Z_ρ has rows u < H + th − 1; a position
// past them, or in a phase with no tap (ρy ≥ kh or ρx ≥ kw), is reached by
// no tap and holds rq_o(0).
//
// Each phase picks its own path by conv's bound on its own sub-kernel
// (B_ρ,o = Σ|W′[o]|·max|x|, and per input channel for the i32 lanes): the
// partial sums of a phase are a subset of the terms of §5.3's, so each
// phase's bound is exact for it. When any phase needs the 128-bit path,
// the whole operator runs the gather form above term by term (convTExact).
type convTKernel struct {
	p   *whg1.ConvT
	cin int
	// phases holds the phases that have taps, ρy < min(sh, kh) and
	// ρx < min(sw, kw), at ρy·nx + ρx; nil marks a phase with no tap. A
	// stride far past the kernel (any u32 loads) allocates nothing more.
	phases []*convKernel
	nx     int

	// post is what fuse folded in (relu, clamp, leaky), applied to each row
	// once rq has written it; nil for none.
	post *rowPost
}

// phase is the convolution of residue (ry, rx), or nil when it has no tap.
func (k *convTKernel) phase(ry, rx int) *convKernel {
	if rx >= k.nx || ry*k.nx+rx >= len(k.phases) {
		return nil
	}
	return k.phases[ry*k.nx+rx]
}

func newConvT(p *whg1.ConvT, cin int) *convTKernel {
	kh, kw, sh, sw, cout := int(p.KH), int(p.KW), int(p.SH), int(p.SW), int(p.Cout)
	nx := min(sw, kw)
	k := &convTKernel{p: p, cin: cin, phases: make([]*convKernel, min(sh, kh)*nx), nx: nx}
	for ry := range min(sh, kh) {
		for rx := range min(sw, kw) {
			th, tw := (kh-ry+sh-1)/sh, (kw-rx+sw-1)/sw
			c := &whg1.Conv{Cout: p.Cout, KH: uint32(th), KW: uint32(tw), SH: 1, SW: 1,
				PH: uint32(th - 1), PW: uint32(tw - 1), Groups: 1, RQ: p.RQ,
				W: make([]int64, cout*cin*th*tw)}
			for o := range cout {
				for ci := range cin {
					for a := range th {
						for b := range tw {
							i, j := ry+sh*(th-1-a), rx+sw*(tw-1-b)
							c.W[((o*cin+ci)*th+a)*tw+b] = p.W[((ci*cout+o)*kh+i)*kw+j]
						}
					}
				}
			}
			k.phases[ry*nx+rx] = newConv(c, cin)
		}
	}
	return k
}

// paths is the path each phase's convolution takes on an input of width W
// with max|x| = X (pathLanes for a phase with no tap, which computes
// nothing).
func (k *convTKernel) paths(X uint64, W int) []convPath {
	ps := make([]convPath, len(k.phases))
	for i, c := range k.phases {
		if c != nil {
			ps[i] = c.choose(X, W)
		}
	}
	return ps
}

// phaseSpan is, for residue r of one axis (stride s, padding pad, n output
// positions), the first output coordinate y0 with (y0 + pad) mod s = r, and
// the phase coordinates [u0, u1) that map to outputs y = u·s + r − pad < n.
func phaseSpan(r, s, pad, n int) (y0, u0, u1 int) {
	y0 = ((r-pad)%s + s) % s
	u0 = (y0 + pad) / s
	return y0, u0, max(u0, (n+pad-r+s-1)/s)
}

func (k *convTKernel) run(x, out *tensor.T) error { return k.runVal(val{T: x}, val{T: out}) }

// runVal is run on tensors stored at either width (narrow.go). A narrow
// output's phase rows are rq'd in place, the post applied, and stored as
// bytes into every sw-th column (storeRow); the exact form, and an output
// whose rq_o(0) some channel cannot hold in i8 (so the positions no tap
// reaches could not be written), run on int64 and are stored after.
func (k *convTKernel) runVal(x, out val) error {
	p := k.p
	H, W := x.Shape.H, x.Shape.W
	sh, sw, cout := int(p.SH), int(p.SW), int(p.Cout)
	Ho, Wo := out.Shape.H, out.Shape.W
	X, nonneg := extentOf(x)
	paths := k.paths(X, W)
	for _, path := range paths {
		if path == pathExact {
			xw := widened(x)
			if out.i8 != nil {
				return narrowed(out, "conv_transpose", func(t *tensor.T) error { return convTExact(k, xw, t) })
			}
			return convTExact(k, xw, out.T)
		}
	}
	// rq_o(0) for the positions no tap reaches; an error only if one exists.
	zero := make([]int64, cout)
	zeroOK := true
	for o := range zero {
		var ok bool
		zero[o], ok = rqOf(&p.RQ, o, int128{})
		zeroOK = zeroOK && ok
	}
	k.post.row(zero)
	zero8 := make([]int8, cout)
	if out.i8 != nil && (!zeroOK || !storeRow(zero8, 1, zero, nil)) {
		return narrowed(out, "conv_transpose", func(t *tensor.T) error { return k.runVal(x, val{T: t}) })
	}
	// The jobs' rows [u0, u1): on one packing of x for every phase where
	// dot's kernels take them all, the phases of the same rows together,
	// else each phase on its own path (which computes the columns from 0).
	var rows phaseRows = func(jobs []phaseJob, u0, u1 int) error {
		for _, jb := range jobs {
			err := k.phases[jb.i].rows(paths[jb.i], x, X, nonneg, jb.v0+jb.vn, u0, u1, func(o, u int, sums []int64) error {
				return jb.put(o, u, sums[jb.v0:])
			}, nil)
			if err != nil {
				return err
			}
		}
		return nil
	}
	if shared, release, ok := k.sharedRows(x, X, nonneg); ok {
		defer release()
		rows = shared
	}
	// A post that is one clamp goes into the rq rows themselves.
	var clamp *postStage
	if lo, hi, ok := k.post.clamp(); ok {
		clamp = &postStage{lo: lo, hi: hi}
	}
	// The row residues whose phases compute the same rows [u0, u1) go
	// together in one call of rows, each of its rows through all their
	// phases (bmshj2018's 5×5 stride-2 layers: the two residues' rows are
	// the same), so the packed input streams through the cache once, not
	// once a residue.
	type span struct{ u0, u1 int }
	var spans []span
	bySpan := map[span][]phaseJob{}
	// Only residues whose first output coordinate lies inside the output
	// have positions: one per first coordinate in [0, min(s, Ho)), so the
	// loops stay within the output's size whatever the stride.
	for fy := range min(sh, Ho) {
		ry := (fy + int(p.PH)) % sh
		y0, u0, u1 := phaseSpan(ry, sh, int(p.PH), Ho)
		// The phases of residue ry with columns to compute; every phase
		// of ry has th = ⌈(kh − ry)/sh⌉ taps a column, so one zh rows.
		var jobs []phaseJob
		zh := 0
		for fx := range min(sw, Wo) {
			rx := (fx + int(p.PW)) % sw
			x0, v0, v1 := phaseSpan(rx, sw, int(p.PW), Wo)
			if u0 >= u1 || v0 >= v1 {
				continue // no output position has this phase
			}
			c := k.phase(ry, rx)
			ph, zw := 0, 0 // Z_ρ's rows and columns
			var B int64    // ≥ every |Z_ρ| (convKernel doc)
			if c != nil {
				ph, zw = H+int(c.p.KH)-1, W+int(c.p.KW)-1
				B, _ = maxScaled(c.wsum, X)
			}
			if (u1 > ph || v1 > zw) && !zeroOK {
				return outside("conv_transpose")
			}
			// The offset of the output row of phase row u, and rq_o(0)
			// into its columns from x on.
			row := func(o, u int) int { return (o*Ho + y0 + (u-u0)*sh) * Wo }
			fill := func(at, o, x int) {
				if out.i8 != nil {
					for ; x < Wo; x += sw {
						out.i8[at+x] = zero8[o]
					}
					return
				}
				for ; x < Wo; x += sw {
					out.Data[at+x] = zero[o]
				}
			}
			// The columns of Z_ρ that are outputs, [v0, v0 + vn), are the
			// only ones computed; rq'd into every sw-th output column
			// from x0 (the folded post there too), then the columns past
			// Z_ρ.
			vn := max(0, min(v1, zw)-v0)
			scatter := func(o, u int, s []int64) error {
				at := row(o, u)
				if out.i8 != nil {
					s = s[:vn]
					if !rqRowStrided(&p.RQ, o, uint64(B), s, s, 1, clamp) {
						return outside("conv_transpose")
					}
					post := k.post
					if clamp != nil {
						post = nil // applied by the rq
					}
					if !storeRow(out.i8[at+x0:at+Wo], sw, s, post) {
						return lostNarrow("conv_transpose")
					}
				} else {
					dst := out.Data[at+x0 : at+Wo]
					if !rqRowStrided(&p.RQ, o, uint64(B), s[:vn], dst, sw, clamp) {
						return outside("conv_transpose")
					}
					if clamp == nil {
						k.post.strided(dst, vn, sw)
					}
				}
				fill(at, o, x0+vn*sw)
				return nil
			}
			// On the tiles' fused epilogue (conv_simd.go: the same rq,
			// clamp and narrowing as scatter's), a row arrives as bytes.
			var fs *fusedStore
			if out.i8 != nil && c != nil {
				if q := c.fusedTiles(uint64(B), k.post, false); q != nil {
					fs = &fusedStore{q: q, put8: func(o, u int, b []int8) error {
						at := row(o, u)
						dot.Spread8(out.i8[at+x0:], sw, b[:vn])
						fill(at, o, x0+vn*sw)
						return nil
					}}
				}
			}
			filled := u0 // rows from here on hold only rq_o(0)
			if m := min(u1, ph); u0 < m && vn > 0 {
				jobs = append(jobs, phaseJob{i: ry*k.nx + rx, v0: v0, vn: vn, put: scatter, fused: fs})
				zh, filled = ph, m
			}
			for u := filled; u < u1; u++ {
				for o := range cout {
					fill(row(o, u), o, x0)
				}
			}
		}
		if len(jobs) > 0 {
			sp := span{u0, min(u1, zh)}
			if bySpan[sp] == nil {
				spans = append(spans, sp)
			}
			bySpan[sp] = append(bySpan[sp], jobs...)
		}
	}
	for _, sp := range spans {
		if err := rows(bySpan[sp], sp.u0, sp.u1); err != nil {
			return err
		}
	}
	return nil
}

// gatherRange gives, for one output coordinate y, the kernel taps that reach
// it: i = first, first + stride, …, up to last (none when first > last),
// each reading input row u = (t − i) / stride with t = y + pad. These are
// the i ≤ k − 1 with i ≡ t mod stride, t − i ≥ 0 and (t − i) / stride < n.
func gatherRange(y, pad, stride, k, n int) (first, last, t int) {
	t = y + pad
	lo := max(0, t-stride*(n-1))
	return lo + (t-lo)%stride, min(k-1, t), t
}

// convTExact is the gather form term by term: each product exact by mul64,
// the sum in 128 bits with overflow checked.
func convTExact(k *convTKernel, x, out *tensor.T) error {
	p := k.p
	H, W := x.Shape.H, x.Shape.W
	kh, kw, cout, sh, sw := int(p.KH), int(p.KW), int(p.Cout), int(p.SH), int(p.SW)
	Ho, Wo := out.Shape.H, out.Shape.W
	for oy := range Ho {
		i0, i1, ty := gatherRange(oy, int(p.PH), sh, kh, H)
		for o := range cout {
			for ox := range Wo {
				j0, j1, tx := gatherRange(ox, int(p.PW), sw, kw, W)
				var s int128
				for ci := range k.cin {
					for i := i0; i <= i1; i += sh {
						wrow := p.W[((ci*cout+o)*kh+i)*kw:][:kw]
						xrow := x.Data[(ci*H+(ty-i)/sh)*W:][:W]
						for j := j0; j <= j1; j += sw {
							var ok bool
							if s, ok = s.add(mul64(wrow[j], xrow[(tx-j)/sw])); !ok {
								return outside("conv_transpose")
							}
						}
					}
				}
				y, ok := rqOf(&p.RQ, o, s)
				if !ok {
					return outside("conv_transpose")
				}
				out.Data[(o*Ho+oy)*Wo+ox] = y
			}
		}
	}
	k.post.row(out.Data)
	return nil
}
