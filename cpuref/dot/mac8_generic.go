package dot

// mac8Generic is Mac8 in pure Go, lane for lane what vpdpbusd does: per
// block of Block columns, int32 lanes that each take four products a tap,
// widened into acc after every chunk taps.
func mac8Generic(acc []int64, x []uint8, off []int32, w []uint32, chunk int) {
	for c := 0; c < len(acc); c += Block {
		for k0 := 0; k0 < len(off); k0 += chunk {
			var lane [Block]int32
			for k := k0; k < min(k0+chunk, len(off)); k++ {
				w0, w1, w2, w3 := int32(int8(w[k])), int32(int8(w[k]>>8)), int32(int8(w[k]>>16)), int32(int8(w[k]>>24))
				xs := x[int(off[k])+4*c:][:4*Block]
				for t := range lane {
					lane[t] += w0*int32(xs[4*t]) + w1*int32(xs[4*t+1]) + w2*int32(xs[4*t+2]) + w3*int32(xs[4*t+3])
				}
			}
			a := acc[c:][:Block]
			for t, v := range lane {
				a[t] += int64(v)
			}
		}
	}
}
