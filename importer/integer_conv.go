package importer

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/whg1"
)

// imageOut reports whether value v is a 3-channel graph output that nothing
// else reads: its producer's rq then writes 8-bit samples directly.
func (e *emitter) imageOut(v int) bool {
	if e.net.channels[v] != 3 || e.uses[v] != 1 {
		return false
	}
	for _, o := range e.net.outputs {
		if o == v {
			return true
		}
	}
	return false
}

// accLimit is the magnitude every accumulator must stay within: i32 under
// acc32 (§7.1 class acc), and a margin below i64 under acc64.
func (e *emitter) accLimit() int64 {
	if e.acc32 {
		return acc32Limit
	}
	return 1 << 62
}

// conv integerises a conv or conv_transpose (§5.2, §5.3). Weights take one
// scale per output channel, max|w[o]|/Qw, raised until the channel's
// partial-sum interval A(K, b) (§8.2), over the input's integer range and
// for conv_transpose over each residue's taps, fits the profile's
// accumulator (acc32: i32). The bias is a pre bias in accumulator units;
// the rq's per-channel multipliers and one shift take the accumulator to
// the output's scale.
func (e *emitter) conv(l *layer, x qvalue, info *LayerInfo) error {
	cout := l.cout
	per := len(l.w) / cout // taps of one output channel
	// tap k of channel o: its weight index and its residue class.
	index := func(o, k int) (int, int) {
		if l.kind == kConv {
			return o*per + k, 0
		}
		ci, ij := k/(l.kh*l.kw), k%(l.kh*l.kw)
		i, j := ij/l.kw, ij%l.kw
		return ((ci*cout+o)*l.kh+i)*l.kw + j, (i%l.sh)*l.sw + j%l.sw
	}
	residues := 1
	if l.kind == kConvT {
		residues = l.sh * l.sw
	}
	s := e.outScale(l.out)
	lo, hi := -e.qa, e.qa
	if e.imageOut(l.out) {
		s, lo, hi = 1.0/255, 0, 255
	}
	wint := make([]int64, len(l.w))
	bias := make([]int64, cout)
	ratio := make([]float64, cout)
	info.WScaleLo = math.Inf(1)
	limit := e.accLimit()
	for o := range cout {
		m := 0.0
		for k := range per {
			wi, _ := index(o, k)
			m = max(m, math.Abs(l.w[wi]))
		}
		sw := m / float64(e.qw)
		if sw == 0 {
			sw = 1
		}
		// An input whose ints fall short by off on average (igdn's floor)
		// reads as x + off: the bias takes off·Σw, over the taps one
		// output position reads (one residue of conv_transpose's).
		breal := 0.0
		if l.b != nil {
			breal = l.b[o]
		}
		if x.off != 0 {
			sum := 0.0
			for k := range per {
				wi, _ := index(o, k)
				sum += l.w[wi]
			}
			breal += x.off * x.s * sum / float64(residues)
		}
		for try := 0; ; try++ {
			b := int64(math.Round(breal / (x.s * sw)))
			pos, neg := make([]int64, residues), make([]int64, residues)
			for k := range per {
				wi, rho := index(o, k)
				w := int64(math.Round(l.w[wi] / sw))
				wint[wi] = w
				// §8.2: each term adds min(0, ·) below and max(0, ·) above.
				t1, t2 := w*x.lo, w*x.hi
				neg[rho] += min(0, t1, t2)
				pos[rho] += max(0, t1, t2)
			}
			worst := int64(0)
			for rho := range residues {
				worst = max(worst, max(0, b)+pos[rho], -(min(0, b) + neg[rho]))
			}
			if worst <= limit {
				bias[o] = b
				break
			}
			if try == 64 {
				return fmt.Errorf("output channel %d: no weight scale keeps its accumulator within %d", o, limit)
			}
			if try == 0 {
				info.Raised++
			}
			sw *= float64(worst)/float64(limit)*1.001 + 1e-9
		}
		info.WScaleLo, info.WScaleHi = min(info.WScaleLo, sw), max(info.WScaleHi, sw)
		ratio[o] = x.s * sw / s
	}
	rq := rqOf(ratio, bias, false)
	info.Shift = uint32(rq.Shift[0])
	wb := whg1.WidthFor(wint, 1, 2, 4, 8)
	var t uint32
	if l.kind == kConv {
		t = e.op(whg1.OpConv, &whg1.Conv{Cout: uint32(cout), KH: uint32(l.kh), KW: uint32(l.kw), SH: uint32(l.sh), SW: uint32(l.sw),
			PH: uint32(l.ph), PW: uint32(l.pw), Groups: uint32(l.groups), WBytes: wb, RQ: rq, W: wint}, cout, x.t)
	} else {
		t = e.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: uint32(cout), KH: uint32(l.kh), KW: uint32(l.kw), SH: uint32(l.sh), SW: uint32(l.sw),
			PH: uint32(l.ph), PW: uint32(l.pw), OPH: uint32(l.oph), OPW: uint32(l.opw), WBytes: wb, RQ: rq, W: wint}, cout, x.t)
	}
	e.clampPolicy(t, lo, hi)
	e.q[l.out] = qvalue{s: s, lo: lo, hi: hi, t: t, image: hi == 255 && lo == 0 && s == 1.0/255}
	return nil
}

