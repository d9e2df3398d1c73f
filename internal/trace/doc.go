// Package trace records what a simulation did in a window of virtual time
// and writes it as a Chrome Trace Event file, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: client threads, statements,
// commit groups, fsyncs, page flushes and device I/Os each on a track of
// their own, so a person can see where a transaction waited.
//
// # Cost when off
//
// Models call the recorder unconditionally. Every method is safe on a nil
// *Recorder and then returns at once, so a run without tracing pays one
// nil check per call and allocates nothing (BenchmarkNilRecorder). A
// non-nil recorder drops events outside its window with two comparisons,
// and copies the arguments of a kept event into one shared slice, so the
// variadic argument list never escapes to the heap.
//
// # Tracks and lanes
//
// Track("client/3") names a track; the part before the first "/" is its
// group, which becomes a process in the viewer (clients, commit, disk, ...),
// and the rest is the thread. Track IDs are handed out in creation order,
// and asking again for a name returns the same ID.
//
// Spans on one track must nest to be drawn on one row. A device has many
// I/Os in flight at once, which overlap without nesting; rather than make
// every model manage rows, WriteJSON lays each track's spans out in lanes:
// a span goes to the first lane where it either starts after everything
// open has ended or nests inside the innermost open span. Lane 1 keeps the
// track's name; lane k is shown as "name #k". The layout depends only on
// the spans, so it is deterministic.
//
// # Window
//
// Only what overlaps [from, to) is kept. A span that crosses an edge is
// clipped to the window and gets the argument "clipped": true. A counter's
// last value before the window is replayed at its start, so a counter track
// begins at the right level. A flow arrow is kept when both ends are in the
// window.
//
// # Output
//
// WriteJSON writes the JSON object form of the Trace Event format: metadata
// events naming processes and threads, then one event per line sorted by
// time (ties: longer spans first, then recording order). Timestamps are
// microseconds with nanosecond precision printed from integers, so the same
// recording always gives the same bytes. Nothing about the host, the
// wall clock or the file system is written.
package trace
