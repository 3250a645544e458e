package drivers

// The unexported parts the tests (package drivers_test, which builds its
// sets from internal/setcorpus) check directly.
var (
	SatAdd = satAdd
	Assign = assign
)

// PlanRanges is planNetwork's result that the tests read: each layer
// input's check range [lo[ℓ], hi[ℓ]].
func PlanRanges(n *Network, role string) (lo, hi []int64, err error) {
	p, err := planNetwork(n, role)
	if err != nil {
		return nil, nil, err
	}
	return p.lo, p.hi, nil
}
