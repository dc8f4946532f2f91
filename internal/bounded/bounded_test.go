package bounded

import "testing"

// TestMap: what is put is got until the map would pass Max, when it forgets everything; an
// entry costing more than Max is never kept.
func TestMap(t *testing.T) {
	c := Map[string, int]{Max: 2}
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("a: %d %v", v, ok)
	}
	c.Put("c", 3) // past Max: a and b are forgotten
	if _, ok := c.Get("a"); ok {
		t.Error("a kept past Max")
	}
	if v, ok := c.Get("c"); !ok || v != 3 || c.Size() != 1 {
		t.Errorf("c: %d %v, size %d", v, ok, c.Size())
	}
	c.Reset()
	if _, ok := c.Get("c"); ok || c.Size() != 0 {
		t.Error("c kept past Reset")
	}
	w := Map[string, string]{Max: 4, Cost: func(k, v string) int { return len(v) }}
	w.Put("big", "12345")
	if _, ok := w.Get("big"); ok {
		t.Error("an entry over Max kept")
	}
	w.Put("x", "1234")
	if _, ok := w.Get("x"); !ok {
		t.Error("an entry of Max not kept")
	}
}