// igdn integerises y_i = x_i·√(β_i + Σ_j γ_ij·x_j²) as §5.7's igdn. With
// x = s_x·X and a norm scale K, N_i = K²·(β_i + Σ_j γ_ij·s_x²·X_j²) is
// β_int + Σ_j ⌊γ_int·X_j² / 2^gf⌋ with β_int = round(K²·β_i) and γ_int =
// round(K²·s_x²·γ_ij·2^gf); r_i = isqrt(N_i) ≈ K·√(…), so the output
// ⌊X_i·r_i / 2^frac⌋ has scale s_x·2^frac / K. K is the largest that keeps
// every N_i (and so every igdn.term and igdn.N, class wide) within the
// accumulator over the input's range, lowered by at most half so that
// s_x·2^frac / K is the output's calibrated scale; gf the largest (at most
// 63) that keeps every γ_int within i32 (§7.2 igdn.gamma), or i16 for an
// i8 input.
func (e *emitter) igdn(l *layer, x qvalue, info *LayerInfo) error {
	c := e.net.channels[l.in[0]]
	X := float64(max(-x.lo, x.hi))
	if X*X > float64(acc32Limit) && e.acc32 {
		return fmt.Errorf("an input range of ±%v: x² passes i32 (igdn.x2, §7.1)", X)
	}
	// The largest real norm over the input's range, row by row, with room
	// for the C floored terms.
	worst := 0.0
	for i := range c {
		n := math.Max(l.beta[i], 0)
		for j := range c {
			n += math.Max(l.gamma[i*c+j], 0) * x.s * x.s * X * X
		}
		worst = max(worst, n)
	}
	limit := float64(e.accLimit()) - float64(c) - 1
	if worst == 0 {
		return fmt.Errorf("β and γ are all 0")
	}
	K := math.Sqrt(limit/worst) * 0.999
	// xr = x·r, class wide, within the accumulator too.
	K = min(K, float64(e.accLimit())/math.Max(X, 1)/math.Sqrt(worst)*0.999)
	// frac and K together put the output at its calibrated scale
	// s = s_x·2^frac / K: frac the largest that leaves K at or below the
	// largest K the accumulator allows.
	frac := 0
	if target := e.outScale(l.out); e.r[l.out] > 0 {
		frac = min(max(int(math.Floor(math.Log2(K*target/x.s))), 0), 63)
		K = min(K, x.s*math.Ldexp(1, frac)/target)
	}
	gmax := 0.0
	for _, g := range l.gamma {
		gmax = max(gmax, math.Abs(g))
	}
	// γ's width: i32 (§7.2 igdn.gamma), or i16 where the input fits i8
	// and γ fits at some gf ≥ 0, which keeps every term in cpuref's 16-
	// and 32-bit igdn kernels (a 15-bit γ is finer than the i8 input it
	// weighs).
	gfFor := func(lim float64) int {
		if gmax == 0 {
			return 63
		}
		return min(63, int(math.Floor(math.Log2(lim/(gmax*K*K*x.s*x.s)))))
	}
	gf := gfFor(float64(acc32Limit))
	if g16 := gfFor(math.MaxInt16); X <= 127 && g16 >= 0 {
		// At most 16, where γ·2^(16−gf) fits i16 and cpuref sums the
		// terms in 16-bit lanes.
		gf = min(g16, 16)
	}
	if gf < 0 {
		return fmt.Errorf("γ scaled to the norm does not fit i32 at gf 0")
	}
	gamma := make([]int64, c*c)
	for k, g := range l.gamma {
		gamma[k] = int64(math.Round(g * K * K * x.s * x.s * math.Ldexp(1, gf)))
	}
	beta := make([]int64, c)
	for i, b := range l.beta {
		beta[i] = int64(math.Round(b * K * K))
	}
	s := x.s * math.Ldexp(1, frac) / K
	t := e.op(whg1.OpIGDN, &whg1.IGDN{GF: uint32(gf), Frac: uint32(frac), GBytes: whg1.WidthFor(gamma, 4, 8), Gamma: gamma, Beta: beta}, c, x.t)
	e.clampPolicy(t, -e.qa, e.qa)
	e.q[l.out] = qvalue{s: s, lo: -e.qa, hi: e.qa, t: t, off: 0.5}
	info.GF, info.Frac = uint32(gf), uint32(frac)
	return nil
}
