package kernelpack

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options selects the optional parts of verification. The kernel's CLI (and
// ctx-verify) default to both true: Options{Deep: true, Refs: true}.
type Options struct {
	// Deep validates bundle.json (PK4), the optional files (PK8) and the
	// ledger (PK9); --no-deep clears it. meta.json's JSON check runs anyway.
	Deep bool
	// Refs checks run.json's bundle.sha256 against bundle.json (PK5);
	// --no-refs clears it, and reference_checks is then empty.
	Refs bool
}

// Violation is one broken rule. Path is a file name inside the pack, or the
// pack path itself for IO and pack-level PK7 violations. Strings may carry
// lone surrogates taken from pack files, encoded WTF-8 style; JSON writes
// them as \udxxx escapes.
type Violation struct {
	RuleID  string // "PK1" … "PK12", or "IO"
	Path    string
	Message string
}

// ReferenceCheck is the run.json → bundle.json hash comparison (PK5).
type ReferenceCheck struct {
	Source   string // "run.json"
	Target   string // "bundle.json"
	Field    string // "bundle.sha256"
	Expected string // run.json's bundle.sha256, verbatim
	Computed string // "sha256:" + canonicalHash(bundle), or "" (JSON null) when bundle.json cannot be parsed or canonicalised
	Match    bool
}

// Result is the verifier's verdict on one pack.
type Result struct {
	PackPath        string // the path exactly as given to Verify
	OK              bool
	FilesVerified   []string         // regular files in the pack, sorted; reported only when OK
	ReferenceChecks []ReferenceCheck // 0 or 1 entries; reported only when OK
	Violations      []Violation      // sorted by rule ID, path, message (UTF-16 order)

	// Err is set when the reference verifier would have thrown instead of
	// returning a result (for instance a null element in bundle.json's
	// outputs, which its checks read properties of). Its CLI then prints
	// nothing on stdout, "IO_ERROR: <message>" on stderr, and exits 2.
	Err error
}

// manifest lists the files a pack may contain (PACK_SPEC §3.1).
var manifest = []string{"run.json", "bundle.json", "patch.json", "evidence.json", "ledger.jsonl", "policy.json", "model_io.json", "runner.json", "meta.json"}

// Verify checks the Run Export Pack directory at path (relative to the
// working directory, or absolute) against PACK_SPEC 1.0.0, the way the
// kernel's reference verifier does, and returns its verdict. The result
// echoes path exactly as given. Verify never prints.
func Verify(path string, opts Options) *Result {
	v := &verifier{given: path, display: decodeText([]byte(path)), opts: opts, files: map[string]*packFile{}}
	r := &Result{PackPath: v.display}
	if err := v.run(); err != nil {
		var js *jsError
		if !errors.As(err, &js) {
			err = &jsError{msg: err.Error()}
		}
		r.Err = err
		return r
	}
	sortViolations(v.violations)
	r.Violations = v.violations
	if len(v.violations) == 0 {
		r.OK = true
		r.FilesVerified = v.filesVerified
		slices.SortFunc(r.FilesVerified, compareUTF16)
		r.ReferenceChecks = v.refs
	}
	if r.ReferenceChecks == nil && r.OK {
		r.ReferenceChecks = []ReferenceCheck{}
	}
	return r
}

type verifier struct {
	given   string // the path as given, for the file system
	display string // the path as the kernel sees it, for output
	opts    Options
	dir     string // the resolved absolute path

	violations    []Violation
	filesVerified []string
	refs          []ReferenceCheck
	files         map[string]*packFile
}

func (v *verifier) add(rule, path, msg string) {
	v.violations = append(v.violations, Violation{RuleID: rule, Path: normalize(path), Message: normalize(msg)})
}

// packFile caches one file's parse, so bundle.json is read once for PK4 and PK5.
type packFile struct {
	val value
	err error
}

