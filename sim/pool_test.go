package sim

import "testing"

// A pool hands back released objects, last released first, and allocates
// nothing once it holds enough.
func TestPool(t *testing.T) {
	var p Pool[[4]int]
	a, b := p.Get(), p.Get()
	if a == b {
		t.Fatal("two Gets returned one object")
	}
	p.Put(a)
	p.Put(b)
	if p.Get() != b || p.Get() != a {
		t.Fatal("released objects are not reused last-in first-out")
	}
	p.Put(a)
	if allocs := testing.AllocsPerRun(100, func() { p.Put(p.Get()) }); allocs != 0 {
		t.Errorf("%v allocations per Get/Put at the high-water mark", allocs)
	}
}
