package stats

// Counter is a monotone event count (commits, fsyncs, bytes written). The
// zero value is ready to use.
type Counter struct {
	n int64
}

// Add adds n to the count.
func (c *Counter) Add(n int64) { c.n += n }

// Value returns the count.
func (c *Counter) Value() int64 { return c.n }

// Reset sets the count to zero, e.g. at the end of warm-up.
func (c *Counter) Reset() { c.n = 0 }
