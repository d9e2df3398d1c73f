// Package sim is simrun's discrete-event kernel: a virtual clock, an event
// queue, the resources every model shares, and named random streams.
//
// # Time and event order
//
// Virtual time is an integer count of nanoseconds ([Time]). Every event is
// ordered by (time, sequence number); the sequence number is taken when the
// event is scheduled, so events due at the same instant run in the order they
// were scheduled. Same model + same seed ⇒ the same event order ⇒ the same
// output, whatever GOMAXPROCS is: a simulation runs on one goroutine.
//
// The queue is a radix heap of small value entries (time, sequence, slot);
// the callbacks live in a slab indexed by slot, so scheduling and running an
// event allocate nothing once the slab has grown to the model's high-water
// mark. Events scheduled for the current instant (a group commit waking its
// waiters, a resource handing itself to the next job) bypass the heap through
// a FIFO ring: they are already in (time, sequence) order. An [Alarm] is a
// timer with a fixed callback and at most one firing pending (a processor's
// end of segment); the armed alarms sit in a short sorted array beside the
// queue, in the same (time, sequence) order, so the most frequent events of
// a CPU-bound model take no slab slot and no queue entry.
//
// Cancelling an event ([Env.Cancel]) frees its slot at once; the heap entry
// is discarded lazily when it reaches the top, recognised by its sequence
// number no longer matching the slot's.
//
// # Processes
//
// Processes are callbacks and small state machines, not goroutines. A
// callback is either a func() or a func(any) with an argument; passing a
// pointer as the argument, and binding method values once at construction,
// keeps the steady state allocation-free.
//
// # Randomness
//
// [Env.Stream] returns a stream derived from the run seed and the
// component's name (PCG seeded with (seed, FNV-1a(name))), so adding a
// component never changes another component's draws. The conversion from
// raw bits to floats and the sampling of distributions ([Sample]) are pinned
// here rather than taken from math/rand/v2 or gonum's Rand methods, so a Go
// or gonum upgrade cannot shift golden outputs.
//
// # Resources
//
// [Station] is a k-server FIFO queue (device channels, worker pools);
// [CPU] is a machine's processors shared by threads: bursts of query CPU
// that yield at query boundaries to threads waking from a sleep (WakeFirst),
// or, chosen with [NewCPUWithPolicy], shared as Linux's EEVDF shares them
// (Fair: placement by lag, earliest eligible deadline, preemption only past
// a thread's share or slice);
// [TokenBucket] is an exact integer rate limiter (IOPS and byte caps) that
// can say when the next tokens are due; [WaitQueue] is a FIFO of parked
// callbacks with wake-ups; [Latch] releases its waiters when a count reaches
// zero.
//
// Misuse is a programming error and panics with a message starting "sim:":
// scheduling in the past, a negative delay, a token bucket with zero rate.
package sim
