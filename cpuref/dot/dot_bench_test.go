package dot

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/waiops/waiops/cpuref/internal/cputime"
)

// threadCounts is 1 and, when larger, GOMAXPROCS.
func threadCounts() []int {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return []int{1, n}
	}
	return []int{1}
}

// reportCPU adds MAC/s-cpu: work per CPU-second since t0, times the th
// goroutines, which other jobs on the machine do not lower.
func reportCPU(b *testing.B, work float64, th int, t0 time.Duration) {
	if cpu := cputime.Process() - t0; cpu > 0 && t0 > 0 {
		b.ReportMetric(work*float64(th)/cpu.Seconds(), "MAC/s-cpu")
	}
}

// BenchmarkPeak is the machine's peak for each implementation: a loop of
// the instruction its Mac16 is built on (vpmaddwd + vpaddd for avx2 and
// avx512bw, vpdpwssd for avx512vnni) on registers, on 1 and on GOMAXPROCS
// goroutines, in 16-bit products (MAC) per second; and where a set has
// Mac8's vpdpbusd, its loop (u8), in u8 × s8 products per second. Mac16,
// Mac8 and the conv benchmarks are read as a fraction of the selected
// implementation's figure.
func BenchmarkPeak(b *testing.B) {
	const rounds = 1 << 19 // about 1 ms of vpdpwssd: a goroutine's start is lost in it
	for _, im := range impls {
		type loop struct {
			name  string
			peak  func(int)
			round int // products a round
		}
		loops := []loop{{im.Name, im.peak, PeakRound}}
		if im.peak8 != nil {
			loops = append(loops, loop{im.Name + "/u8", im.peak8, 2 * PeakRound})
		}
		for _, l := range loops {
			for _, th := range threadCounts() {
				b.Run(l.name+"/threads="+strconv.Itoa(th), func(b *testing.B) {
					t0 := cputime.Process()
					for b.Loop() {
						if th == 1 {
							l.peak(rounds)
							continue
						}
						var wg sync.WaitGroup
						for range th {
							wg.Go(func() { l.peak(rounds) })
						}
						wg.Wait()
					}
					work := float64(th*rounds*l.round) * float64(b.N)
					b.ReportMetric(work/b.Elapsed().Seconds(), "MAC/s")
					reportCPU(b, work, th, t0)
				})
			}
		}
	}
}

// BenchmarkMac16 is Mac16 and Tile16 (TileRows output channels a call)
// alone on one goroutine, per implementation: the taps of a 3×3 conv over
// 64 input channels (32 pairs · 9 = 288 taps) on 64 columns whose input
// (25 KB) stays in L1, i8-range operands.
func BenchmarkMac16(b *testing.B) {
	const n, pairs, wq = 64, 32, 66
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]int16, pairs*3*wq*2)
	for i := range x {
		x[i] = int16(r.IntN(256) - 128)
	}
	var off []int32
	var w []uint32
	for p := range pairs {
		for i := range 3 {
			for j := range 3 {
				off = append(off, int32(((p*3+i)*wq+j)*2))
				w = append(w, Pair(int16(r.IntN(256)-128), int16(r.IntN(256)-128)))
			}
		}
	}
	taps, _ := NewTaps(off)
	chunk, _ := Choose16(Operands{-128, 127, -128, 127})
	acc := make([]int64, TileRows*n)
	saved := best
	defer func() { best = saved }()
	w4 := make([]uint32, 0, TileRows*len(w))
	for _, wk := range w {
		for r := range uint32(TileRows) {
			w4 = append(w4, wk^(0x10001*r))
		}
	}
	for _, im := range impls {
		best = im
		b.Run(im.Name, func(b *testing.B) {
			t0 := cputime.Process()
			for b.Loop() {
				Mac16(acc[:n], x, taps, w, chunk)
			}
			work := float64(2*len(w)*n) * float64(b.N)
			b.ReportMetric(work/b.Elapsed().Seconds(), "MAC/s")
			reportCPU(b, work, 1, t0)
		})
		b.Run(im.Name+"/tile", func(b *testing.B) {
			t0 := cputime.Process()
			for b.Loop() {
				Tile16(acc, n, n, x, taps, w4, chunk)
			}
			work := float64(2*len(w4)*n) * float64(b.N)
			b.ReportMetric(work/b.Elapsed().Seconds(), "MAC/s")
			reportCPU(b, work, 1, t0)
		})
	}
}

// BenchmarkTile8 is Tile8 alone on one goroutine, per implementation with
// a Mac8 kernel: the taps of a 3×3 conv over 64 input channels (16 quads ·
// 9 = 144 taps) on 64 columns whose input (25 KB) stays in L1, u8 data
// and i8 weights, in u8 × i8 products per second.
func BenchmarkTile8(b *testing.B) {
	const n, quads, wq = 64, 16, 66
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]uint8, quads*3*wq*4)
	for i := range x {
		x[i] = uint8(r.IntN(256))
	}
	var off []int32
	var w []uint32
	for q := range quads {
		for i := range 3 {
			for j := range 3 {
				off = append(off, int32(((q*3+i)*wq+j)*4))
				for range TileRows {
					w = append(w, r.Uint32())
				}
			}
		}
	}
	taps, _ := NewTaps8(off)
	chunk, _ := Choose8(Operands{-128, 127, 0, 255})
	acc := make([]int64, TileRows*n)
	saved := best8
	defer func() { best8 = saved }()
	for _, im := range impls {
		if im.tile8 == nil {
			continue
		}
		best8 = im
		b.Run(im.Name, func(b *testing.B) {
			t0 := cputime.Process()
			for b.Loop() {
				Tile8(acc, n, n, x, taps, w, chunk)
			}
			work := float64(4*len(w)*n) * float64(b.N)
			b.ReportMetric(work/b.Elapsed().Seconds(), "MAC/s")
			reportCPU(b, work, 1, t0)
		})
	}
}

// BenchmarkRQRow is RQRowStrided on rows of 64 sums (a conv_transpose phase row
// at side 64), half-even rounding, shift 8, per implementation, in sums
// per second.
func BenchmarkRQRow(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	src, dst := make([]int64, 64), make([]int64, 64)
	for i := range src {
		src[i] = r.Int64N(1<<24) - 1<<23
	}
	q := RQ64{Pre: 3, Mult: 181, Post: -5, Shift: 8, Round: RoundHalfEven}
	saved := bestRQ
	defer func() { bestRQ = saved }()
	for _, im := range impls {
		if im.rq == nil {
			continue
		}
		bestRQ = im
		b.Run(im.Name, func(b *testing.B) {
			t0 := cputime.Process()
			for b.Loop() {
				rqRow(dst, src, &q)
			}
			work := float64(len(src)) * float64(b.N)
			b.ReportMetric(work/b.Elapsed().Seconds(), "sum/s")
			if cpu := cputime.Process() - t0; cpu > 0 {
				b.ReportMetric(work/cpu.Seconds(), "sum/s-cpu")
			}
		})
	}
}