func (v *verifier) run() error {
	// PK7: the pack path itself. Checking goes on.
	if strings.Contains(v.display, "..") || nodeNormalize(v.display) != v.display {
		v.add("PK7", v.display, "pack path contains traversal patterns")
	}

	// The kernel resolves the path lexically (path.resolve) before touching
	// the file system, so "link/" and "link/../x" behave as it does.
	dir, err := filepath.Abs(v.given)
	if err != nil {
		return err
	}
	v.dir = dir
	if _, err := os.Stat(dir); err != nil {
		v.violations = []Violation{{RuleID: "IO", Path: v.display, Message: "pack directory does not exist"}}
		return nil
	}
	// A symlink to a directory stops here too, so the kernel's later
	// "pack path is a symbolic link" (PK6) check can never fire.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		v.violations = []Violation{{RuleID: "IO", Path: v.display, Message: "pack path is not a directory"}}
		return nil
	}
	entries, err := readDirNames(dir)
	if err != nil {
		v.violations = []Violation{{RuleID: "IO", Path: v.display, Message: "failed to read directory: " + ioReason(err, v.display)}}
		return nil
	}

	// PK2 and PK7 for every entry.
	for _, name := range entries {
		if !slices.Contains(manifest, name) {
			v.add("PK2", name, "unknown file in pack: "+name)
		}
		if name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
			v.add("PK7", name, "invalid filename: "+name)
		}
	}
	// PK6 and PK12; subdirectories are never descended into.
	for _, name := range entries {
		fi, err := os.Lstat(filepath.Join(dir, name))
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			v.add("PK6", name, "file is a symbolic link: "+name)
		case err != nil || !fi.Mode().IsRegular():
			v.add("PK12", name, "not a regular file: "+name)
		default:
			v.filesVerified = append(v.filesVerified, name)
		}
	}

	// run.json decides which files are required.
	var run value // nil: absent or unparseable
	kind := ""
	if v.isFile("run.json") {
		r := v.parse("run.json")
		if r.err != nil {
			v.add("PK3", "run.json", "failed to parse: "+r.err.Error())
		} else {
			run = r.val
			kind = resultKind(run)
			if err := v.checkRun(run); err != nil {
				return err
			}
		}
	} else {
		v.add("PK1", "run.json", "required file missing: run.json")
	}
	if isNull(run) {
		run = nil
	}

	hasBundle := v.isFile("bundle.json")
	if kind != "REFUSE" && !hasBundle {
		v.add("PK1", "bundle.json", "required file missing: bundle.json (required for BUNDLE/CLARIFY outcomes)")
	}

	// PK4
	if hasBundle && v.opts.Deep {
		b := v.parse("bundle.json")
		if b.err != nil {
			v.add("PK4", "bundle.json", "failed to parse: "+b.err.Error())
		} else {
			subs, err := verifyBundle(b.val)
			if err != nil {
				return err
			}
			v.addSubs("PK4", "bundle.json", subs)
		}
	}

	// PK5
	if v.opts.Refs && run != nil && hasBundle {
		if expected, ok := bundleRef(run); ok {
			computed := ""
			if b := v.parse("bundle.json"); b.err == nil {
				if h, err := canonicalHash(b.val); err == nil {
					computed = "sha256:" + h
				}
			}
			match := expected == computed
			v.refs = append(v.refs, ReferenceCheck{Source: "run.json", Target: "bundle.json", Field: "bundle.sha256", Expected: expected, Computed: computed, Match: match})
			if !match {
				shown := computed
				if shown == "" {
					shown = "null"
				}
				v.add("PK5", "bundle.json", "hash mismatch: run.json references "+expected+", but bundle.json computes to "+shown)
			}
		}
	}

	// PK8 and PK9
	if v.opts.Deep {
		if err := v.checkOptional(run); err != nil {
			return err
		}
		v.checkLedger()
	}

	// PK11: meta.json must parse, even without deep validation; a failure is
	// reported as PK8.
	if v.isFile("meta.json") {
		if m := v.parse("meta.json"); m.err != nil {
			v.add("PK8", "meta.json", "invalid JSON: "+m.err.Error())
		}
	}
	return nil
}

func (v *verifier) addSubs(rule, file string, subs []subViolation) {
	for _, s := range subs {
		v.add(rule, file, s.Rule+": "+s.Message)
	}
}

