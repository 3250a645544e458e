package importer

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// ftensor is a float64 activation [C, H, W].
type ftensor struct {
	c, h, w int
	d       []float64
}

func newF(c, h, w int) *ftensor { return &ftensor{c, h, w, make([]float64, c*h*w)} }

func (t *ftensor) plane(c int) []float64 { return t.d[c*t.h*t.w : (c+1)*t.h*t.w] }

// maxEvalElems caps each activation the evaluator forms (the graph's own
// cap, §3).
const maxEvalElems = 1 << 26

// evaluate runs the network in float64 on one input and returns every
// value (value 0 is the input). It is the importer's float reference: the
// ONNX graph's arithmetic, in float64, layer by layer.
func (n *network) evaluate(x *ftensor) ([]*ftensor, error) {
	return n.run(x, nil)
}

// run evaluates the network. With visit set, it hands each value to visit
// as it is made and drops it once its last reader has run, so that only
// the values still to be read are held; it then returns nil.
func (n *network) run(x *ftensor, visit func(v int, t *ftensor)) ([]*ftensor, error) {
	if x.c != n.channels[0] {
		return nil, fmt.Errorf("input of %d channels; the model reads %d", x.c, n.channels[0])
	}
	last := make([]int, len(n.channels)) // the last layer that reads each value
	for i, l := range n.layers {
		for _, v := range l.in {
			last[v] = i
		}
	}
	vals := make([]*ftensor, len(n.channels))
	vals[0] = x
	if visit != nil {
		visit(0, x)
	}
	for i := range n.layers {
		l := &n.layers[i]
		out, err := l.eval(vals)
		if err != nil {
			return nil, fmt.Errorf("node %s (%s): %w", l.node, l.op, err)
		}
		vals[l.out] = out
		if visit == nil {
			continue
		}
		visit(l.out, out)
		for _, v := range l.in {
			if last[v] == i {
				vals[v] = nil
			}
		}
	}
	if visit != nil {
		return nil, nil
	}
	return vals, nil
}

func (l *layer) eval(vals []*ftensor) (*ftensor, error) {
	x := vals[l.in[0]]
	switch l.kind {
	case kConv:
		return l.conv(x)
	case kConvT:
		return l.convT(x)
	case kRelu, kLeaky, kClip, kAffine:
		out := newF(x.c, x.h, x.w)
		hw := x.h * x.w
		for i, v := range x.d {
			switch l.kind {
			case kRelu:
				v = max(v, 0)
			case kLeaky:
				if v < 0 {
					v *= l.alpha
				}
			case kClip:
				v = min(max(v, l.lo), l.hi)
			case kAffine:
				c := min(i/hw, len(l.scale)-1)
				v = v*l.scale[c] + l.shift[c]
			}
			out.d[i] = v
		}
		return out, nil
	case kAdd:
		y := vals[l.in[1]]
		if y.h != x.h || y.w != x.w {
			return nil, fmt.Errorf("adds %d×%d to %d×%d", x.h, x.w, y.h, y.w)
		}
		out := newF(x.c, x.h, x.w)
		for i := range out.d {
			out.d[i] = x.d[i] + y.d[i]
		}
		return out, nil
	case kConcat:
		c := 0
		for _, id := range l.in {
			if v := vals[id]; v.h != x.h || v.w != x.w {
				return nil, fmt.Errorf("concatenates %d×%d with %d×%d", x.h, x.w, v.h, v.w)
			}
			c += vals[id].c
		}
		out := newF(c, x.h, x.w)
		o := 0
		for _, id := range l.in {
			o += copy(out.d[o:], vals[id].d)
		}
		return out, nil
	case kSplit:
		out := newF(l.count, x.h, x.w)
		copy(out.d, x.d[l.start*x.h*x.w:])
		return out, nil
	case kShuffle:
		// §5.10 pixel_shuffle: out[c][h·r + i][w·r + j] = in[c·r² + i·r + j][h][w].
		r := l.r
		out := newF(x.c/(r*r), x.h*r, x.w*r)
		for c := range out.c {
			for i := range r {
				for j := range r {
					src := x.plane(c*r*r + i*r + j)
					for h := range x.h {
						for w := range x.w {
							out.d[(c*out.h+h*r+i)*out.w+w*r+j] = src[h*x.w+w]
						}
					}
				}
			}
		}
		return out, nil
	case kUp2:
		out := newF(x.c, 2*x.h, 2*x.w)
		for c := range x.c {
			for y := range out.h {
				for w := range out.w {
					out.d[(c*out.h+y)*out.w+w] = x.d[(c*x.h+y/2)*x.w+w/2]
				}
			}
		}
		return out, nil
	case kIGDN:
		// y_i = x_i · √(β_i + Σ_j γ_ij·x_j²): the sums as one GEMM, γ·x².
		hw := x.h * x.w
		sq := make([]float64, len(x.d))
		for i, v := range x.d {
			sq[i] = v * v
		}
		out := newF(x.c, x.h, x.w)
		gemm(x.c, hw, x.c, l.gamma, x.c, sq, hw, out.d, hw)
		for i := range out.d {
			out.d[i] = x.d[i] * math.Sqrt(max(out.d[i]+l.beta[i/hw], 0))
		}
		return out, nil
	}
	return nil, fmt.Errorf("no float rule for %v", l.kind)
}

// parallel runs f(o) for o in [0, n) on every CPU.
func parallel(n int, f func(o int)) {
	var wg sync.WaitGroup
	next := make(chan int, n)
	for o := range n {
		next <- o
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for o := range next {
				f(o)
			}
		})
	}
	wg.Wait()
}

