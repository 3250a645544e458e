package corpus

import (
	"strings"
	"testing"
)

// TestPlanCases: the worked plans' outcomes are amortise's (pinned there by
// hand); one line checked here through the op.
func TestPlanCases(t *testing.T) {
	cases := familyCases(t, genPlan)
	if w := `{"ok":{"sinks":[{"bytes_received":"4100","bytes_without_set":"5600","evicted":["g1"],"fetched":["g3"]`; !strings.Contains(cases["plan.worked.third_cap2"], w) {
		t.Errorf("third_cap2: %s", cases["plan.worked.third_cap2"])
	}
	if len(cases) < 40 {
		t.Errorf("%d plan cases", len(cases))
	}
}
