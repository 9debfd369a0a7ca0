package taxonomy

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
)

// Cache memoizes a Matcher's matches by query: records repeat their names,
// so most lookups of an ingest are served from memory. It holds up to
// about size queries (two generations: when the current one fills up, the
// previous one is dropped), in shards so that all cores can use it at once.
type Cache struct {
	m      Matcher
	per    int
	shards [cacheShards]cacheShard
	hits   atomic.Int64
	misses atomic.Int64
}

const cacheShards = 64

type cacheShard struct {
	mu       sync.Mutex
	cur, old map[string]Match
}

// NewCache wraps m in a cache of about size queries (default 100,000 when
// size <= 0).
func NewCache(m Matcher, size int) *Cache {
	if size <= 0 {
		size = 100_000
	}
	c := &Cache{m: m, per: max(1, size/cacheShards/2)}
	for i := range c.shards {
		c.shards[i].cur = make(map[string]Match)
	}
	return c
}

// Match returns the cached match of q, or asks the wrapped Matcher.
func (c *Cache) Match(ctx context.Context, q Query) (Match, error) {
	key := queryKey(&q)
	s := &c.shards[fnv64(key)%cacheShards]
	s.mu.Lock()
	m, ok := s.cur[key]
	if !ok {
		if m, ok = s.old[key]; ok {
			s.put(key, m, c.per)
		}
	}
	s.mu.Unlock()
	if ok {
		c.hits.Add(1)
		return m, nil
	}
	c.misses.Add(1)
	m, err := c.m.Match(ctx, q)
	if err != nil {
		return m, err
	}
	s.mu.Lock()
	s.put(key, m, c.per)
	s.mu.Unlock()
	return m, nil
}

func (s *cacheShard) put(key string, m Match, per int) {
	if len(s.cur) >= per {
		s.old, s.cur = s.cur, make(map[string]Match, per)
	}
	s.cur[key] = m
}

// Stats returns the cache's hits and misses so far.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// queryKey is a query's cache key: every field, separated.
func queryKey(q *Query) string {
	var b strings.Builder
	for _, s := range [...]string{q.ScientificName, q.Authorship, q.Rank, q.GenericName, q.SpecificEpithet,
		q.InfraspecificEpithet, q.Kingdom, q.Phylum, q.Class, q.Order, q.Family, q.Genus, q.TaxonID} {
		b.WriteString(s)
		b.WriteByte(0x1f)
	}
	for _, f := range [...]bool{q.Strict, q.Verbose, q.Occurrence} {
		if f {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}
