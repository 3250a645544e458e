// Package tally counts the passes that a load and a decode should make
// once: graphs parsed (whg1.Parse), bounds passes run (certify), run-time
// plans made (whg1.Graph.PlanRun), input checks (§4 run step 1), and GL
// decode outputs widened to int64 on the host (a picture should not be). The
// counts only grow; a test reads them before and after the work it bounds
// (see Take). They are the module's own: no application can reach them.
package tally

import "sync/atomic"

// The counters, each incremented where its pass begins.
var (
	Parses      atomic.Int64 // whg1.Parse calls
	Bounds      atomic.Int64 // certify's bounds passes, one per graph
	Plans       atomic.Int64 // whg1's run-time plans (§4 run steps 1–3)
	InputChecks atomic.Int64 // whg1's §4 run step 1 over a decode's inputs
	Widened     atomic.Int64 // GL decode outputs widened to int64 on the host
)

// Counts is a reading of every counter.
type Counts struct{ Parses, Bounds, Plans, InputChecks, Widened int64 }

// Take reads every counter now.
func Take() Counts {
	return Counts{Parses.Load(), Bounds.Load(), Plans.Load(), InputChecks.Load(), Widened.Load()}
}

// Since is what each counter counted from c until now.
func (c Counts) Since() Counts {
	n := Take()
	return Counts{n.Parses - c.Parses, n.Bounds - c.Bounds, n.Plans - c.Plans, n.InputChecks - c.InputChecks, n.Widened - c.Widened}
}