// checkRun is PK3: required fields and a known kernel_result_kind.
func (v *verifier) checkRun(run value) error {
	if !isObjectLike(run) {
		v.add("PK3", "run.json", "run.json must be a JSON object")
		return nil
	}
	for _, f := range []string{"run_schema_version", "run_id", "started_at", "completed_at", "kernel_version", "policy", "intent", "kernel_result_kind", "decision", "model_mode"} {
		if !has(run, f) {
			v.add("PK3", "run.json", "missing required field: "+f)
		}
	}
	if resultKind(run) == "" && has(run, "kernel_result_kind") {
		s, err := toString(run.(*object).prop("kernel_result_kind"))
		if err != nil {
			return err
		}
		v.add("PK3", "run.json", "invalid kernel_result_kind: "+s)
	}
	return nil
}

// resultKind is run.kernel_result_kind when it is BUNDLE, CLARIFY or REFUSE.
func resultKind(run value) string {
	o, ok := run.(*object)
	if !ok {
		return ""
	}
	switch k, _ := o.prop("kernel_result_kind").(string); k {
	case "BUNDLE", "CLARIFY", "REFUSE":
		return k
	}
	return ""
}

// bundleRef is run.bundle.sha256 when run.bundle carries string bundle_id and sha256.
func bundleRef(run value) (string, bool) {
	o, ok := run.(*object)
	if !ok {
		return "", false
	}
	b, ok := o.prop("bundle").(*object)
	if !ok {
		return "", false
	}
	_, idOK := b.prop("bundle_id").(string)
	sha, shaOK := b.prop("sha256").(string)
	return sha, idOK && shaOK
}

// checkOptional is PK8 for patch.json, evidence.json, policy.json,
// model_io.json and runner.json, in the reference's order.
func (v *verifier) checkOptional(run value) error {
	if v.isFile("patch.json") {
		if p := v.parse("patch.json"); p.err != nil {
			v.add("PK8", "patch.json", "failed to parse: "+p.err.Error())
		} else {
			subs, err := verifyPatch(p.val)
			if err != nil {
				return err
			}
			v.addSubs("PK8", "patch.json", subs)
		}
	}

	if v.isFile("evidence.json") {
		if e := v.parse("evidence.json"); e.err != nil {
			v.add("PK8", "evidence.json", "failed to parse: "+e.err.Error())
		} else if !isObjectLike(e.val) {
			v.add("PK8", "evidence.json", "evidence.json must be an object")
		} else {
			for _, f := range []string{"proposal_id", "proposal_hash", "action_results", "test_results", "status"} {
				if !has(e.val, f) {
					v.add("PK8", "evidence.json", "missing required field: "+f)
				}
			}
		}
	}

	// policy.json is read whenever it exists, even as a symlink or a
	// directory (the reference checks only existsSync here).
	if v.exists("policy.json") {
		if p := v.parse("policy.json"); p.err != nil {
			v.add("PK8", "policy.json", "failed to parse: "+p.err.Error())
		} else if o, ok := run.(*object); ok {
			if embedded := o.prop("policy"); !isUndefined(embedded) {
				a, errA := canonicalize(embedded)
				b, errB := canonicalize(p.val)
				// A canonicalisation failure skips the comparison.
				if errA == nil && errB == nil && a != b {
					v.add("PK8", "policy.json", "policy.json does not match run.json embedded policy")
				}
			}
		}
	}

	if v.isFile("model_io.json") {
		if m := v.parse("model_io.json"); m.err != nil {
			v.add("PK8", "model_io.json", "failed to parse: "+m.err.Error())
		} else {
			subs, err := verifyModelIO(m.val)
			if err != nil {
				return err
			}
			v.addSubs("PK8", "model_io.json", subs)
		}
	}

	if v.isFile("runner.json") {
		if r := v.parse("runner.json"); r.err != nil {
			v.add("PK8", "runner.json", "failed to parse: "+r.err.Error())
		} else {
			v.addSubs("PK8", "runner.json", verifyRunner(r.val))
		}
	}
	return nil
}

