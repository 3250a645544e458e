package bench

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/waiops/waiops/fabric"
)

// procStatusKiB is a field of /proc/self/status in KiB (VmRSS, the
// resident set now; VmHWM, its peak), 0 where there is none (not Linux).
func procStatusKiB(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// oursPeakRSS is the resident set, in KiB, before and at the peak of one
// load and one decode of c on f: the heap is collected and returned to the
// system first, then Linux's peak is reset to the resident set now
// (writing 5 to /proc/self/clear_refs). Both are 0 where that is not
// possible.
func oursPeakRSS(f fabric.Fabric, c *Case) (base, peak int64) {
	runtime.GC()
	debug.FreeOSMemory()
	base = procStatusKiB("VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil || base == 0 {
		return 0, 0
	}
	dec, _, err := f.Load(c.Graph)
	if err != nil {
		return 0, 0
	}
	if _, err := dec.Decode(c.Input, nil); err != nil {
		return 0, 0
	}
	return base, procStatusKiB("VmHWM")
}
