// Command _gen writes cpuref/dot's generated amd64 kernels (kern_amd64.s
// and their Go declarations, kern_amd64.go) with github.com/mmcloughlin/avo:
//
//	cd cpuref/dot/_gen && go run . -out ../kern_amd64.s -stubs ../kern_amd64.go -pkg dot
//
// (go generate in cpuref/dot runs it; TestGenerated checks the committed
// files are what it writes). It is a module of its own so that avo is no
// dependency of waiops. Two families come out of it, one body per
// instruction set:
//
//   - the peak loops, PeakRound products a round on registers over enough
//     independent chains to keep every multiply-add port busy;
//   - the tile kernels, TileRows output channels × a block of columns held
//     in registers at once, stepping through the taps of §6's chunks
//     (tile.go in this directory);
//   - the same tiles with the rq, clamp and narrowing to i8 or u8 fused
//     into the tile's store (fused.go): in 64-bit lanes with DQ's vpmullq,
//     or in the sums' own 32-bit lanes where that is exact; and the tiles
//     that store their exact sums as int32 (fused.go, s32Tiles);
//   - Quad8's interleave of four rows of bytes into u8 quads, and
//     Spread8's store of a row of bytes into every second byte (quad.go).
//
// avo v0.5.0 has no AVX-512 VNNI instructions (vpdpwssd, vpdpbusd are not
// in its instruction table): vnni emits them as raw ir.Instruction nodes,
// with their inputs and outputs named so that avo's liveness pass sees
// them; every register here is physical, so no allocation depends on it.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("!purego")
	peaks()
	tiles()
	fusedTiles()
	s32Tiles()
	quad8()
	spread2()
	Generate()
}

// vnni emits one VNNI multiply-add in Go's operand order: acc's int32
// lanes += the lane's products of a and b summed (vpdpwssd: int16 pairs;
// vpdpbusd: a's signed bytes times b's unsigned ones, four a lane). b may
// be memory.
func vnni(op string, a, b Op, acc VecPhysical) {
	Instruction(&ir.Instruction{
		Opcode:   op,
		Operands: []Op{a, b, acc},
		Inputs:   []Op{a, b, acc},
		Outputs:  []Op{acc},
		ISA:      []string{"AVX512VNNI"},
	})
}

// isa is one instruction set's multiply-add: mac adds the products of x
// (a register holding the input's operands) and w (the broadcast weights)
// into acc, with tmp free for a product.
type isa struct {
	name string
	vec  func(i int) VecPhysical // register i of the set's width
	lane int                     // bytes a vector holds
	mac  func(x, w, tmp, acc VecPhysical)
	// peakChains is the number of independent sums the peak loop keeps.
	peakChains int
	// evex says the set is an AVX-512 one, whose moves reach Y16–Y31 too
	// (VMOVDQU64, VEXTRACTI32X4: VEX encodes registers 0–15 only).
	evex bool
}

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}
var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15,
	Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31}

func maddAdd(x, w, tmp, acc VecPhysical) { VPMADDWD(x, w, tmp); VPADDD(tmp, acc, acc) }

var (
	avx2 = isa{name: "AVX2", vec: func(i int) VecPhysical { return ymm[i] }, lane: 32, mac: maddAdd, peakChains: 8}
	bw   = isa{name: "AVX512BW", vec: func(i int) VecPhysical { return zmm[i] }, lane: 64, mac: maddAdd, peakChains: 16, evex: true}
	wssd = isa{name: "AVX512VNNI", vec: func(i int) VecPhysical { return zmm[i] }, lane: 64, peakChains: 16, evex: true,
		mac: func(x, w, _, acc VecPhysical) { vnni("VPDPWSSD", w, x, acc) }}
	busd = isa{name: "AVX512VNNI", vec: func(i int) VecPhysical { return zmm[i] }, lane: 64, peakChains: 16, evex: true,
		mac: func(x, w, _, acc VecPhysical) { vnni("VPDPBUSD", w, x, acc) }}
)

// peakRound is PeakRound (dot.go): the int16 products of one round.
const peakRound = 512

// peaks writes the peak loops: n rounds, each a fixed number of
// multiply-adds of two constant registers into peakChains independent
// accumulators, unrolled so that one round is peakRound int16 products
// (2·peakRound u8 products for vpdpbusd).
func peaks() {
	for _, p := range []struct {
		fn string
		s  isa
	}{{"peakAVX2", avx2}, {"peakAVX512BW", bw}, {"peakAVX512VNNI", wssd}, {"peak8AVX512VNNI", busd}} {
		TEXT(p.fn, NOSPLIT, "func(n int)")
		Doc(fmt.Sprintf("%s runs n rounds of PeakRound products of its multiply-add on registers, %d independent sums.", p.fn, p.s.peakChains))
		Load(Param("n"), RCX)
		s := p.s
		a, b := s.vec(s.peakChains), s.vec(s.peakChains+1)
		tmps := []VecPhysical{s.vec(s.peakChains + 2), s.vec(s.peakChains + 3)}
		// Every int16 (every byte pair) of a and b is 1.
		if s.lane == 64 {
			VPTERNLOGD(U8(0xff), a, a, a)
		} else {
			VPCMPEQD(a, a, a)
		}
		VPSRLW(U8(15), a, a)
		VMOVDQA64orA(s, a, b)
		for i := range p.s.peakChains {
			zero(s, s.vec(i))
		}
		macs := peakRound / (s.lane / 2) // an instruction's int16 products: lane/2
		TESTQ(RCX, RCX)
		JZ(LabelRef("done" + p.fn))
		Label("round" + p.fn)
		for i := range macs {
			s.mac(a, b, tmps[i%2], s.vec(i%s.peakChains))
		}
		DECQ(RCX)
		JNZ(LabelRef("round" + p.fn))
		Label("done" + p.fn)
		if s.lane == 64 {
			clean(s.peakChains + 4)
		}
		VZEROUPPER()
		RET()
	}
}

// clean zeroes Z16 up to register n − 1: VZEROUPPER clears the upper
// halves of Z0–Z15 only, and no non-zero upper half should stay in
// Z16–Z31 when legacy-SSE code runs next (avx512.h, CLEAN).
func clean(n int) {
	for i := 16; i < n && i < 32; i++ {
		VPXORD(zmm[i], zmm[i], zmm[i])
	}
}

// zero sets v to 0.
func zero(s isa, v VecPhysical) {
	if s.lane == 64 {
		VPXORD(v, v, v)
	} else {
		VPXOR(v, v, v)
	}
}

// VMOVDQA64orA copies register a into b.
func VMOVDQA64orA(s isa, a, b VecPhysical) {
	if s.lane == 64 {
		VMOVDQU64(a, b)
	} else {
		VMOVDQU(a, b)
	}
}
