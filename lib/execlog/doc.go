// Package execlog reads and writes the execution log, the inline form of a
// context pack (DESIGN §5): what ctx-pack takes and what ctx-fork and
// ctx-show --resolve print.
//
// Parse validates a whole log before anything is written, reporting every
// problem with its JSON path, line and column. Content stays in the input
// buffer until Pack streams it into the store, so a log carrying a 1 GiB
// string or naming a 1 GiB file packs in bounded extra memory.
package execlog
