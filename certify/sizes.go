package certify

import "github.com/waiops/waiops/whg1"

// planSizes gives every tensor's [H, W] planned on the declared input sizes
// (§8.1 Sizes, §10.5 step 7), or nil when the inputs do not declare them.
// The planning is whg1's, the same the load runs.
func planSizes(g *whg1.Graph) ([][2]int64, error) {
	shapes, err := g.DeclaredShapes()
	if shapes == nil || err != nil {
		return nil, err
	}
	s := make([][2]int64, len(shapes))
	for i, sh := range shapes {
		s[i] = [2]int64{int64(sh.H), int64(sh.W)}
	}
	return s, nil
}
