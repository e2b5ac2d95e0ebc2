// Package grep searches the content of a store's packs: ctx-grep's
// engine.
//
// A Matcher finds the matching lines of one text (match.go): an RE2
// regular expression or a fixed string, matched line by line, with a
// literal prefilter so that the regular expression runs only on lines
// that may match. Search (search.go) walks the packs to search, gathers
// the places (prompts, step outputs, reasoning, tool parameters, inputs,
// outputs) that reference each object, and searches each object once,
// however many packs share it, in parallel; it hands back one Result per
// object that matches, with every place that references it, in the order
// the places were first met, as it goes. It gathers the places of 256
// packs at a time, so that what it holds is bounded by those, not by the
// store: an object met again in a later window is not searched again, and
// when it matched, its Result comes again with that window's places.
//
// What is searched is the stored bytes: a redacted pack holds marks
// ([REDACTED:rule:prefix]) where its secrets were, and a search sees the
// marks, never the secrets.
package grep
