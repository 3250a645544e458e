package certify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// The canonical bytes of §8.5, written out by hand: members in byte order,
// integers as strings ("-5", "0"), null for an absent capability digest,
// init and src only on the state input, {} for no intermediates.
func TestCertificateBytes(t *testing.T) {
	b := newGraph(1, -5, 7, 4, 4)
	b.g.Scalars = []whg1.Scalar{{Lo: -1, Hi: 0}}
	s := b.input(1, -5, 7, whg1.StateInput)
	x := b.op(whg1.OpAdd, nil, 1, 0, s) // [−10, 14]
	b.op(whg1.OpRelu, nil, 1, x)        // [0, 14]
	r := b.role(t, "g")
	capability := "wai.test"
	c, err := Certify(&capability, "whg1", nil, []Role{r})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(r.Bytes)
	want := `{"capability":"wai.test","certificate":"wai-ops/1 bounds","graphs":[{"graph_sha256":"` +
		hex.EncodeToString(sum[:]) + `","inputs":[` +
		`{"hi":"7","kind":"data","lo":"-5","max_h":"4","max_w":"4","policy":"check","tensor":"0"},` +
		`{"hi":"7","init":"-5","kind":"state","lo":"-5","max_h":"4","max_w":"4","policy":"check","src":"0","tensor":"1"}],` +
		`"name":"g","nodes":[` +
		`{"acc32_params":[],"fits":["acc32","acc64"],"index":"0","intermediates":{},"npu_flags":["state_add"],"op":"add",` +
		`"out":[{"bits":"5","hi":"14","lo":"-10","policy":"derived","result":{"bits":"5","hi":"14","lo":"-10"},"tensor":"2"}],"saturated":false},` +
		`{"acc32_params":[],"fits":["acc32","acc64"],"index":"1","intermediates":{},"npu_flags":[],"op":"relu",` +
		`"out":[{"bits":"5","hi":"14","lo":"0","policy":"derived","result":{"bits":"5","hi":"14","lo":"0"},"tensor":"3"}],"saturated":false}],` +
		`"scalars":[{"hi":"0","index":"0","lo":"-1"}]}],"lowering":"whg1","set_sha256":null,` +
		`"verdict":{"acc32":true,"acc64":true,"npu":true,"npu_flags":["state_add"],"npu_reasons":[]}}`
	if got := string(c.Bytes()); got != want {
		t.Errorf("certificate\n got %s\nwant %s", got, want)
	}
	// Byte stability: a second run gives the same bytes.
	c2, err := Certify(&capability, "whg1", nil, []Role{r})
	if err != nil || !bytes.Equal(c.Bytes(), c2.Bytes()) {
		t.Errorf("a second run differs (%v)", err)
	}
}

// A conv whose weights are all zero has P = 0: k_c is "unbounded". Its mac
// holds a_bits = [bits([−8, 7])] = [4] and w_bits = bits([0, 0]) = 1, and
// the failure object of a parameter key carries no bits.
func TestCertificateNodeMembers(t *testing.T) {
	b := newGraph(1, -8, 7, 4, 4)
	rq := whg1.RQ{Round: whg1.HalfUp, MKind: 1, Mult: []int64{1 << 33}, SKind: 1, Shift: []uint8{0}}
	b.op(whg1.OpConv, &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rq, W: []int64{0}}, 1, 0)
	got := string(certOne(t, b).Bytes())
	for _, want := range []string{
		`"k_c":"unbounded"`,
		`"mac":{"a_bits":["4"],"w_bits":"1"}`,
		`"acc32_first_failure":{"graph":"g","index":"0","key":"rq.mult","where":"node"}`,
		`"acc32_params":["rq.mult"]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("certificate lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "acc64_first_failure") {
		t.Errorf("acc64 holds, but the certificate has its failure")
	}
}

// randomConvGraph is a chain of four conv or conv_transpose nodes with
// random weights. Some weights and the input range are large enough that
// later terms pass 2^255, so both the sums and the fold of §8.2 run.
func randomConvGraph(rng *rand.Rand) *builder {
	big := rng.IntN(2) == 0
	lim := int64(100)
	if big {
		lim = 1 << 62
	}
	sym := func() int64 { // in (−lim, lim)
		v := rng.Int64N(lim)
		if rng.IntN(2) == 0 {
			return -v
		}
		return v
	}
	c := uint32(1 + rng.IntN(3))
	b := newGraph(c, -rng.Int64N(lim), rng.Int64N(lim), 8, 8)
	x := uint32(0)
	for range 4 {
		cout := uint32(1 + rng.IntN(3))
		kh, kw := uint32(1+rng.IntN(3)), uint32(1+rng.IntN(3))
		w := make([]int64, int(c*cout*kh*kw))
		for i := range w {
			w[i] = sym()
		}
		pre := make([]int64, cout)
		for i := range pre {
			pre[i] = sym()
		}
		rq := rqFloor(uint8(rng.IntN(4)), pre...)
		if rng.IntN(2) == 0 {
			x = b.op(whg1.OpConv, &whg1.Conv{Cout: cout, KH: kh, KW: kw, SH: 1, SW: 1, PH: kh, PW: kw,
				Groups: 1, RQ: rq, W: w}, cout, x)
		} else {
			x = b.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: cout, KH: kh, KW: kw, SH: uint32(1 + rng.IntN(3)),
				SW: uint32(1 + rng.IntN(3)), RQ: rq, W: w}, cout, x)
		}
		c = cout
	}
	return b
}

// The per-channel sums of §8.2 and the term-by-term fold of §8.1 give the
// same certificate, byte for byte.
func TestSumsMatchFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	saturated := 0
	for i := range 200 {
		r := randomConvGraph(rng).role(t, "g")
		sums, err1 := certify(nil, "whg1", nil, []Role{r}, false)
		fold, err2 := certify(nil, "whg1", nil, []Role{r}, true)
		if err1 != nil || err2 != nil {
			t.Fatalf("graph %d: %v, %v", i, err1, err2)
		}
		if !bytes.Equal(sums.Bytes(), fold.Bytes()) {
			t.Fatalf("graph %d: sums and fold differ\nsums %s\nfold %s", i, sums.Bytes(), fold.Bytes())
		}
		for _, n := range sums.Graphs[0].Nodes {
			// A term interval at ±2^255 means a product saturated: the
			// sums could not be used, and the node was folded.
			for _, k := range []string{"conv.term", "convT.term"} {
				if iv, ok := n.Intermediates[k]; ok && (iv.Lo.Cmp(satLo) == 0 || iv.Hi.Cmp(satHi) == 0) {
					saturated++
				}
			}
		}
	}
	if saturated == 0 {
		t.Error("no product saturated: the fold path went untested")
	}
}
