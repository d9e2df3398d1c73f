// Package scenarios loads scenario files, resolves their cases and runs
// them. It is the layer between the command line and the models: cmd/simrun
// parses flags and prints; everything a run means lives here.
//
// # Files, layers and provenance
//
// A scenario is a TOML file (docs/scenarios.md has the format). Loading
// resolves each case in layers, each overriding the one before:
//
//	defaults            DefaultSettings, DefaultConfig: every model's DefaultConfig
//	extends chain       the root file first; in each, a section's preset, then its keys
//	[[case]]            the case's own keys (same dotted paths, or nested tables)
//	flags               --seed, --duration, --set
//
// The walk that applies a layer is directed by the Go types (apply.go): a
// struct field is a table, anything else a leaf replaced whole. That one
// walk finds unknown keys, wrong types and bad units, and records for every
// leaf which layer set it, so `simrun explain` can say "file mmc.toml:12" or
// "case busy" for each parameter. Line numbers come from a small scan of the
// source text (positions.go), because the TOML decoder keeps none per key.
//
// After resolution each case is validated: Settings.Validate, each
// section's Validate, and the Validate of the selected variant of a
// section (workload.demo when workload.kind = "demo"). Validate messages
// start with the key they are about ("servers: must be >= 1"); the loader
// turns that key into a full path and the file and line that set it.
// Problems are collected, not stopped at: an ErrorList reports them all.
//
// # Running
//
// Run expands the cases and the sweep grid into rows, runs each row
// Replications times on separate kernels in parallel, and collects results
// in row order, so the document is the same whatever the scheduling. A
// Runner (one per workload kind, registered in runners.go) builds its own
// sim.Env from the seed and returns the metrics of the measured window.
//
// # Adding a section or a workload
//
// A model package exports Config (fields tagged toml, unit and doc),
// DefaultConfig and Validate. Add the Config as a field of scenarios.Config
// and its default in DefaultConfig; a workload kind is a field of Workload
// tagged variant:"kind" plus one line in the runners table.
package scenarios
