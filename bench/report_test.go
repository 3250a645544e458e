package bench

import "testing"

// TestAxisScale: the plots' throughput axis reads in G, M or k units with at
// most three digits before the point (5e+09 MAC/s is 5 G MAC/s).
func TestAxisScale(t *testing.T) {
	for _, c := range []struct {
		v      float64
		scale  float64
		prefix string
	}{
		{5e9, 1e9, "G "}, {1e9, 1e9, "G "}, {999e6, 1e6, "M "}, {1e6, 1e6, "M "}, {25e3, 1e3, "k "}, {640, 1, ""},
	} {
		if s, p := axisScale(c.v); s != c.scale || p != c.prefix {
			t.Errorf("axisScale(%g) = %g, %q; want %g, %q", c.v, s, p, c.scale, c.prefix)
		}
	}
}
