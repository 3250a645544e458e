package fabric

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Route is where Auto runs an acc32 graph for one input size class on one
// device, as measured: each fabric's time for one decode (the GPU's after
// a first decode that compiled its shader variants), and whether their
// outputs were equal.
type Route struct {
	GPUNS int64 `json:"gpu_ns"`
	CPUNS int64 `json:"cpu_ns"`
	// Differ is set when the outputs were not equal: the GPU is never
	// used for the class then (a defect to report; the CPU reference is
	// the exact answer).
	Differ bool `json:"differ,omitempty"`
}

// GPU reports whether the route runs on the GPU: outputs equal and the
// GPU's decode faster.
func (r Route) GPU() bool { return !r.Differ && r.GPUNS < r.CPUNS }

// String is the route as Auto says it: "gpu (2.3× cpu)", "cpu (4.1× gpu)",
// or "cpu (the gpu's outputs differ)".
func (r Route) String() string {
	if r.Differ {
		return "cpu (the gpu's outputs differ from the cpu's)"
	}
	win, lose, name, other := r.CPUNS, r.GPUNS, "cpu", "gpu"
	if r.GPU() {
		win, lose, name, other = r.GPUNS, r.CPUNS, "gpu", "cpu"
	}
	tenths := lose * 10 / max(win, 1) // the speed ratio in tenths, integer arithmetic
	return fmt.Sprintf("%s (%d.%d× %s)", name, tenths/10, tenths%10, other)
}

// maxRoutes bounds the routes a Routes keeps (and its file holds).
const maxRoutes = 1024

// Routes remembers measured routes by graph digest, input size class and
// device identity: in memory, and in routes.json under the user's cache
// directory (os.UserCacheDir()/waiops), so that a desktop application
// measures once per device, not at every launch. The file is a cache: one
// that cannot be read or written is ignored. It is safe for concurrent
// use.
type Routes struct {
	mu   sync.Mutex
	m    map[string]Route
	path string // "" when there is no cache directory
}

// OpenRoutes reads the routes file, if any.
func OpenRoutes() *Routes {
	r := &Routes{m: map[string]Route{}}
	if dir, err := os.UserCacheDir(); err == nil {
		r.path = filepath.Join(dir, "waiops", "routes.json")
		if b, err := os.ReadFile(r.path); err == nil && json.Unmarshal(b, &r.m) != nil {
			r.m = map[string]Route{} // a damaged cache is measured again
		}
	}
	return r
}

// get returns the route of key, if measured.
func (r *Routes) get(key string) (Route, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.m[key]
	return rt, ok
}

// put keeps the route of key and writes the file (a temporary file renamed
// over it, so a reader never sees half of one). Past maxRoutes the routes
// kept are emptied first: each is measured again when next needed.
func (r *Routes) put(key string, rt Route) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= maxRoutes {
		clear(r.m)
	}
	r.m[key] = rt
	if r.path == "" {
		return
	}
	b, err := json.Marshal(r.m)
	if err != nil || os.MkdirAll(filepath.Dir(r.path), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(r.path), "routes-*.json")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), r.path) != nil {
		os.Remove(tmp.Name())
	}
}

// Measured is Auto's decoder of an acc32 graph where a GPU is present: the
// graph is loaded on both fabrics, and the first decode of each input size
// class (the bit length of its input elements) on a device runs on both,
// the GPU twice (the first compiles its shader variants), compares the
// outputs and keeps the route (Routes); every later decode of the class
// runs on the faster fabric. The route is said once to notes (Options.
// Notes) as "fabric: gpu (2.3× cpu)", and Route gives it.
type Measured struct {
	gpu, cpu whg1.Decoder
	key      string // the graph's digest and the device's identity
	routes   *Routes
	notes    io.Writer

	mu   sync.Mutex
	last string // the route last taken, as said
}

// NewMeasured measures between gpu and cpu, both loaded from the graph of
// digest sum, on the device named by device (its identity).
func NewMeasured(gpu, cpu whg1.Decoder, sum [32]byte, device map[string]string, routes *Routes, notes io.Writer) *Measured {
	id := make([]string, 0, len(device))
	for k, v := range device {
		id = append(id, k+"="+v)
	}
	slices.Sort(id)
	return &Measured{gpu: gpu, cpu: cpu, key: fmt.Sprintf("%x|%v", sum, id), routes: routes, notes: notes}
}

// Route is the route the last decode took ("" before the first).
func (m *Measured) Route() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// Decode runs one decode on the route of its size class, measuring the
// class first.
func (m *Measured) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return m.run(inputs, func(d whg1.Decoder) ([]*tensor.T, error) { return d.Decode(inputs, scalars) })
}

// DecodePlanned is Decode of a planned decode.
func (m *Measured) DecodePlanned(r *whg1.Planned) ([]*tensor.T, error) {
	return m.run(r.Inputs(), func(d whg1.Decoder) ([]*tensor.T, error) { return whg1.DecodePlanned(d, r) })
}

func (m *Measured) run(inputs []*tensor.T, decode func(whg1.Decoder) ([]*tensor.T, error)) ([]*tensor.T, error) {
	n := 0
	for _, t := range inputs {
		n += len(t.Data)
	}
	key := fmt.Sprintf("%s|%d", m.key, bits.Len(uint(n)))
	rt, ok := m.routes.get(key)
	if ok {
		m.say(rt)
		if rt.GPU() {
			return decode(m.gpu)
		}
		return decode(m.cpu)
	}
	if _, err := decode(m.gpu); err != nil {
		return nil, err
	}
	t0 := time.Now()
	gout, err := decode(m.gpu)
	rt.GPUNS = time.Since(t0).Nanoseconds()
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	cout, err := decode(m.cpu)
	rt.CPUNS = time.Since(t0).Nanoseconds()
	if err != nil {
		return nil, err
	}
	rt.Differ = !equalTensors(gout, cout)
	m.routes.put(key, rt)
	m.say(rt)
	return cout, nil
}

// say tells notes the route when it differs from the last one said.
func (m *Measured) say(rt Route) {
	s := rt.String()
	m.mu.Lock()
	defer m.mu.Unlock()
	if s != m.last && m.notes != nil {
		fmt.Fprintf(m.notes, "fabric: %s\n", s)
	}
	m.last = s
}

// Close closes both decoders.
func (m *Measured) Close() error {
	var errs []error
	for _, d := range []whg1.Decoder{m.gpu, m.cpu} {
		if c, ok := d.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// equalTensors reports whether two decodes' outputs are the same tensors.
func equalTensors(a, b []*tensor.T) bool {
	return slices.EqualFunc(a, b, func(x, y *tensor.T) bool { return x.Shape == y.Shape && slices.Equal(x.Data, y.Data) })
}
