package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// igdn over C = 2 with input [−2, 3], gf 1, frac 2, γ = [[1, 2], [−1, 0]],
// β = (5, −20).
//
//	igdn.x2 = [0, max(4, 9)] = [0, 9] (0 lies in [−2, 3]).
//	i = 0: gx2 = [0, 9], [0, 18]; term = [0, 4], [0, 9];
//	       N = [0 + 0 + 0, 5 + 4 + 9] = [0, 18]; Nf = [5, 18];
//	       r = [isqrt(5), isqrt(18)] = [2, 4]; xr = hull{−4, −8, 6, 12} = [−8, 12];
//	       out = [⌊−8/4⌋, ⌊12/4⌋] = [−2, 3].
//	i = 1: gx2 = [−9, 0], [0, 0]; term = [⌊−9/2⌋, 0] = [−5, 0], [0, 0];
//	       N = [−20 − 5 + 0, 0] = [−25, 0]; Nf = [−25, −20]; r = [0, 0];
//	       xr = [0, 0]; out = [0, 0].
//
// Hulls: gx2 [−9, 18], term [−5, 9], N [−25, 18], r [0, 4], xr [−8, 12],
// out [−2, 3]; K_c = ⌊(2^31 − 1)/9⌋ = 238609294.
func TestIGDN(t *testing.T) {
	b := newGraph(2, -2, 3, 4, 4)
	b.op(whg1.OpIGDN, &whg1.IGDN{GF: 1, Frac: 2, Gamma: []int64{1, 2, -1, 0}, Beta: []int64{5, -20}}, 2, 0)
	c := certOne(t, b)
	n := &c.Graphs[0].Nodes[0]
	wantKeys(t, n, map[string][2]int64{
		"igdn.x2": {0, 9}, "igdn.gx2": {-9, 18}, "igdn.term": {-5, 9},
		"igdn.N": {-25, 18}, "igdn.r": {0, 4}, "igdn.xr": {-8, 12},
	})
	wantIv(t, "out", n.Results[0], bi(-2), bi(3))
	if n.KC == nil || n.KC.Int64() != 238609294 {
		t.Errorf("k_c = %v, want 238609294", n.KC)
	}
	if !c.Verdict.Acc32 || c.Verdict.NPU || len(c.Verdict.NPUReasons) != 1 || c.Verdict.NPUReasons[0] != "op:igdn" {
		t.Errorf("verdict %+v, want acc32 and npu_reasons [op:igdn]", c.Verdict)
	}
}

// layernorm_c over C = 2 with input [−1, 2], ε = 5, γ = (3, −2), β = (7, −1).
//
//	ln.S = [2·−1, 2·2] = [−2, 4]; ln.m = [−2 − 1, 4 + 1] = [−3, 5];
//	ln.d = [−3, 3]; ln.T = [0, 2·9] = [0, 18]; ln.v = [5, 9 + 5] = [5, 14];
//	r0 = isqrt(5) = 2; ln.k = [0, 2^32/2] = [0, 2147483648];
//	D = min(3·2^31, ⌈isqrt_ceil(2)·2^32·3 / 2⌉) = min(6442450944, 12884901888);
//	N = min(⌊3·2^31 / 2^16⌋ + 1, ⌊2·2^16·3/2⌋ + 1) = min(98305, 196609) = 98305;
//	ng_0 = ±294915, ng_1 = ±196610, ln.ng = [−294915, 294915];
//	out_0 = [⌊−294915/65536⌋ + 7, ⌊294915/65536⌋ + 7] = [−5 + 7, 4 + 7] = [2, 11];
//	out_1 = [⌊−196610/65536⌋ − 1, ⌊196610/65536⌋ − 1] = [−5, 2]; out = [−5, 11].
//
// Under acc32, ln.dk (34 bits, wide) and rsq.num (34 bits, acc) fail; the
// tie goes to the smaller key, ln.dk.
func TestLayerNormC(t *testing.T) {
	b := newGraph(2, -1, 2, 4, 4)
	b.op(whg1.OpLayerNormC, &whg1.LayerNorm{Eps: 5, Gamma: []int64{3, -2}, Beta: []int64{7, -1}}, 2, 0)
	c := certOne(t, b)
	n := &c.Graphs[0].Nodes[0]
	wantKeys(t, n, map[string][2]int64{
		"ln.S": {-2, 4}, "ln.m": {-3, 5}, "ln.d": {-3, 3}, "ln.T": {0, 18}, "ln.v": {5, 14},
		"rsq.num": {1 << 32, 1 << 32}, "ln.k": {0, 1 << 31}, "ln.dk": {-6442450944, 6442450944},
		"ln.n": {-98305, 98305}, "ln.ng": {-294915, 294915},
	})
	wantIv(t, "out", n.Results[0], bi(-5), bi(11))
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "ln.dk", Bits: 34})
	if !c.Verdict.Acc64 {
		t.Errorf("acc64 fails: %v", c.Verdict.Acc64Failure)
	}
}

func wantFailure(t *testing.T, got, want *Failure) {
	t.Helper()
	if got == nil || *got != *want {
		t.Errorf("first failure %v, want %v", got, want)
	}
}
