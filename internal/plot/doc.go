// Package plot draws the charts people put in docs and slides from a
// result.Document, with gonum.org/v1/plot: PNG or SVG, titled, with units
// on the axes and a legend, readable at a glance.
//
// # Kinds
//
//   - bar: one metric (default tps) per case, grouped like the published
//     tables. Case names "group/label" (e.g. "innodb/trx=1") make clusters
//     of bars, one colour per label; in a sweep each case is a cluster and
//     each sweep point a colour. Bars carry their value, and a 95 %
//     interval when the result has replications.
//   - sweep: a metric (the bar chart's: tps, throughput_per_s,
//     write.iops, ...) on top and p99 latency below against the first
//     swept parameter, one line per case. The saturation knee is marked:
//     the point of highest power, throughput / p99 (Kleinrock's operating
//     point), where adding load stops buying throughput and starts buying
//     latency; along a capacity, where latency falls, the least value
//     within 1 % of the best instead, the best being the lowest for a
//     metric of which less is better (LowerIsBetter). Named values
//     (innodb, file) are categories: their points stand side by side,
//     unjoined, with no knee.
//   - latency: the percentile curve p50, p90, p95, p99, p99.9, max of
//     latency_ms, with the x axis in "nines" (−log10(1−q)) so the tail is
//     not squashed against the right edge.
//   - series: stacked panels over time for TPS, device write MB/s, device
//     %util, checkpoint age and device queue depth, whichever the result
//     has; one line per case.
//   - breakdown: where commit time goes, commit_breakdown_ms stacked per
//     case.
//
// # Missing data
//
// A chart that needs a metric no case has returns an error naming the
// metric path (plot: bar: no case has metric "tpss"); a case
// lacking a metric others have is drawn without it. Supported lists the
// kinds a document can draw, which is what the exporters use.
//
// # Determinism
//
// Output depends only on the document and the options: fonts are the
// Liberation fonts compiled into gonum/plot, colours come from a fixed
// palette (Okabe–Ito, readable by colour-blind readers), and nothing reads
// the clock or the host. The same document gives byte-identical PNG and SVG.
package plot
