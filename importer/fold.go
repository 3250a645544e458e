package importer

import (
	"math"
	"slices"

	"github.com/waiops/waiops/onnx"
)

// fold evaluates a node whose inputs are all constants: torch.onnx.export
// leaves some of a GDN's parametrisation (β and γ from their stored
// parameters: a bound, a square, a pedestal, a reshape) as such nodes when
// constant folding is off. Only the ops such a chain uses fold.
func fold(n *onnx.Node, mt *matcher) (*constant, error) {
	arg := func(k int) *constant {
		if k >= len(n.Inputs) || n.Inputs[k] == "" {
			return nil
		}
		return mt.syms[n.Inputs[k]].c
	}
	a := arg(0)
	switch n.OpType {
	case "Identity", "Cast":
		return a, nil
	case "Sqrt", "Neg":
		out := &constant{dims: a.dims, f: make([]float64, a.len())}
		for i, v := range a.f {
			if n.OpType == "Sqrt" {
				out.f[i] = math.Sqrt(v)
			} else {
				out.f[i] = -v
			}
		}
		return out, nil
	case "Max", "Min", "Pow", "Sub", "Add", "Mul", "Div":
		b := arg(1)
		if b == nil {
			return nil, refuse(n, "needs two inputs")
		}
		if a.len() != b.len() && a.len() != 1 && b.len() != 1 {
			return nil, refuse(n, "constants of dims %v and %v: the importer folds equal shapes or a scalar", a.dims, b.dims)
		}
		dims := a.dims
		if a.len() < b.len() {
			dims = b.dims
		}
		out := &constant{dims: dims, f: make([]float64, max(a.len(), b.len()))}
		for i := range out.f {
			x, y := a.f[min(i, a.len()-1)], b.f[min(i, b.len()-1)]
			out.f[i] = map[string]func(x, y float64) float64{
				"Max": math.Max, "Min": math.Min, "Pow": math.Pow,
				"Sub": func(x, y float64) float64 { return x - y },
				"Add": func(x, y float64) float64 { return x + y },
				"Mul": func(x, y float64) float64 { return x * y },
				"Div": func(x, y float64) float64 { return x / y },
			}[n.OpType](x, y)
		}
		return out, nil
	case "Reshape":
		shape := arg(1)
		if shape == nil || shape.ints == nil {
			return nil, refuse(n, "the shape must be an int64 constant")
		}
		dims, err := reshape(n, a, shape.ints)
		if err != nil {
			return nil, err
		}
		return &constant{dims: dims, f: a.f, ints: a.ints}, nil
	case "Unsqueeze", "Squeeze":
		// Only the dims change; 1-sized axes carry no data.
		axes := intsAttr(n, "axes")
		if ax := arg(1); ax != nil {
			axes = ax.ints
		}
		dims := slices.Clone(a.dims)
		if n.OpType == "Unsqueeze" {
			for _, ax := range axes {
				p := int(ax)
				if p < 0 {
					p += len(dims) + 1
				}
				if p < 0 || p > len(dims) {
					return nil, refuse(n, "axis %d", ax)
				}
				dims = slices.Insert(dims, p, 1)
			}
		} else {
			dims = slices.DeleteFunc(dims, func(d int64) bool { return d == 1 })
		}
		return &constant{dims: dims, f: a.f, ints: a.ints}, nil
	}
	return nil, refuse(n, "an op on constants that the importer does not fold")
}

func reshape(n *onnx.Node, a *constant, shape []int64) ([]int64, error) {
	dims := slices.Clone(shape)
	known, free := int64(1), -1
	for i, d := range dims {
		switch {
		case d == 0 && i < len(a.dims):
			dims[i] = a.dims[i]
		case d == -1 && free < 0:
			free = i
			continue
		case d < 1:
			return nil, refuse(n, "shape %v", shape)
		}
		known *= dims[i]
	}
	if free >= 0 {
		if known == 0 || int64(a.len())%known != 0 {
			return nil, refuse(n, "shape %v for %d elements", shape, a.len())
		}
		dims[free] = int64(a.len()) / known
	} else if known != int64(a.len()) {
		return nil, refuse(n, "shape %v for %d elements", shape, a.len())
	}
	return dims, nil
}
