// Package headless runs a live capture without the terminal UI (usmnscope
// live --stats, --count, --duration): the capture is decoded exactly as
// the TUI would decode it (a pipeline.Decode's Feed) until a signal, a
// packet count or a duration stops it, and one line of totals is printed,
// so that throughput can be measured without scraping a terminal
// (bench/report.sh reads the line). It knows no protocol: the totals are
// the capture's and the index's.
package headless
