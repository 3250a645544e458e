package gputest

import (
	"sync/atomic"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/whg1"
)

// CPU32 is an acc32 fabric without GL: it loads against acc32 as
// gpu.Device.Load does and computes on the CPU reference, so that routing
// and partitioning are tested on machines without a GL context. Its name
// is the GL fabric's, "gpu".
type CPU32 struct{}

func (CPU32) Name() string                { return "gpu" }
func (CPU32) Profile() certify.Profile    { return certify.Acc32 }
func (CPU32) Identity() map[string]string { return map[string]string{"fabric": "cpu32"} }

func (CPU32) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	g, _, err := certify.Load(b, certify.Acc32)
	if err != nil {
		return nil, nil, err
	}
	p, err := cpuref.Load(g)
	return p, g, err
}

func (CPU32) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	if err := cert.Verdict.Admit(certify.Acc32); err != nil {
		return nil, err
	}
	return cpuref.Load(g)
}

// Closing is CPU32 on a renderer named "test GPU" (hardware, to a
// planner) whose decoders count their Close in Closes, so that eviction
// and release are seen without a GL context.
type Closing struct {
	CPU32
	Closes *atomic.Int64
}

func (Closing) GL() gpu.Identity { return gpu.Identity{Renderer: "test GPU"} }

func (f Closing) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	dec, g, err := f.CPU32.Load(b)
	if err != nil {
		return nil, nil, err
	}
	return &countingCloser{dec, f.Closes}, g, nil
}

func (f Closing) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	dec, err := f.CPU32.LoadCertified(g, cert)
	if err != nil {
		return nil, err
	}
	return &countingCloser{dec, f.Closes}, nil
}

type countingCloser struct {
	whg1.Decoder
	n *atomic.Int64
}

func (c *countingCloser) Close() error { c.n.Add(1); return nil }
