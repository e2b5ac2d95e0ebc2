// Package secrets finds secrets in context packs and execution logs, and
// redacts them.
//
// The rules are gitleaks' (github.com/zricethezav/gitleaks/v8, its
// default gitleaks.toml, run by its own detector: keywords, regular
// expressions, entropy thresholds, allowlists, stopwords, and decoding of
// base64, hex and percent-encoded text), plus one rule of ctx's own in
// the same format (ctx.toml: a password in a URL). An allowlist file in
// gitleaks' format adds allowlists for known false positives.
//
// What is scanned is what a reader sees: each object of a pack once, a
// manifest's strings decoded (member names too: a token may be a key), a content object as its text and,
// when that text is a JSON document, each of its strings decoded too (an
// escaped "\n" would hide a key from the rules that look for a line
// break). ScanPack remembers the packs and objects found clean
// (verdict.Cache, keyed by their digest and the rule set's Version), so
// scanning a pack again costs one stat, and a fork only its new objects.
//
// gitleaks runs a rule's expression over a whole fragment whenever one of
// its keywords is in it. Here most rules (plan.go: those whose every
// match holds a keyword, within a reach their expression bounds) run
// only on windows around their keywords' places, and only where a
// relaxed form of the expression (gate) matches there; every rule runs,
// decoding as gitleaks does, on the lines around what gitleaks' decoder
// would decode; the few others run on every fragment as before
// (window.go). The findings are the same as the whole scan's
// (detectWhole), which the tests and a fuzz target compare.
//
// Only ctx-redact links this package (gitleaks brings archive readers and
// report templates that would slow every start of ctx-pack); the other
// tools run ctx-redact, and read verdicts with lib/secrets/verdict.
//
// RedactLog replaces each secret of an execution log by its Mark,
// [REDACTED:<rule>:<first 8 hex of the secret's SHA-256>], the same for
// the same secret everywhere, followed by the line breaks the secret
// spanned (so numbered lines keep their numbers), in whichever JSON
// escaping a text writes it (\/, \u0041…), and records
// {"marks","scanner"} under metadata.redaction. Nothing else changes.
// A value a secret was found in is scanned again once rewritten: a
// secret still there (held percent- or hex-encoded, which gitleaks
// decodes but ctx does not rewrite) fails the redaction.
//
// A Finding names the rule, the pack, the object, the JSON path and the
// line; no value of this package ever carries a secret out of it, and the
// detector's own logging, which would, is silenced.
package secrets
