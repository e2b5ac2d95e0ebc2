// Package exitcode is the one table of exit codes every ctx binary uses
// (docs/design.md §2), with the text every --help ends with. It imports nothing,
// so that the ctx front, which must start fast, shares it.
package exitcode

// The exit codes.
const (
	OK      = 0 // success; no drift; valid; verified; replay exact
	Finding = 1 // a negative finding: drift, invalid log or pack, …
	Error   = 2 // operational error: no store, not found, I/O, corrupt
	Usage   = 3 // bad flags or arguments
	Replay  = 4 // replay failed: a step could not be executed
)

// Table is shown at the end of every --help.
const Table = `Exit codes:
  0  success; no drift; valid; verified; replay exact
  1  a negative finding: drift found, invalid log or pack, artifact modified
     or without provenance, replay degraded
  2  operational error: no store, pack or object not found, I/O error,
     corrupt object
  3  usage error: bad flags or arguments
  4  replay failed: a step could not be executed`
