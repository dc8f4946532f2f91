// Package bounded keeps what a process worked out once and may be asked again, bounded: a map
// that forgets everything when it would grow past its bound.
package bounded

import "sync"

// Map is safe for concurrent use. Its zero value, with Max set, is ready to use.
type Map[K comparable, V any] struct {
	// Max bounds what it holds, in Cost; an entry costing more is never kept.
	Max int
	// Cost is what an entry weighs against Max; nil: 1 each.
	Cost func(K, V) int

	mu   sync.Mutex
	m    map[K]V
	size int
}

// Get returns what k was put with.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v for k, first forgetting everything when v would take the map past Max.
func (c *Map[K, V]) Put(k K, v V) {
	cost := 1
	if c.Cost != nil {
		cost = c.Cost(k, v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.size+cost > c.Max {
		c.m, c.size = map[K]V{}, 0
	}
	if cost <= c.Max {
		c.m[k] = v
		c.size += cost
	}
}

// Size is what it holds, in Cost.
func (c *Map[K, V]) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Reset forgets everything.
func (c *Map[K, V]) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.size = nil, 0
}
