package amortise

import (
	"errors"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/refusal"
)

// FuzzPlan: a plan is refused plan_malformed, or it is accepted and §17.2
// applied to it gives an outcome that is refused plan_malformed (a sum past
// 2^63 − 1) or holds §17.2's invariants: at most cap kept, a worth-holding
// generation's net above 0, fetched ⊆ kept, nothing both kept and evicted,
// and canonical JSON written. Seeded with the corpus's plans.
func FuzzPlan(f *testing.F) {
	spectest.Seed(f, "../../vectors/carriage/files/plans", "*.json", "malformed/*.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Read(b)
		var o *Outcome
		if err == nil {
			o, err = Apply(p)
		}
		if err != nil {
			var r *refusal.Error
			if !errors.As(err, &r) || r.Code != Malformed {
				t.Fatalf("refused with %v, want plan_malformed", err)
			}
			return
		}
		for _, s := range o.Sinks {
			if int64(len(s.Kept)) > p.Cap {
				t.Fatalf("sink %s keeps %d generations, cap %d", s.ID, len(s.Kept), p.Cap)
			}
			kept := map[int]bool{}
			for _, i := range s.Kept {
				kept[i] = true
			}
			for _, i := range s.Fetched {
				if !kept[i] {
					t.Fatalf("sink %s fetches %d, not kept", s.ID, i)
				}
			}
			for _, i := range s.Evicted {
				if kept[i] {
					t.Fatalf("sink %s evicts %d, kept", s.ID, i)
				}
			}
			for _, g := range s.Generations {
				if g.WorthHolding != (g.Net > 0) || g.Net != g.Saving-g.Cost || g.Saving < 0 || g.Cost < 0 {
					t.Fatalf("sink %s: generation %+v", s.ID, g)
				}
			}
			if s.BytesReceived < 0 || s.BytesWithoutSet < 0 {
				t.Fatalf("sink %s: negative bytes", s.ID)
			}
		}
		if _, err := o.JSON(); err != nil {
			t.Fatalf("outcome JSON: %v", err)
		}
	})
}
