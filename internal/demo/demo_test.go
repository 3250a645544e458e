package demo

import (
	"math/big"
	"slices"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
)

// TestSolve: 2x + y = 5, x + 3y = 10 has x = 1, y = 3; a column no row
// uses gets 0.
func TestSolve(t *testing.T) {
	x := solve([][]int64{{2, 1, 0}, {1, 3, 0}, {0, 0, 0}}, []int64{5, 10, 0})
	for i, want := range []int64{1, 3, 0} {
		if x[i].Cmp(big.NewRat(want, 1)) != 0 {
			t.Errorf("x[%d] = %v, want %d", i, x[i], want)
		}
	}
}

// TestRoundRat: halves go away from zero.
func TestRoundRat(t *testing.T) {
	for _, c := range []struct{ n, d, want int64 }{{5, 2, 3}, {-5, 2, -3}, {7, 3, 2}, {-7, 3, -2}, {1, 3, 0}} {
		if got := roundRat(big.NewRat(c.n, c.d)); got != c.want {
			t.Errorf("round(%d/%d) = %d, want %d", c.n, c.d, got, c.want)
		}
	}
}

// TestSource: with k 4, stride 2, pad 1, output row 0 takes input row 0
// through tap 1 (0 = 0·2 − 1 + 1) and nothing through tap 0 (it would be
// input row 1/2); output row 3 takes input row 1 through tap 2.
func TestSource(t *testing.T) {
	if iy, ok := source(0, 1, 2, 1, 51); !ok || iy != 0 {
		t.Errorf("row 0, tap 1: %d %v", iy, ok)
	}
	if _, ok := source(0, 0, 2, 1, 51); ok {
		t.Error("row 0, tap 0 has a source")
	}
	if iy, ok := source(3, 2, 2, 1, 51); !ok || iy != 1 {
		t.Errorf("row 3, tap 2: %d %v", iy, ok)
	}
}

// TestLatents: a 2×2 block of 10, 11, 12, 14 has mean 47/4, rounded 12,
// so its latent is 12 − 128 = −116.
func TestLatents(t *testing.T) {
	var tg [3]plane
	for c := range tg {
		tg[c] = make(plane, side*side)
	}
	tg[1][0], tg[1][1], tg[1][side], tg[1][side+1] = 10, 11, 12, 14
	if z := latents(tg); z[1][0] != -116 || z[0][0] != -128 {
		t.Errorf("latents %d, %d", z[1][0], z[0][0])
	}
}

// TestDemoLooksLikeThePhoto decodes the generated set on the CPU and
// compares it with the photograph's crop, each pixel doubled: the mean
// absolute error per channel stays under 12 of 255 (noise would be ~85),
// and the set meets acc32, so the GL fabric runs it too.
func TestDemoLooksLikeThePhoto(t *testing.T) {
	fs, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(fs), []string{"README.md", "int_synth.json", "payload.bin"}) || len(fs["payload.bin"]) != 9+3*51*51 {
		t.Fatalf("files %v, payload %d bytes", names(fs), len(fs["payload.bin"]))
	}
	s, err := drivers.Lower(drivers.IntSynth, nil, []drivers.File{{Name: "int_synth.json", Data: fs["int_synth.json"]}})
	if err != nil || !s.Acc32 {
		t.Fatalf("lowered: %v, acc32 %v (%s)", err, s != nil && s.Acc32, s.Failure32)
	}
	f, err := drivers.DecodeSynth(fabric.NewCPU(), fs["int_synth.json"], fs["payload.bin"])
	if err != nil {
		t.Fatal(err)
	}
	img, err := photo()
	if err != nil {
		t.Fatal(err)
	}
	tg := target(img)
	var sum int64
	for y := range 2 * side {
		for x := range 2 * side {
			for c := range 3 {
				d := f.Data[(c*2*side+y)*2*side+x] - tg[c][(y/2)*side+x/2]
				sum += max(d, -d)
			}
		}
	}
	if mae := sum / (3 * 4 * side * side); mae >= 12 {
		t.Errorf("mean absolute error %d", mae)
	} else {
		t.Logf("mean absolute error %d of 255", mae)
	}
}

func names(fs map[string][]byte) []string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
