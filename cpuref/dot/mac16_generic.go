package dot

// mac16Generic is Mac16 in pure Go, lane for lane what the instruction-set
// kernels do: per block of Block columns, int32 lanes that each take two
// products a tap, widened into acc after every chunk taps. The arithmetic
// is int32 only where Choose16's chunk keeps every partial sum in i32.
func mac16Generic(acc []int64, x []int16, off []int32, w []uint32, chunk int) {
	for c := 0; c < len(acc); c += Block {
		for k0 := 0; k0 < len(off); k0 += chunk {
			var lane [Block]int32
			for k := k0; k < min(k0+chunk, len(off)); k++ {
				lo, hi := int32(int16(w[k])), int32(int16(w[k]>>16))
				xs := x[int(off[k])+2*c:][:2*Block]
				for t := range lane {
					lane[t] += lo*int32(xs[2*t]) + hi*int32(xs[2*t+1])
				}
			}
			a := acc[c:][:Block]
			for t, v := range lane {
				a[t] += int64(v)
			}
		}
	}
}

// peakSink keeps peakGeneric's lanes live.
var peakSink int32

// peakGeneric is the pure-Go peak: n rounds of PeakRound int32
// multiply-adds in independent lanes.
func peakGeneric(n int) {
	var lane [PeakRound / 2]int32
	a, b := int32(peakSink|1), int32(peakSink|3)
	for range n {
		for t := range lane {
			lane[t] += a*b + b*a
		}
	}
	peakSink = lane[0] + lane[len(lane)-1]
}