// gemmChunk bounds the columns of one GEMM, so that a layer's column
// buffer stays near 64 MiB whatever the picture's size.
const gemmChunk = 1 << 23

// conv is §5.2's sum in float64, plus the bias: for groups 1 an im2col
// GEMM (gemm.go) over chunks of output positions, otherwise the direct sum.
func (l *layer) conv(x *ftensor) (*ftensor, error) {
	ho := (x.h+2*l.ph-l.kh)/l.sh + 1
	wo := (x.w+2*l.pw-l.kw)/l.sw + 1
	if x.h+2*l.ph < l.kh || x.w+2*l.pw < l.kw || int64(l.cout)*int64(ho)*int64(wo) > maxEvalElems {
		return nil, fmt.Errorf("a %d×%d input does not fit this conv", x.h, x.w)
	}
	out := newF(l.cout, ho, wo)
	if l.groups == 1 {
		l.convGEMM(x, out)
	} else {
		l.convDirect(x, out)
	}
	if l.b != nil {
		for o := range l.cout {
			for i, p := 0, out.plane(o); i < len(p); i++ {
				p[i] += l.b[o]
			}
		}
	}
	return out, nil
}

func (l *layer) convGEMM(x, out *ftensor) {
	k := x.c * l.kh * l.kw
	n := out.h * out.w
	nb := max(1, min(n, gemmChunk/k))
	cols := make([]float64, k*nb)
	for p0 := 0; p0 < n; p0 += nb {
		m := min(nb, n-p0)
		// cols[(ci·kh + i)·kw + j][p] = X̃[ci][y·sh + i − ph][x·sw + j − pw].
		parallel(x.c, func(ci int) {
			src := x.plane(ci)
			for i := range l.kh {
				for j := range l.kw {
					row := cols[((ci*l.kh+i)*l.kw+j)*m:][:m]
					for q := range m {
						y, xo := (p0+q)/out.w, (p0+q)%out.w
						sy, sx := y*l.sh+i-l.ph, xo*l.sw+j-l.pw
						if sy >= 0 && sy < x.h && sx >= 0 && sx < x.w {
							row[q] = src[sy*x.w+sx]
						} else {
							row[q] = 0
						}
					}
				}
			}
		})
		gemm(l.cout, m, k, l.w, k, cols[:k*m], m, out.d[p0:], n)
	}
}

func (l *layer) convDirect(x, out *ftensor) {
	ho, wo := out.h, out.w
	cg, og := x.c/l.groups, l.cout/l.groups
	parallel(l.cout, func(o int) {
		dst := out.plane(o)
		for ci := range cg {
			src := x.plane(o/og*cg + ci)
			for i := range l.kh {
				for j := range l.kw {
					w := l.w[((o*cg+ci)*l.kh+i)*l.kw+j]
					if w == 0 {
						continue
					}
					for y := range ho {
						sy := y*l.sh + i - l.ph
						if sy < 0 || sy >= x.h {
							continue
						}
						row, drow := src[sy*x.w:(sy+1)*x.w], dst[y*wo:(y+1)*wo]
						for xo := range wo {
							if sx := xo*l.sw + j - l.pw; sx >= 0 && sx < x.w {
								drow[xo] += w * row[sx]
							}
						}
					}
				}
			}
		}
	})
}

// convT is §5.3's sum in its scatter form, in float64, plus the bias: a
// GEMM gives every tap's product plane, Wᵀ·X over chunks of input
// positions, and each is added into the output at its offset (col2im).
func (l *layer) convT(x *ftensor) (*ftensor, error) {
	ho := (x.h-1)*l.sh + l.kh + l.oph - 2*l.ph
	wo := (x.w-1)*l.sw + l.kw + l.opw - 2*l.pw
	if ho < 1 || wo < 1 || int64(l.cout)*int64(ho)*int64(wo) > maxEvalElems {
		return nil, fmt.Errorf("a %d×%d input does not fit this conv_transpose", x.h, x.w)
	}
	out := newF(l.cout, ho, wo)
	taps := l.kh * l.kw
	mrows := l.cout * taps
	n := x.h * x.w
	nb := max(1, min(n, gemmChunk/mrows))
	cols := make([]float64, mrows*nb)
	// Wᵀ: the weights [cin][cout·taps] as [cout·taps][cin], gemm's A.
	wt := make([]float64, len(l.w))
	for ci := range x.c {
		for r, v := range l.w[ci*mrows:][:mrows] {
			wt[r*x.c+ci] = v
		}
	}
	for p0 := 0; p0 < n; p0 += nb {
		m := min(nb, n-p0)
		gemm(mrows, m, x.c, wt, x.c, x.d[p0:], n, cols[:mrows*m], m)
		parallel(l.cout, func(o int) {
			dst := out.plane(o)
			for t := range taps {
				i, j := t/l.kw, t%l.kw
				row := cols[(o*taps+t)*m:][:m]
				// The chunk's positions, input row by input row: those of
				// row u from column w take output row u·sh + i − ph.
				u, w := p0/x.w, p0%x.w
				for q := 0; q < m; u, w = u+1, 0 {
					run := min(m-q, x.w-w)
					if y := u*l.sh + i - l.ph; y >= 0 && y < ho {
						drow := dst[y*wo:][:wo]
						for e, v := range row[q : q+run] {
							if xo := (w+e)*l.sw + j - l.pw; xo >= 0 && xo < wo {
								drow[xo] += v
							}
						}
					}
					q += run
				}
			}
		})
	}
	if l.b != nil {
		for o := range l.cout {
			for i, p := 0, out.plane(o); i < len(p); i++ {
				p[i] += l.b[o]
			}
		}
	}
	return out, nil
}
