// Package stats is the exact arithmetic of usmnscope's statistics
// (outputs.md "usmnscope stats" and the latency keys of "tables --json"):
// percentiles, the median, the mean and the jitter of latencies, and the
// rates of a value counted per time interval. It knows no protocol and
// imports nothing of the module, so that the session's tables (session,
// rpc) and the stats command's attribution (stats/report) share one rule.
//
// # Rules
//
// Every figure is exact over the values given, in whole nanoseconds:
//
//   - median: over an even count the lower of the two middle values
//     (outputs.md "tables --json");
//   - pP (p90, p95, p99): nearest rank, the smallest value that at least
//     P % of the values are less than or equal to: the value of rank
//     ceil(P × n / 100) (from 1) in ascending order;
//   - mean: the sum divided by the count, rounded down (toward minus
//     infinity), summed without overflow;
//   - jitter: the mean absolute difference between consecutive values in
//     the order they were added (the order the answers arrived), rounded
//     down; 0 for one value.
//
// Latencies accumulates values by distinct value with their counts, so its
// memory follows the distinct latencies (bounded by the clock's resolution
// and the spread), not the count.
package stats
