// Package demo generates the demo set of examples/demo: an exact integer
// synthesis set (int_synth/1, integer-operators §13.1) and its payload,
// made from a photograph that ships with Go, so that `waiops decode
// int_synth` shows a picture instead of noise.
//
// The photograph is $GOROOT/src/image/testdata/video-001.png (150×103,
// BSD-licensed with Go). The payload's latents are its centre square of
// 102×102 pixels box-filtered to 51×51 (each latent the rounded mean of a
// 2×2 block, less 128, so i8). The set has three conv_transpose layers:
//
//  1. 3→3 channels, k 4, stride 2, pad 1 (51 → 102): an upsampler fitted
//     to the photograph by least squares, kept at 8× the pixel scale;
//  2. 3→3 channels, k 3, stride 1, pad 1: a 3×3 filter fitted by least
//     squares on layer 1's integer output, kept at 4× the pixel scale;
//  3. each channel alone, k 4, stride 2, pad 1 (102 → 204): the designed
//     bilinear kernel (1, 3, 3, 1) ⊗ (1, 3, 3, 1), each of whose four
//     phases sums to 16, rounded half up.
//
// Then clamp(0, 255) (§13.1). Each least-squares fit is solved exactly in
// rational arithmetic (math/big) from integer normal equations, and each
// weight rounded to the nearest integer at its shift, so the generator
// gives the same bytes on every machine (no float takes part).
package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"math/big"
	"os"
	"path/filepath"
	"runtime"

	"github.com/waiops/waiops/drivers"
)

// photoSHA256 is video-001.png's digest: the generator refuses any other
// photograph rather than write other bytes.
const photoSHA256 = "e3ad8f29d2adf538bc077fcdb6528d76c36e70b238ee32b5982273eeb65ddc36"

// The geometry: the crop's corner and side, and the latent side.
const (
	cropX, cropY = 24, 0
	side         = 102
	lat          = side / 2
	// The layers' shifts and the extra bits of precision layers 1 and 2
	// keep (their outputs are the pixel times 2^e).
	shift1, extra1 = 12, 3
	shift2, extra2 = 12, 2
)

// PhotoPath is where the photograph lies in the Go tree that runs the
// generator.
func PhotoPath() string {
	return filepath.Join(runtime.GOROOT(), "src", "image", "testdata", "video-001.png")
}

// Files generates examples/demo's files, by name relative to that folder:
// int_synth.json, payload.bin and README.md.
func Files() (map[string][]byte, error) {
	img, err := photo()
	if err != nil {
		return nil, err
	}
	set, payload := Build(img)
	return map[string][]byte{"int_synth.json": set, "payload.bin": payload, "README.md": []byte(readme)}, nil
}

// photo reads the photograph, refusing any other.
func photo() (image.Image, error) {
	b, err := os.ReadFile(PhotoPath())
	if err != nil {
		return nil, fmt.Errorf("demo: the photograph ships with Go: %w", err)
	}
	if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != photoSHA256 {
		return nil, fmt.Errorf("demo: %s is not the photograph the demo was made from (sha256 %x)", PhotoPath(), s)
	}
	return png.Decode(bytes.NewReader(b))
}

// plane is one channel of an image, row-major, side×side or lat×lat.
type plane []int64

// target is the crop's three channels, 0 … 255.
func target(img image.Image) [3]plane {
	var t [3]plane
	for c := range t {
		t[c] = make(plane, side*side)
	}
	b := img.Bounds()
	for y := range side {
		for x := range side {
			r, g, bl, _ := img.At(b.Min.X+cropX+x, b.Min.Y+cropY+y).RGBA()
			for c, v := range []uint32{r, g, bl} {
				t[c][y*side+x] = int64(v >> 8)
			}
		}
	}
	return t
}

// latents are the crop box-filtered by 2: the rounded mean of each 2×2
// block, less 128 (so in [−128, 127]).
func latents(t [3]plane) [3]plane {
	var z [3]plane
	for c := range z {
		z[c] = make(plane, lat*lat)
		for y := range lat {
			for x := range lat {
				s := t[c][2*y*side+2*x] + t[c][2*y*side+2*x+1] + t[c][(2*y+1)*side+2*x] + t[c][(2*y+1)*side+2*x+1]
				z[c][y*lat+x] = (s+2)>>2 - 128
			}
		}
	}
	return z
}

// convT is one conv_transpose of §5.3 over three-channel planes, with the
// int_synth RQ (pre bias, one shift, floor): out[o][y][x] = ⌊(Σ W[i][o][ky][kx]
// · in[i][iy][ix] + b[o]) / 2^shift⌋ where y = iy·stride − pad + ky.
func convT(in [3]plane, n, k, stride, pad, shift int, w, b []int64) ([3]plane, int) {
	m := (n-1)*stride - 2*pad + k
	var out [3]plane
	for o := range out {
		acc := make(plane, m*m)
		for i := range 3 {
			for iy := range n {
				for ix := range n {
					v := in[i][iy*n+ix]
					for ky := range k {
						y := iy*stride - pad + ky
						if y < 0 || y >= m {
							continue
						}
						for kx := range k {
							if x := ix*stride - pad + kx; x >= 0 && x < m {
								acc[y*m+x] += w[((i*3+o)*k+ky)*k+kx] * v
							}
						}
					}
				}
			}
		}
		for j := range acc {
			acc[j] = (acc[j] + b[o]) >> shift // an arithmetic shift is the floor
		}
		out[o] = acc
	}
	return out, m
}

