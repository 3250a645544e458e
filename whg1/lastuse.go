package whg1

// Drops lists, for each operator i, the tensors a decode may let go of once
// operator i has run: those that operator i is the last to produce or read
// (an operator reads only tensors made before it, §10.3) and that no graph
// output names. A graph input no operator reads is in no list. Every fabric
// frees its tensors by this one list.
func (g *Graph) Drops() [][]uint32 {
	last := make([]int, len(g.Tensors))
	for t := range last {
		last[t] = -1
	}
	for i, op := range g.Ops {
		for _, t := range op.Out {
			last[t] = i
		}
		for _, t := range op.In {
			last[t] = i
		}
	}
	for _, t := range g.Outputs {
		last[t] = len(g.Ops)
	}
	drop := make([][]uint32, len(g.Ops))
	for t, i := range last {
		if i >= 0 && i < len(g.Ops) {
			drop[i] = append(drop[i], uint32(t))
		}
	}
	return drop
}
