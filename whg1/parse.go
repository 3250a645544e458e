package whg1

import (
	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/refusal"
)

// The sizes of the fixed records of §10.1 and §10.2.
const (
	headerSize    = 32
	scalarRecSize = 16
	inputRecSize  = 32
	outputRecSize = 4
	tensorRecSize = 24
	opRecMin      = 8 // u8 opcode, n_in, n_out, reserved; u32 plen
	cap26         = 1 << 26
)

var magic = [4]byte{'W', 'H', 'G', '1'}

// rawOp is one operator record located by the length walk of step 3.
type rawOp struct {
	code, nIn, nOut, res uint8
	idx                  []byte // u32 in[n_in], u32 out[n_out]
	params               []byte
}

func bad(format string, args ...any) error {
	return refusal.New(refusal.ModelMismatch, format, args...)
}

// Parse reads a WHG1 file (§10) and runs the load checks of §10.5 steps 1–7
// in the spec's order. Every refusal is a *refusal.Error: model_mismatch, or
// too_large for a size past a cap. Nothing larger than the file itself is
// allocated before the plan, and the plan allocates nothing per element.
// Step 8 (the bounds pass) belongs to the certifier.
func Parse(b []byte) (*Graph, error) {
	tally.Parses.Add(1)
	// §10.5 step 1: the magic, version and operator set.
	if len(b) < headerSize {
		return nil, bad("file of %d bytes is shorter than the %d-byte header", len(b), headerSize)
	}
	if [4]byte(b[0:4]) != magic {
		return nil, bad("magic %q is not WHG1", b[0:4])
	}
	if b[4] != 1 {
		return nil, bad("version %d is not 1", b[4])
	}
	if b[5] != 1 {
		return nil, bad("operator set %d is not 1 (wai-ops/1)", b[5])
	}
	// §10.5 step 2: the reserved fields of the header (§10.1). A record's
	// reserved fields are checked with its record (step 4) and a parameter
	// block's with its parameters (step 5): their places are known only
	// once the counts have been checked against the length.
	for _, f := range [][2]int{{6, 2}, {22, 2}, {28, 4}} {
		r := reader{b: b, off: f[0]}
		if !r.zero(f[1]) {
			return nil, bad("header: reserved field at offset %d is not zero", f[0])
		}
	}
	hr := reader{b: b, off: 8}
	nTensors, nOps := hr.u32(), hr.u32()
	nInputs, nOutputs, nScalars := hr.u16(), hr.u16(), hr.u16()
	hr.u16()
	maxElems := hr.u32()

	// §10.5 step 3: the counts against the file's length (§10.1 rules on
	// the counts first). Every size is formed in 64 bits with overflow
	// checked, and nothing is allocated until it is known to lie in the file.
	switch {
	case nTensors < 1:
		return nil, bad("header: n_tensors is 0")
	case nOps < 1:
		return nil, bad("header: n_ops is 0")
	case nInputs < 1:
		return nil, bad("header: n_inputs is 0")
	case nOutputs < 1:
		return nil, bad("header: n_outputs is 0")
	case maxElems < 1 || maxElems > cap26:
		return nil, bad("header: max_elems %d is outside 1..=2^26", maxElems)
	}
	fixed := sz(headerSize).
		addSize(sz(uint64(nScalars)).mul(scalarRecSize)).
		addSize(sz(uint64(nInputs)).mul(inputRecSize)).
		addSize(sz(uint64(nOutputs)).mul(outputRecSize)).
		addSize(sz(uint64(nTensors)).mul(tensorRecSize))
	if !fixed.within(uint64(len(b))) {
		return nil, bad("the tables of %d scalars, %d inputs, %d outputs and %d tensors need %d bytes; the file has %d",
			nScalars, nInputs, nOutputs, nTensors, fixed.n, len(b))
	}
	left := uint64(len(b)) - fixed.n
	if !sz(uint64(nOps)).mul(opRecMin).within(left) {
		return nil, bad("%d operators need at least %d bytes; %d are left after the tables", nOps, uint64(nOps)*opRecMin, left)
	}
	raws := make([]rawOp, nOps)
	r := reader{b: b, off: int(fixed.n)}
	for i := range raws {
		rest := uint64(len(b) - r.off)
		if rest < 4 {
			return nil, bad("op %d: record starts %d bytes before the end of the file", i, rest)
		}
		o := &raws[i]
		o.code, o.nIn, o.nOut, o.res = r.u8(), r.u8(), r.u8(), r.u8()
		idx := (uint64(o.nIn) + uint64(o.nOut)) * 4
		if idx+4 > rest-4 {
			return nil, bad("op %d: %d tensor indices and plen pass the end of the file", i, int(o.nIn)+int(o.nOut))
		}
		o.idx = r.take(int(idx))
		plen := uint64(r.u32())
		if plen > uint64(len(b)-r.off) {
			return nil, bad("op %d: plen %d passes the end of the file (%d bytes left)", i, plen, len(b)-r.off)
		}
		o.params = r.take(int(plen))
	}
	if r.off != len(b) {
		return nil, bad("%d bytes follow the last operator", len(b)-r.off)
	}

	g := &Graph{Version: 1, OpSet: 1, MaxElems: maxElems}
	// §10.5 step 4: each table's records (§10.2).
	if err := g.readTables(b[headerSize:fixed.n], int(nScalars), int(nInputs), int(nOutputs), int(nTensors)); err != nil {
		return nil, err
	}
	if err := g.readOpRecords(raws); err != nil {
		return nil, err
	}
	// §10.5 step 5: each operator's opcode, arity, parameter length and
	// parameter ranges.
	for i := range raws {
		if err := g.readOp(i, &raws[i]); err != nil {
			return nil, err
		}
	}
	// §10.5 step 6: graph rules, state rules and exponent rules.
	if err := g.checkGraphRules(); err != nil {
		return nil, err
	}
	if err := g.checkExponents(); err != nil {
		return nil, err
	}
	// §10.5 step 7: the plan.
	if err := g.planLoad(); err != nil {
		return nil, err
	}
	return g, nil
}