// fit finds, for each output channel, the weights and bias of a
// conv_transpose (k, stride, pad over n×n inputs) that best give want
// scaled by 2^extra in least squares, and rounds them at shift.
func fit(in [3]plane, want [3]plane, n, k, stride, pad, shift, extra int) (w, b []int64) {
	m := (n-1)*stride - 2*pad + k
	taps := 3*k*k + 1 // every weight into one output channel, then the bias
	w, b = make([]int64, 3*3*k*k), make([]int64, 3)
	for o := range 3 {
		// The normal equations AᵀA x = Aᵀy, formed exactly in integers:
		// row j of A is output pixel j's taps (the input value under each
		// weight, 0 where the kernel leaves the input), and a final 1.
		ata := make([][]int64, taps)
		for r := range ata {
			ata[r] = make([]int64, taps)
		}
		aty := make([]int64, taps)
		row := make([]int64, taps)
		for y := range m {
			for x := range m {
				clear(row)
				for i := range 3 {
					for ky := range k {
						iy, ok := source(y, ky, stride, pad, n)
						if !ok {
							continue
						}
						for kx := range k {
							if ix, ok := source(x, kx, stride, pad, n); ok {
								row[(i*k+ky)*k+kx] = in[i][iy*n+ix]
							}
						}
					}
				}
				row[taps-1] = 1
				t := want[o][y*m+x] << extra
				for r, a := range row {
					if a == 0 {
						continue
					}
					aty[r] += a * t
					for c, bv := range row {
						ata[r][c] += a * bv
					}
				}
			}
		}
		x := solve(ata, aty)
		scale := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(shift)))
		for j := range taps {
			v := roundRat(new(big.Rat).Mul(x[j], scale))
			if j == taps-1 {
				b[o] = v
				continue
			}
			i, kk := j/(k*k), j%(k*k)
			w[(i*3+o)*k*k+kk] = v
		}
	}
	return w, b
}

// source is the input row (or column) that kernel tap kt sends to output
// row y: y = iy·stride − pad + kt, if iy is a whole input row.
func source(y, kt, stride, pad, n int) (int, bool) {
	d := y + pad - kt
	if d < 0 || d%stride != 0 || d/stride >= n {
		return 0, false
	}
	return d / stride, true
}

// solve solves the symmetric system a x = y exactly by Gaussian elimination
// over the rationals. A column with no pivot (a tap no output uses) gets 0.
func solve(a [][]int64, y []int64) []*big.Rat {
	n := len(y)
	m := make([][]*big.Rat, n)
	for r := range m {
		m[r] = make([]*big.Rat, n+1)
		for c := range n {
			m[r][c] = new(big.Rat).SetInt64(a[r][c])
		}
		m[r][n] = new(big.Rat).SetInt64(y[r])
	}
	pivotOf := make([]int, n)
	for c := range pivotOf {
		pivotOf[c] = -1
	}
	row := 0
	for c := 0; c < n && row < n; c++ {
		p := -1
		for r := row; r < n; r++ {
			if m[r][c].Sign() != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			continue
		}
		m[row], m[p] = m[p], m[row]
		inv := new(big.Rat).Inv(m[row][c])
		for j := c; j <= n; j++ {
			m[row][j].Mul(m[row][j], inv)
		}
		for r := range n {
			if r == row || m[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(m[r][c])
			for j := c; j <= n; j++ {
				m[r][j].Sub(m[r][j], new(big.Rat).Mul(f, m[row][j]))
			}
		}
		pivotOf[c] = row
		row++
	}
	x := make([]*big.Rat, n)
	for c := range x {
		x[c] = new(big.Rat)
		if r := pivotOf[c]; r >= 0 {
			x[c].Set(m[r][n])
		}
	}
	return x
}

// roundRat rounds to the nearest integer, halves away from zero.
func roundRat(r *big.Rat) int64 {
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	q := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Lsh(num, 1), den), new(big.Int).Lsh(den, 1))
	if r.Sign() < 0 {
		q.Neg(q)
	}
	return q.Int64()
}

// bilinear is layer 3's designed kernel: each channel onto itself with
// (1, 3, 3, 1) ⊗ (1, 3, 3, 1), whose four phases each sum to 16.
func bilinear() []int64 {
	t := []int64{1, 3, 3, 1}
	w := make([]int64, 3*3*16)
	for c := range 3 {
		for ky := range 4 {
			for kx := range 4 {
				w[((c*3+c)*4+ky)*4+kx] = t[ky] * t[kx]
			}
		}
	}
	return w
}

// Build makes the set and the payload from the photograph.
func Build(img image.Image) (set, payload []byte) {
	t := target(img)
	z := latents(t)
	w1, b1 := fit(z, t, lat, 4, 2, 1, shift1, extra1)
	y1, _ := convT(z, lat, 4, 2, 1, shift1, w1, b1)
	w2, b2 := fit(y1, t, side, 3, 1, 1, shift2, extra2)
	// Layer 3 divides by 16, the sum of each phase of its kernel, and by
	// layer 2's 2^extra2, rounding half up.
	s3 := 4 + extra2
	b3 := []int64{1 << (s3 - 1), 1 << (s3 - 1), 1 << (s3 - 1)}
	set = drivers.EncodeSynth([]drivers.SynthLayer{
		{InCh: 3, OutCh: 3, K: 4, Stride: 2, Pad: 1, Shift: shift1, W: w1, Bias: b1},
		{InCh: 3, OutCh: 3, K: 3, Stride: 1, Pad: 1, Shift: shift2, W: w2, Bias: b2},
		{InCh: 3, OutCh: 3, K: 4, Stride: 2, Pad: 1, Shift: s3, W: bilinear(), Bias: b3},
	})
	lats := make([]int8, 0, 3*lat*lat)
	for c := range z {
		for _, v := range z[c] {
			lats = append(lats, int8(v))
		}
	}
	return set, drivers.SynthPayloadBytes(2*side, 2*side, 3, lat, lats)
}
