// Package tensor holds the one tensor value every fabric exchanges: a
// [C, H, W] shape with its elements as exact integers in CHW order (§3), and
// its §14.1 JSON form.
package tensor

import (
	"fmt"

	"github.com/waiops/waiops/cjson"
)

// Shape is [C, H, W]; every dimension is at least 1 in a valid tensor
// (§4 run step 1 and each stage operator check it), though FromJSON reads a
// zero one.
type Shape struct{ C, H, W int }

// Elems is C·H·W. Shapes that reach here were planned under the 2^26 cap, so
// the product cannot overflow.
func (s Shape) Elems() int { return s.C * s.H * s.W }

func (s Shape) String() string { return fmt.Sprintf("[%d, %d, %d]", s.C, s.H, s.W) }

// T is a tensor: element (c, y, x) is Data[(c·H + y)·W + x].
type T struct {
	Shape Shape
	Data  []int64
}

// New returns a zero tensor of shape s.
func New(s Shape) *T { return &T{Shape: s, Data: make([]int64, s.Elems())} }

// JSON returns the §14.1 form {"data": [...], "shape": [C, H, W]} as a cjson value.
func (t *T) JSON() map[string]any {
	return map[string]any{
		"data":  t.Data,
		"shape": []int{t.Shape.C, t.Shape.H, t.Shape.W},
	}
}

// maxElems bounds what FromJSON accepts before it allocates (§3's cap).
const maxElems = 1 << 26

// FromJSON reads a §14.1 tensor. Each dimension is in 0..2^26, the
// product at most 2^26 elements, and the data length must match. A zero
// dimension is read: whether a shape suits a graph is §4 run step 1's
// question (H ≥ 1 and W ≥ 1, model_mismatch), not the reader's.
func FromJSON(v any) (*T, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tensor: want an object, have %T", v)
	}
	if len(m) != 2 {
		return nil, fmt.Errorf("tensor: want exactly the members data and shape")
	}
	sh, ok := m["shape"].([]any)
	if !ok || len(sh) != 3 {
		return nil, fmt.Errorf("tensor: shape must be an array of three integers")
	}
	var dims [3]int64
	for i, d := range sh {
		n, err := cjson.Int(d)
		if err != nil {
			return nil, fmt.Errorf("tensor: shape[%d]: %v", i, err)
		}
		if n < 0 || n > maxElems {
			return nil, fmt.Errorf("tensor: shape[%d] = %d is outside 0..2^26", i, n)
		}
		dims[i] = n
	}
	// Each dimension is at most 2^26, so C·H is at most 2^52 and C·H·W is
	// formed only when C·H is within the cap (or W is 0): nothing wraps.
	if ch := dims[0] * dims[1]; (ch > maxElems && dims[2] > 0) || ch*dims[2] > maxElems {
		return nil, fmt.Errorf("tensor: shape %v passes 2^26 elements", dims)
	}
	data, ok := m["data"].([]any)
	if !ok {
		return nil, fmt.Errorf("tensor: data must be an array")
	}
	s := Shape{int(dims[0]), int(dims[1]), int(dims[2])}
	if len(data) != s.Elems() {
		return nil, fmt.Errorf("tensor: %d elements for shape %v", len(data), s)
	}
	t := New(s)
	for i, d := range data {
		n, err := cjson.Int(d)
		if err != nil {
			return nil, fmt.Errorf("tensor: data[%d]: %v", i, err)
		}
		t.Data[i] = n
	}
	return t, nil
}

// ListJSON is the §14.1 form of a list of tensors (a decode's inputs or
// outputs): an array of tensor objects.
func ListJSON(ts []*T) []any {
	a := make([]any, len(ts))
	for i, t := range ts {
		a[i] = t.JSON()
	}
	return a
}

// ListFromJSON reads an array of §14.1 tensors.
func ListFromJSON(v any) ([]*T, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("tensor: want an array of tensors, have %T", v)
	}
	ts := make([]*T, len(a))
	for i, e := range a {
		t, err := FromJSON(e)
		if err != nil {
			return nil, fmt.Errorf("tensor %d: %w", i, err)
		}
		ts[i] = t
	}
	return ts, nil
}
