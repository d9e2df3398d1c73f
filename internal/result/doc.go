// Package result is simrun's result document: the plain value every run
// produces and every report, notebook and check reads. It knows nothing of
// simulations; it encodes, decodes, flattens, aggregates and merges.
//
// # The contract
//
// A Document encodes to JSON with the schema tag "simrun.result/v1"
// (docs/results.md describes every field). Metric names are snake_case with
// the unit in the name (tps, latency_ms, write_kB_per_s). Within a major
// version fields are only ever added, never renamed or removed.
//
// # Determinism
//
// The same Document always encodes to the same bytes: object keys are
// sorted (Metrics is a map, which encoding/json sorts), and floats are
// rounded to 9 significant digits and printed in their shortest form by
// this package rather than by whatever the platform's float arithmetic left
// in the last bits. Encoding is also a fixed point of decoding: Encode(
// Decode(Encode(d))) == Encode(d), which is what makes a merged sweep
// byte-identical to an unsharded one.
//
// # Replications
//
// With N > 1 replications, Aggregate replaces each numeric metric by its
// mean over the replications and adds a sibling NAME_ci95 holding the
// half-width of the 95 % confidence interval (Student's t with N-1 degrees
// of freedom), so readers that only want the mean need not change.
package result
