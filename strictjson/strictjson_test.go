package strictjson

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in    string
		depth int
		ok    bool
	}{
		{`{"a":{"b":1,"c":[{"d":2}]}}`, 4, true},
		{`{"a":{"b":1,"c":[{"d":2}]}}`, 3, false}, // the inner object is level 4
		{`{"a":{"b":1,"b":2}}`, 64, false},        // a member named twice one level down
		{`{"a":1,"\u0061":2}`, 64, false},         // named twice after unescaping
		{`[{"a":1},{"a":1}]`, 64, true},           // one name in two objects
		{`{"a":1} x`, 64, false},
		{"\"\xff\"", 64, false},
		{`"\ud800"`, 64, false},
	} {
		_, err := Parse([]byte(c.in), c.depth)
		if (err == nil) != c.ok {
			t.Errorf("%s (depth %d): err %v, want ok %v", c.in, c.depth, err, c.ok)
		}
	}
}

func TestRaw(t *testing.T) {
	v, err := Parse([]byte(` { "x" : { "y" : [ 1 , 2 ] } } `), 64)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(v.Members[0].Value.Raw); got != `{ "y" : [ 1 , 2 ] }` {
		t.Errorf("raw %q", got)
	}
	if got := string(v.Raw); got != `{ "x" : { "y" : [ 1 , 2 ] } }` {
		t.Errorf("raw %q", got)
	}
}
