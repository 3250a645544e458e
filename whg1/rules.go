package whg1

import "strconv"

// producer values for a tensor in checkGraphRules.
const (
	undefined = -2
	graphIn   = -1
)

// checkGraphRules checks the graph rules and state rules of §10.3.
func (g *Graph) checkGraphRules() error {
	prod := make([]int, len(g.Tensors))
	for t := range prod {
		prod[t] = undefined
	}
	for i, in := range g.Inputs {
		if prod[in.Tensor] != undefined {
			return bad("input %d: tensor %d is already graph input", i, in.Tensor)
		}
		prod[in.Tensor] = graphIn
	}
	for i, op := range g.Ops {
		// §10.3: an operator reads only graph inputs and the outputs of
		// earlier operators.
		for _, t := range op.In {
			if prod[t] == undefined {
				return bad("op %d (%s): reads tensor %d, which is neither a graph input nor an earlier operator's output", i, op.Code, t)
			}
		}
		for _, t := range op.Out {
			switch {
			case prod[t] == graphIn:
				// §10.3: no graph input is an operator's output.
				return bad("op %d (%s): writes tensor %d, a graph input", i, op.Code, t)
			case prod[t] != undefined:
				// §10.3: the output of exactly one operator.
				return bad("op %d (%s): writes tensor %d, already written by op %d", i, op.Code, t, prod[t])
			}
			prod[t] = i
		}
	}
	// §10.3: every tensor is a graph input or an operator's output, so every
	// graph output is defined.
	for t, p := range prod {
		if p == undefined {
			return bad("tensor %d is neither a graph input nor an operator's output", t)
		}
	}
	for i, in := range g.Inputs {
		// §3, §10.3: a graph input's policy is check or clamp.
		if g.Tensors[in.Tensor].Policy == Derived {
			return bad("input %d: tensor %d has policy derived; a graph input is check or clamp", i, in.Tensor)
		}
	}
	if g.Inputs[0].Kind != DataInput {
		return bad("input 0 is a state input; §10.3 requires data")
	}
	for i, in := range g.Inputs {
		if in.Kind != StateInput {
			continue
		}
		// §10.3 state rules.
		if in.Src >= uint32(len(g.Outputs)) {
			return bad("input %d: state src %d is not below n_outputs %d", i, in.Src, len(g.Outputs))
		}
		rec := g.Tensors[in.Tensor]
		if src := g.Tensors[g.Outputs[in.Src]]; src.Channels != rec.Channels {
			return bad("input %d: state has %d channels; output %d (tensor %d) has %d", i, rec.Channels, in.Src, g.Outputs[in.Src], src.Channels)
		}
		if in.Init < rec.Lo || in.Init > rec.Hi {
			return bad("input %d: init %d is outside the state's range [%d, %d]", i, in.Init, rec.Lo, rec.Hi)
		}
	}
	return nil
}

// checkExponents checks the exponent rules of §3 and §5.6's second bullet.
func (g *Graph) checkExponents() error {
	for i, op := range g.Ops {
		switch op.Code {
		case OpAdd, OpConcat, OpChunkAdd:
			// §3: none of the inputs and output declares an exponent, or all
			// do and all are equal.
			ts := append(append([]uint32{}, op.In...), op.Out...)
			e0 := g.Tensors[ts[0]].Exponent
			for _, t := range ts[1:] {
				if e := g.Tensors[t].Exponent; e != e0 {
					return bad("op %d (%s): tensor %d has exponent %s and tensor %d has %s; they must be equal or all none",
						i, op.Code, ts[0], expString(e0), t, expString(e))
				}
			}
		case OpLut16:
			// §5.6: e_in and e_out match the input's and output's exponents.
			l := op.Params.(*Lut16)
			if e := g.Tensors[op.In[0]].Exponent; e != l.EIn {
				return bad("op %d (lut16): e_in %s but the input tensor %d has exponent %s", i, expString(l.EIn), op.In[0], expString(e))
			}
			if e := g.Tensors[op.Out[0]].Exponent; e != l.EOut {
				return bad("op %d (lut16): e_out %s but the output tensor %d has exponent %s", i, expString(l.EOut), op.Out[0], expString(e))
			}
		}
	}
	return nil
}

func expString(e int8) string {
	if e == NoExponent {
		return "none"
	}
	return strconv.Itoa(int(e))
}
