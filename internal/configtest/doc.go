// Package configtest holds the one table test every configuration section
// shares: a Validate that rejects a bad value must name the key it rejects.
package configtest
