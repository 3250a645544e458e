package corpus

import (
	"github.com/waiops/waiops/carriage/amortise"
	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
)

// §17.4's worked plans, and plans §20 refuses plan_malformed, one clause
// broken each (amortise.WorkedPlans and amortise.MalformedPlans, whose
// outcomes that package's tests work by hand).

func init() {
	ops["plan"] = opPlan
	gens = append(gens, genPlan)
	reach = append(reach, amortise.Malformed)
}

// opPlan is `plan` {plan}: the outcome as `waiops prior plan` prints it.
func opPlan(in *Inputs) (any, error) {
	b, err := in.File("plan")
	if err != nil {
		return nil, err
	}
	p, err := amortise.Read(b)
	if err != nil {
		return nil, err
	}
	o, err := amortise.Apply(p)
	if err != nil {
		return nil, err
	}
	out, err := o.JSON()
	return cjson.Raw(out), err
}

func genPlan(g *Gen) {
	for _, c := range amortise.WorkedPlans {
		g.Case("plan.worked."+c.Name, "plan", map[string]any{"plan": g.File("plans/"+c.Name+".json", []byte(c.Plan))}, "")
	}
	for _, c := range amortise.MalformedPlans {
		id, file, code := "plan.malformed."+c.Name, "plans/malformed/"+c.Name+".json", amortise.Malformed
		if c.Name == "good" { // the plan every other case breaks one way
			id, file, code = "plan.good", "plans/good.json", refusal.Code("")
		}
		g.Case(id, "plan", map[string]any{"plan": g.File(file, []byte(c.Plan))}, code)
	}
}