// readTables reads and checks the scalar, input, output and tensor tables
// (§10.2) in file order.
func (g *Graph) readTables(b []byte, nScalars, nInputs, nOutputs, nTensors int) error {
	r := reader{b: b}
	g.Scalars = make([]Scalar, nScalars)
	for i := range g.Scalars {
		s := Scalar{Lo: r.i64(), Hi: r.i64()}
		if s.Lo > s.Hi {
			return bad("scalar %d: lo %d > hi %d", i, s.Lo, s.Hi)
		}
		g.Scalars[i] = s
	}
	g.Inputs = make([]Input, nInputs)
	for i := range g.Inputs {
		in := Input{Tensor: r.u32(), MaxH: r.u32(), MaxW: r.u32()}
		kind := r.u8()
		res1 := r.zero(3)
		in.Src = r.u32()
		res2 := r.zero(4)
		in.Init = r.i64()
		switch {
		case in.Tensor >= uint32(nTensors):
			return bad("input %d: tensor %d is not below n_tensors %d", i, in.Tensor, nTensors)
		case (in.MaxH == 0) != (in.MaxW == 0):
			return bad("input %d: max_h %d and max_w %d must both be 0 or both be at least 1", i, in.MaxH, in.MaxW)
		case i > 0 && (in.MaxH == 0) != (g.Inputs[0].MaxH == 0):
			return bad("input %d: declares its sizes and input 0 does not, or the reverse; every input declares them or none does", i)
		case kind > 1:
			return bad("input %d: kind %d is neither 0 (data) nor 1 (state)", i, kind)
		case !res1 || !res2:
			return bad("input %d: reserved field is not zero", i)
		}
		in.Kind = InputKind(kind)
		// docs/READINGS.md D-E: a data input's src and init are 0.
		if in.Kind == DataInput && (in.Src != 0 || in.Init != 0) {
			return bad("input %d: data input has src %d and init %d; both must be 0", i, in.Src, in.Init)
		}
		g.Inputs[i] = in
	}
	g.Outputs = make([]uint32, nOutputs)
	for i := range g.Outputs {
		t := r.u32()
		if t >= uint32(nTensors) {
			return bad("output %d: tensor %d is not below n_tensors %d", i, t, nTensors)
		}
		g.Outputs[i] = t
	}
	g.Tensors = make([]Tensor, nTensors)
	for i := range g.Tensors {
		t := Tensor{Channels: r.u32(), Exponent: int8(r.u8())}
		pol := r.u8()
		res := r.zero(2)
		t.Lo, t.Hi = r.i64(), r.i64()
		switch {
		case t.Channels < 1:
			return bad("tensor %d: channels is 0", i)
		case pol > 2:
			return bad("tensor %d: policy %d is not 0 (derived), 1 (clamp) or 2 (check)", i, pol)
		case !res:
			return bad("tensor %d: reserved field is not zero", i)
		case pol == 0 && (t.Lo != 0 || t.Hi != 0):
			return bad("tensor %d: derived with lo %d and hi %d; both must be 0", i, t.Lo, t.Hi)
		case t.Lo > t.Hi:
			return bad("tensor %d: lo %d > hi %d", i, t.Lo, t.Hi)
		}
		t.Policy = Policy(pol)
		g.Tensors[i] = t
	}
	return nil
}

// readOpRecords reads each operator record's reserved byte and tensor
// indices (§10.2); the opcode and arity are step 5's.
func (g *Graph) readOpRecords(raws []rawOp) error {
	g.Ops = make([]Op, len(raws))
	for i := range raws {
		o := &raws[i]
		if o.res != 0 {
			return bad("op %d: reserved byte is %d, not 0", i, o.res)
		}
		r := reader{b: o.idx}
		op := Op{Code: Opcode(o.code), In: make([]uint32, o.nIn), Out: make([]uint32, o.nOut)}
		for _, list := range [][]uint32{op.In, op.Out} {
			for j := range list {
				list[j] = r.u32()
				if list[j] >= uint32(len(g.Tensors)) {
					return bad("op %d: tensor %d is not below n_tensors %d", i, list[j], len(g.Tensors))
				}
			}
		}
		g.Ops[i] = op
	}
	return nil
}

// readOp checks operator i's opcode and arity (§5's table, §10.3) and reads
// its parameters (§10.4).
func (g *Graph) readOp(i int, o *rawOp) error {
	op := &g.Ops[i]
	info, ok := opTable[op.Code]
	if !ok {
		return bad("op %d: opcode 0x%02X is not a wai-ops/1 operator", i, o.code)
	}
	wantIn := info.nIn
	if wantIn < 0 {
		if o.nIn < 2 {
			return bad("op %d (%s): n_in %d; concat takes at least 2 inputs", i, op.Code, o.nIn)
		}
		wantIn = int(o.nIn)
	}
	if int(o.nIn) != wantIn || int(o.nOut) != info.nOut {
		return bad("op %d (%s): n_in %d, n_out %d; the operator takes %d → %d", i, op.Code, o.nIn, o.nOut, wantIn, info.nOut)
	}
	p, err := g.parseParams(op, o.params)
	if err != nil {
		return bad("op %d (%s): %v", i, op.Code, err)
	}
	op.Params = p
	return nil
}
