// Package execlog reads and writes the execution log, the inline form of a
// context pack (docs/design.md §5 and the extended fields in docs/execution-log.md): what
// ctx-pack takes and what ctx-fork and ctx-show --resolve print.
//
// Log is the one definition of the log in Go: Parse fills it from JSON,
// validating a whole log before anything is written and reporting every
// problem with its JSON path, line and column; the importers build it
// (lib/importer), and Canonical and Check ready what they build for Pack
// as printing and parsing it would, without either; FromManifest builds
// it from a pack; JSON prints it; Pack and Hash pack it. Content is a *Content: a log's own string, base64
// string, file or object reference, or text and bytes in memory (Text,
// Bytes, Quoted, Ref). Content stays in the input buffer until Pack
// streams it into the store, so a log carrying a 1 GiB string or naming a
// 1 GiB file packs in bounded extra memory.
//
// The log maps onto the manifest field by field (skeleton); which content
// goes to which object reference follows manifest.Slots, the one walk over
// a manifest's references, used for packing, checking against a store and
// reading a pack back.
package execlog
