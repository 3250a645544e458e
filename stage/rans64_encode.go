package stage

import (
	"encoding/binary"
	"fmt"
)

// RansEncoder is a CompressAI-compatible rans64 encoder (RansEncoder of
// CompressAI's rans_interface.cpp over ryg_rans rans64.h): the exact inverse
// of docs/READINGS.md D-B, escapes included. It is for tests and tooling; a
// decoder never needs it.
//
// Steps are queued in decode order and encoded in reverse by Bytes. Symbol
// queues one symbol the way CompressAI does; PutSymbol and PutBits queue raw
// steps, so tests can build streams no CompressAI encoder writes (a count
// over 8, a non-minimal escape).
type RansEncoder struct {
	steps []ransStep
}

// ransStep is one decode step: a table step (start, freq) under 16-bit
// precision, or a 4-bit bypass group v.
type ransStep struct {
	start, freq uint32
	bypass      bool
}

// PutSymbol queues a table step whose slot is [start, start + freq) of 2^16.
func (e *RansEncoder) PutSymbol(start, freq uint32) {
	e.steps = append(e.steps, ransStep{start: start, freq: freq})
}

// PutBits queues one 4-bit bypass group v < 16.
func (e *RansEncoder) PutBits(v uint32) {
	e.steps = append(e.steps, ransStep{start: v, freq: 1, bypass: true})
}

// Symbol queues sym against tab as CompressAI's encode_with_indexes does:
// value = sym − o; a value below 0 or at least n − 2 is the escape, with raw
// −2·value − 1 or 2·(value − (n − 2)), its group count (15 per continuation
// group) and its minimal groups. raw must fit u32, which every symbol the
// decoder reads back (an i32 one) meets for an i32 offset.
func (e *RansEncoder) Symbol(tab RansTable, sym int64) error {
	n := len(tab.CDF)
	maxv := int64(n - 2)
	value := sym - tab.Offset
	var raw int64
	switch {
	case value < 0:
		raw, value = -2*value-1, maxv
	case value >= maxv:
		raw, value = 2*(value-maxv), maxv
	}
	if raw > 1<<32-1 {
		return fmt.Errorf("rans64 encode: symbol %d with offset %d has an escape past 32 bits", sym, tab.Offset)
	}
	e.PutSymbol(uint32(tab.CDF[value]), uint32(tab.CDF[value+1]-tab.CDF[value]))
	if value != maxv {
		return nil
	}
	groups := 0
	for raw>>(4*groups) != 0 {
		groups++
	}
	for c := groups; ; c -= 15 {
		if c < 15 {
			e.PutBits(uint32(c))
			break
		}
		e.PutBits(15)
	}
	for j := range groups {
		e.PutBits(uint32(raw>>(4*j)) & 15)
	}
	return nil
}

// Bytes encodes the queued steps (last first, from x = L_RANS) and returns
// the stream: the final state as two little-endian words, then the words
// emitted, in the order the decoder reads them.
func (e *RansEncoder) Bytes() []byte {
	words := make([]uint32, 0, len(e.steps)+2)
	x := uint64(ransL)
	for k := len(e.steps) - 1; k >= 0; k-- {
		st := e.steps[k]
		if st.bypass {
			// Rans64EncPutBits with 4 bits: x_max = ((L >> 16) << 32)·2^12.
			if x >= (ransL>>16)<<32<<12 {
				words = append(words, uint32(x))
				x >>= 32
			}
			x = x<<4 | uint64(st.start)
			continue
		}
		// Rans64EncPut with scale_bits 16: x_max = ((L >> 16) << 32)·freq.
		if x >= ((ransL>>16)<<32)*uint64(st.freq) {
			words = append(words, uint32(x))
			x >>= 32
		}
		x = (x/uint64(st.freq))<<16 + x%uint64(st.freq) + uint64(st.start)
	}
	out := make([]byte, 8+4*len(words))
	binary.LittleEndian.PutUint64(out, x)
	for k, w := range words {
		// The first word emitted is the last the decoder reads.
		binary.LittleEndian.PutUint32(out[len(out)-4*(k+1):], w)
	}
	return out
}