var ledgerFields = []string{"run_id", "timestamp", "intent_sha256", "result_kind", "accepted", "mode", "policy"}

// checkLedger is PK9. Blank lines are dropped before numbering.
func (v *verifier) checkLedger() {
	if !v.exists("ledger.jsonl") {
		return
	}
	data, err := v.read("ledger.jsonl")
	if err != nil {
		v.add("PK9", "ledger.jsonl", "failed to read ledger: "+err.Error())
		return
	}
	n := 0
	for _, line := range strings.Split(decodeText(data), "\n") {
		if jsTrim(line) == "" {
			continue
		}
		n++
		prefix := "line " + itoa(n) + ": "
		entry, err := parseText(line)
		switch {
		case err != nil:
			v.add("PK9", "ledger.jsonl", prefix+"invalid JSON")
		case !isObjectLike(entry):
			v.add("PK9", "ledger.jsonl", prefix+"entry must be an object")
		default:
			for _, f := range ledgerFields {
				if !has(entry, f) {
					v.add("PK9", "ledger.jsonl", prefix+"missing field "+f)
				}
			}
		}
	}
}

// exists is Node's existsSync: the name resolves (symlinks followed).
func (v *verifier) exists(name string) bool {
	_, err := os.Stat(filepath.Join(v.dir, name))
	return err == nil
}

// isFile is existsSync(p) && isRegularFile(p): a regular file, not a symlink.
func (v *verifier) isFile(name string) bool {
	fi, err := os.Lstat(filepath.Join(v.dir, name))
	return err == nil && fi.Mode().IsRegular()
}

// read reads a pack file, following symlinks. It refuses FIFOs, devices and
// sockets, which the reference would block on or read as a stream.
func (v *verifier) read(name string) ([]byte, error) {
	p := filepath.Join(v.dir, name)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, errors.New(ioReason(err, name))
	}
	if fi.IsDir() {
		// What readFileSync throws, word for word.
		return nil, errors.New("EISDIR: illegal operation on a directory, read")
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(name + ": not a regular file")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, errors.New(ioReason(err, name))
	}
	return data, nil
}

// parse reads and parses a pack file once.
func (v *verifier) parse(name string) *packFile {
	if f, ok := v.files[name]; ok {
		return f
	}
	f := &packFile{}
	data, err := v.read(name)
	if err != nil {
		f.err = err
	} else if f.val, err = parseBytes(data); err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.File = name
		}
		f.err = err
	}
	v.files[name] = f
	return f
}

// ioReason renders a file-system error as "<name>: <reason>".
func ioReason(err error, name string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return name + ": " + pe.Err.Error()
	}
	return name + ": " + err.Error()
}

// readDirNames lists a directory as Node's readdirSync(...).sort() does:
// names decoded as UTF-8 (invalid bytes become U+FFFD), dotfiles included,
// sorted by UTF-16 code units.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(raw))
	for i, n := range raw {
		names[i] = decodeText([]byte(n))
	}
	slices.SortFunc(names, compareUTF16)
	return names, nil
}

// nodeNormalize is Node's path.posix.normalize.
func nodeNormalize(p string) string {
	if p == "" {
		return "."
	}
	abs := p[0] == '/'
	trailing := p[len(p)-1] == '/'
	var out []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
			} else if !abs {
				out = append(out, "..")
			}
		default:
			out = append(out, seg)
		}
	}
	s := strings.Join(out, "/")
	if s == "" {
		if abs {
			return "/"
		}
		if trailing {
			return "./"
		}
		return "."
	}
	if trailing {
		s += "/"
	}
	if abs {
		return "/" + s
	}
	return s
}

// sortViolations orders violations by rule ID, then path, then message,
// comparing UTF-16 code units as JavaScript's < does ("PK12" < "PK2").
func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		if c := compareUTF16(a.RuleID, b.RuleID); c != 0 {
			return c
		}
		if c := compareUTF16(a.Path, b.Path); c != 0 {
			return c
		}
		return compareUTF16(a.Message, b.Message)
	})
}
