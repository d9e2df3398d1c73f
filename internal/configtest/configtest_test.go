package configtest

import (
	"errors"
	"fmt"
	"testing"
)

type cfg struct{ n int }

func (c cfg) Validate() error {
	if c.n < 0 {
		return fmt.Errorf("n: must be >= 0, got %d", c.n)
	}
	return nil
}

type lenient struct{ n int }

func (lenient) Validate() error { return nil }

type wrongKey struct{ n int }

func (wrongKey) Validate() error { return errors.New("m: bad") }

// recorder counts the failures RejectsNaming reports.
type recorder struct {
	testing.TB
	errs int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errs++ }

func TestRejectsNaming(t *testing.T) {
	r := &recorder{TB: t}
	RejectsNaming(r, func() cfg { return cfg{} }, []Case[cfg]{Bad(func(c *cfg) { c.n = -1 }, "n")})
	if r.errs != 0 {
		t.Errorf("a validator naming its key: %d failures, want 0", r.errs)
	}
	r = &recorder{TB: t}
	RejectsNaming(r, func() lenient { return lenient{} }, []Case[lenient]{Bad(func(c *lenient) { c.n = -1 }, "n")})
	if r.errs != 1 {
		t.Errorf("a validator that accepts everything: %d failures, want 1", r.errs)
	}
	r = &recorder{TB: t}
	RejectsNaming(r, func() wrongKey { return wrongKey{} }, []Case[wrongKey]{Bad(func(c *wrongKey) { c.n = -1 }, "n")})
	if r.errs != 1 {
		t.Errorf("a validator naming another key: %d failures, want 1", r.errs)
	}
}
