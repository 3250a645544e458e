package tensor

import (
	"testing"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/internal/spectest"
)

// TestAllocBoundsFromJSON: a tensor that claims 2^26 elements over a short
// text is refused before anything of its size is allocated.
func TestAllocBoundsFromJSON(t *testing.T) {
	for _, text := range []string{
		`{"data":[],"shape":["1","8192","8192"]}`,
		`{"data":["0"],"shape":["67108864","1","1"]}`,
		`{"data":[],"shape":["67108864","67108864","67108864"]}`,
	} {
		v, err := cjson.Unmarshal([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		n := spectest.Allocated(func() { _, err = FromJSON(v) })
		if err == nil || n >= uint64(len(text))+spectest.MiB {
			t.Fatalf("%s: %v, %d bytes allocated", text, err, n)
		}
		t.Logf("%s: refused (%v), %d bytes allocated", text, err, n)
	}
}
