package kernelpack

import (
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/visible"
)

// Exit codes of the kernel's pack-verify CLI (PACK_SPEC §7.3), which
// ctx-verify --kernel-pack keeps.
const (
	ExitValid   = 0 // the pack is valid
	ExitInvalid = 1 // violations found
	ExitIO      = 2 // an IO violation (pack missing, not a directory, unreadable), or verification aborted
	ExitUsage   = 3 // bad arguments; never returned by Verify, for the CLI
)

// ExitCode is 0 for a valid pack, 2 when any violation has rule ID "IO" or
// verification aborted (Err), and 1 otherwise.
func (r *Result) ExitCode() int {
	switch {
	case r.Err != nil:
		return ExitIO
	case r.OK:
		return ExitValid
	}
	for _, v := range r.Violations {
		if v.RuleID == "IO" {
			return ExitIO
		}
	}
	return ExitInvalid
}

// JSON returns the verifier's stdout: the kernel's canonical JSON of the
// result followed by "\n". On success the keys are files_verified, ok,
// pack_path, reference_checks; on failure ok, pack_path, violations. It
// returns nil when Err is set, since the kernel then prints nothing.
func (r *Result) JSON() []byte {
	if r.Err != nil {
		return nil
	}
	s, err := canonicalize(r.value())
	if err != nil {
		// Only strings and booleans go in: canonicalize cannot fail.
		panic("kernelpack: canonicalizing a result: " + err.Error())
	}
	return []byte(s + "\n")
}

// value builds the result as the kernel's verifyPack returns it.
func (r *Result) value() value {
	o := newObject()
	o.set("ok", r.OK)
	o.set("pack_path", r.PackPath)
	if !r.OK {
		vs := &array{}
		for _, v := range r.Violations {
			e := newObject()
			e.set("rule_id", v.RuleID)
			e.set("path", v.Path)
			e.set("message", v.Message)
			vs.elems = append(vs.elems, e)
		}
		o.set("violations", vs)
		return o
	}
	files := &array{}
	for _, f := range r.FilesVerified {
		files.elems = append(files.elems, f)
	}
	o.set("files_verified", files)
	refs := &array{}
	for _, c := range r.ReferenceChecks {
		e := newObject()
		e.set("source", c.Source)
		e.set("target", c.Target)
		e.set("field", c.Field)
		e.set("expected", c.Expected)
		if c.Computed == "" {
			e.set("computed", null)
		} else {
			e.set("computed", c.Computed)
		}
		e.set("match", c.Match)
		refs.elems = append(refs.elems, e)
	}
	o.set("reference_checks", refs)
	return o
}

// Human renders the result for reading: a verdict line, then the files and
// reference check of a valid pack, or one line per violation.
func (r *Result) Human() string {
	var b strings.Builder
	path := readable(r.PackPath)
	switch {
	case r.Err != nil:
		fmt.Fprintf(&b, "kernel pack %s: verification aborted: %s\n", path, readable(r.Err.Error()))
	case r.OK:
		fmt.Fprintf(&b, "kernel pack %s: valid\n", path)
		fmt.Fprintf(&b, "  files verified: %s\n", readable(strings.Join(r.FilesVerified, ", ")))
		for _, c := range r.ReferenceChecks {
			fmt.Fprintf(&b, "  %s %s -> %s: match (%s)\n", c.Source, c.Field, c.Target, readable(c.Computed))
		}
		if len(r.ReferenceChecks) == 0 {
			b.WriteString("  no reference checks\n")
		}
	default:
		n := len(r.Violations)
		plural := "s"
		if n == 1 {
			plural = ""
		}
		fmt.Fprintf(&b, "kernel pack %s: invalid, %d violation%s\n", path, n, plural)
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "  %-4s %s: %s\n", v.RuleID, visible.Escape(readable(v.Path)), visible.Escape(readable(v.Message)))
		}
	}
	return b.String()
}

// readable shows lone surrogates, which WTF-8 strings may hold and no
// terminal can show, as \u escapes. Terminal controls are left to the
// printer (cli.Env.Text escapes every human rendering).
func readable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		if r >= 0xD800 && r <= 0xDFFF {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
