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

// Load reads one WHG1 graph and loads it against profile ("acc32" or
// "acc64"): §10.5 steps 1–7 (whg1.Parse), then step 8, the bounds pass with
// lut16's range check, and the profile against the verdict (§8.6). A graph
// whose verdict does not meet the profile is refused (model_mismatch).
//
// Graphs that loaded are kept in a cache keyed by the SHA-256 of their
// bytes and the profile (§8.6), so a second Load of the same bytes skips
// the parse and the pass. It is safe for concurrent use.
func Load(b []byte, profile string) (*whg1.Graph, *Certificate, error) {
	return defaultCache.Load(b, profile)
}

// Cache keeps the graphs that loaded, with their certificates, keyed by the
// SHA-256 of the graph's bytes and the profile. A refused graph is not kept
// (§8.6). It holds at most Max entries (256 when Max is 0), dropping one
// when full.
type Cache struct {
	Max int

	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
}

type cacheKey struct {
	sum     [32]byte
	profile string
}

type cacheEntry struct {
	g    *whg1.Graph
	cert *Certificate
}

var defaultCache = &Cache{}

// Load is the package Load through this cache.
func (c *Cache) Load(b []byte, profile string) (*whg1.Graph, *Certificate, error) {
	if profile != Acc32 && profile != Acc64 {
		return nil, nil, fmt.Errorf("certify: unknown profile %q (want acc32 or acc64)", profile)
	}
	key := cacheKey{sha256.Sum256(b), profile}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e.g, e.cert, nil
	}
	g, err := whg1.Parse(b)
	if err != nil {
		return nil, nil, err
	}
	setSum := hex.EncodeToString(key.sum[:])
	cert, err := Certify(nil, "whg1", &setSum, []Role{{Name: LoadRole, Bytes: b, Graph: g}})
	if err != nil {
		return nil, nil, err
	}
	if !cert.Verdict.Meets(profile) {
		f := cert.Verdict.Acc64Failure
		if profile == Acc32 {
			f = cert.Verdict.Acc32Failure
		}
		return nil, nil, refusal.New(refusal.ModelMismatch, "the certificate does not meet %s: first failure %v", profile, f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[cacheKey]cacheEntry{}
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
	c.entries[key] = cacheEntry{g, cert}
	return g, cert, nil
}
