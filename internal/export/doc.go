// Package export turns a result.Document into files people read and teach
// with: a Jupyter notebook, a markdown docs page with its charts beside it,
// and a tidy CSV.
//
//   - ipynb: a notebook (nbformat 4.5) that opens with a markdown
//     introduction drawn from the scenario's description, shows the
//     scenario file and the results as a table, embeds the data in a code
//     cell that loads it into pandas, and redraws each chart with
//     matplotlib. Each chart cell already holds the chart drawn by
//     gonum/plot as a PNG output, so the notebook reads in any viewer
//     (GitHub, nbviewer, an editor) without being run.
//   - md: a page for docs/: the same introduction, scenario and table, with
//     the charts written as image files next to the page.
//   - csv: tidy data, one row per case × metric, with the swept values and
//     the 95 % interval in columns of their own; series are left out (the
//     JSON result holds them).
//
// # Determinism and privacy
//
// The same document and options give byte-identical files, notebook
// metadata included: no timestamps, no kernel or library versions, no
// random cell ids (ids are derived from the cell's role). Nothing is read
// from the host: a scenario name that looks like a path is cut to its base
// name, and the scenario file is shown under its base name only, so
// directories, user names and host names never reach an export.
package export
