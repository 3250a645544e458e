package cpuref

// phaseJob is phase i's columns [v0, v0 + vn), whose rows of exact sums,
// the sum of column v0 first, go to put, or, for the tiles fused names,
// whose rows of bytes go to its put8 (on the shared packing only).
type phaseJob struct {
	i, v0, vn int
	put       rowSink
	fused     *fusedStore
}

// phaseRows computes rows [u0, u1) of each job's phase, phases whose rows
// are the same (one row residue's, or several residues' whose spans agree).
type phaseRows func(jobs []phaseJob, u0, u1 int) error

// sharedRows runs every phase of conv_transpose on one packing of x for
// cpuref/dot (§9.3: the phases read the same input), where each phase's
// operands take the same form: u8 × i8 when chunk8 accepts every phase,
// else int16 pairs when chunk16 does. Each phase keeps its own chunk, from
// its own sub-kernel's weights (§6: its partial sums are a subset of the
// operator's terms). ok is false, with nothing packed, when some phase
// takes neither form or the input does not pack; release returns the
// packing to its pool once the caller is done with rows.
func (k *convTKernel) sharedRows(x val, X uint64, nonneg bool) (rows phaseRows, release func(), ok bool) {
	if len(k.phases) == 0 {
		return nil, nil, false
	}
	chunks := make([]int, len(k.phases))
	every := func(choose func(c *convKernel) (int, bool)) bool {
		for i, c := range k.phases {
			if chunks[i], ok = choose(c); !ok {
				return false
			}
		}
		return true
	}
	if every(func(c *convKernel) (int, bool) { return c.chunk8(X, nonneg) }) {
		return phasesOn(k, form8, func(c *convKernel) *laneWeights { return c.w16.quads }, x, chunks)
	}
	if every(func(c *convKernel) (int, bool) { return c.chunk16(X) }) {
		return phasesOn(k, form16, func(c *convKernel) *laneWeights { return &c.w16.pairs }, x, chunks)
	}
	return nil, nil, false
}

// phasesOn packs x once in form f in the layout of phase (0, 0), which has
// the most taps each way (th0 = ⌈kh/sh⌉ ≥ ⌈(kh − ρy)/sh⌉, likewise tw0):
// padding (th0 − 1, tw0 − 1) and rows of n = W + tw0 + 6 rounded up to
// dot.Block columns. A phase of th × tw taps has padding (th − 1, tw − 1),
// so its tap (a, b) for column v0 + m reads the shared copy th0 − th rows
// and tw0 − tw + v0 columns further on (groupTaps). Its output rows
// u < H + th − 1 read padded rows up to
// H + th − 2 + (th − 1) + (th0 − th) < H + 2(th0 − 1). Its columns
// v0 + m, m < vn' = vn rounded up to dot.Block, with v0 + vn ≤ W + tw − 1,
// read padded columns up to vn' − 1 + (tw − 1) + (tw0 − tw) + v0
// ≤ v0 + vn + 7 + tw0 − 2 ≤ W + tw0 + 4 < tw0 − 1 + n, the copy's width:
// every read stays inside the copy.
func phasesOn[E int16 | uint8](k *convTKernel, f *laneForm[E], lw func(c *convKernel) *laneWeights, x val, chunks []int) (phaseRows, func(), bool) {
	th0, tw0 := int(k.phases[0].p.KH), int(k.phases[0].p.KW)
	pk, ok := packVal(f, x, padGeom{kw: tw0, sw: 1, ph: th0 - 1, pw: tw0 - 1}, x.Shape.W+tw0+6)
	if !ok {
		return nil, nil, false
	}
	rows := func(jobs []phaseJob, u0, u1 int) error {
		sj := make([]simdJob, len(jobs))
		for j, jb := range jobs {
			c := k.phases[jb.i]
			taps := groupTaps(c, f, pk, th0-int(c.p.KH), tw0-int(c.p.KW)+jb.v0)
			sj[j] = simdJob{k: c, lw: lw(c), taps: taps, chunk: chunks[jb.i], wo: jb.vn, put: jb.put, fused: jb.fused}
		}
		return simdPacked(f, pk, sj, u0, u1)
	}
	return rows, func() { f.pool.Put(&pk.data) }, true
}
