//go:build !linux

package cputime

// Thread reports that the thread's CPU time is not known on this system.
func Thread() (int64, bool) { return 0, false }
