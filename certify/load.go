package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// LoadRole is the role name a graph loaded on its own carries in its
// certificate.
const LoadRole = "graph"

// Load reads one WHG1 graph and loads it against profile (Acc32 or
// Acc64): §10.5 steps 1–7 (whg1.Parse), then step 8, the bounds pass with
// lut16's range check, and the profile against the verdict (§8.6). A graph
// whose verdict does not meet the profile is refused (model_mismatch).
//
// Verdicts are cached by the SHA-256 of the graph's bytes (§8.6), so a
// second Load of the same bytes, under either profile, skips the parse and
// the pass. It is safe for concurrent use.
func Load(b []byte, profile Profile) (*whg1.Graph, *Certificate, error) {
	return defaultCache.Load(b, profile)
}

// CachedVerdict is the verdict of one WHG1 graph, through the same cache as
// Load: a graph that Parse or the pass refuses gives that refusal.
func CachedVerdict(b []byte) (*Verdict, error) {
	e, err := defaultCache.entry(b)
	if err != nil {
		return nil, err
	}
	return &e.cert.Verdict, nil
}

// Cache keeps parsed graphs with their certificates, keyed by the SHA-256
// of the graph's bytes. A graph that Parse or the pass refuses is not kept
// (§8.6). It holds at most Max entries (256 when Max is 0), dropping one
// when full. It is safe for concurrent use.
type Cache struct {
	Max int

	mu      sync.Mutex
	entries map[[32]byte]*cacheEntry
}

type cacheEntry struct {
	g    *whg1.Graph
	cert *Certificate
}

var defaultCache = &Cache{}

// Load is the package Load through this cache.
func (c *Cache) Load(b []byte, profile Profile) (*whg1.Graph, *Certificate, error) {
	if !profile.Valid() {
		return nil, nil, fmt.Errorf("certify: unknown profile %q (want acc32 or acc64)", profile)
	}
	e, err := c.entry(b)
	if err != nil {
		return nil, nil, err
	}
	if v := &e.cert.Verdict; !v.Meets(profile) {
		f := v.Acc64Failure
		if profile == Acc32 {
			f = v.Acc32Failure
		}
		return nil, nil, refusal.New(refusal.ModelMismatch, "the certificate does not meet %s: first failure %v", profile, f)
	}
	return e.g, e.cert, nil
}

// entry parses and certifies b on its own (role LoadRole, lowering "whg1",
// set_sha256 the digest of b), or returns the kept result.
func (c *Cache) entry(b []byte) (*cacheEntry, error) {
	key := sha256.Sum256(b)
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	g, err := whg1.Parse(b)
	if err != nil {
		return nil, err
	}
	setSum := hex.EncodeToString(key[:])
	cert, err := Certify(nil, "whg1", &setSum, []Role{{Name: LoadRole, Bytes: b, Graph: g}})
	if err != nil {
		return nil, err
	}
	e = &cacheEntry{g, cert}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[32]byte]*cacheEntry{}
	}
	limit := c.Max
	if limit <= 0 {
		limit = 256
	}
	for k := range c.entries {
		if len(c.entries) < limit {
			break
		}
		delete(c.entries, k)
	}
	c.entries[key] = e
	return e, nil
}
