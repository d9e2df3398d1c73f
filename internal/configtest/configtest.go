package configtest

import (
	"strings"
	"testing"
)

// Case is one bad configuration: Mutate spoils a default, Key is the toml
// key path the error must name.
type Case[C any] struct {
	Mutate func(*C)
	Key    string
}

// RejectsNaming spoils def() by each case and checks that Validate fails
// with an error naming the case's key (as "key:").
func RejectsNaming[C interface{ Validate() error }](t testing.TB, def func() C, cases []Case[C]) {
	t.Helper()
	for _, tc := range cases {
		c := def()
		tc.Mutate(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.Key+":") {
			t.Errorf("want an error naming %s, got %v", tc.Key, err)
		}
	}
}

// Bad returns the case that spoils a configuration with mutate and expects
// key in the error.
func Bad[C any](mutate func(*C), key string) Case[C] { return Case[C]{Mutate: mutate, Key: key} }
