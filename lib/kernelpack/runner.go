package kernelpack

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

var (
	runnerIDPattern = regexp.MustCompile(`^runner_[0-9]{8}_[0-9]{6}_[a-z0-9]+$`)
	iso8601UTC      = regexp.MustCompile(`^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(\.[0-9]{3})?Z$`)

	runnerOS         = []string{"linux", "darwin", "win32"}
	runnerArch       = []string{"x64", "arm64", "ia32"}
	runnerBackends   = []string{"process", "container", "vm", "none"}
	runnerIsolation  = []string{"strict", "standard", "none"}
	forbiddenEnvPfxs = []string{"SSH_", "NPM_", "GIT_", "AWS_", "OPENAI_", "ANTHROPIC_"}
)

// runnerLimit is one of RUNNER_SPEC's LIMIT_BOUNDS.
type runnerLimit struct {
	field    string
	min, max float64
}

var runnerLimits = []runnerLimit{
	{"timeout_ms", 1000, 600000},
	{"max_output_files", 1, 10000},
	{"max_total_output_bytes", 1024, 1073741824},
}

// verifyRunner is RUNNER_SPEC verification (runner_verify.ts). Unlike the
// other file verifiers it reads only values whose type it has checked, so it
// never throws.
func verifyRunner(input value) []subViolation {
	var vs violations
	add := vs.add

	runner, ok := input.(*object)
	if !ok {
		got := typeOf(input)
		switch {
		case isNull(input):
			got = "null"
		case isArray(input):
			got = "array"
		}
		add("SCHEMA", "Expected object, got "+got)
		return vs
	}

	// RN1, RN2
	checkIdentityRunner(runner, add)

	// RN3
	if platform, ok := runner.prop("platform").(*object); !ok {
		add("SCHEMA", "Missing or invalid platform: expected object")
	} else {
		checkPlatformRunner(platform, add)
	}

	// RN4
	if sandbox, ok := runner.prop("sandbox").(*object); !ok {
		add("SCHEMA", "Missing or invalid sandbox: expected object")
	} else {
		checkSandboxRunner(sandbox, add)
	}

	// RN5
	if limits, ok := runner.prop("limits").(*object); !ok {
		add("SCHEMA", "Missing or invalid limits: expected object")
	} else {
		checkLimitsRunner(limits, add)
	}

	// RN6
	if commands, ok := runner.prop("commands").(*object); !ok {
		add("SCHEMA", "Missing or invalid commands: expected object")
	} else {
		checkCommandsRunner(commands, add)
	}

	// RN7
	if roots, ok := runner.prop("write_roots").(*array); !ok {
		add("SCHEMA", "Missing or invalid write_roots: expected array")
	} else {
		checkWriteRootsRunner(roots, add)
	}

	// RN8
	if ctx, ok := runner.prop("context").(*object); !ok {
		add("SCHEMA", "Missing or invalid context: expected object")
	} else {
		checkContextRunner(ctx, add)
	}

	// RN9
	if timing, ok := runner.prop("timing").(*object); !ok {
		add("SCHEMA", "Missing or invalid timing: expected object")
	} else {
		checkTimingRunner(timing, add)
	}

	// RN10
	if exit, ok := runner.prop("exit").(*object); !ok {
		add("SCHEMA", "Missing or invalid exit: expected object")
	} else {
		checkExitRunner(exit, add)
	}

	// Warnings
	if w := runner.prop("warnings"); !isUndefined(w) {
		if wa, ok := w.(*array); !ok {
			add("SCHEMA", "warnings is not an array")
		} else if !sortedStrings(stringsOf(wa)) {
			add("SCHEMA", "warnings is not sorted")
		}
	}

	// RN12, skipped when the record's shape or version is wrong. The
	// reference's verifyRoundTrip catches a canonicalize failure itself and
	// reports it as "does not round-trip".
	schemaBroken := slices.ContainsFunc(vs, func(v subViolation) bool { return v.Rule == "SCHEMA" || v.Rule == "RN1" })
	if !schemaBroken {
		if ok, err := roundTrips(input); err != nil || !ok {
			add("RN12", "Runner record does not round-trip through canonicalization")
		}
	}
	return vs
}

// checkIdentityRunner checks RN1 and RN2: the schema version, the
// runner's id and version.
func checkIdentityRunner(runner *object, add func(rule, msg string)) {
	// RN1
	switch s, ok := runner.prop("runner_schema_version").(string); {
	case !ok:
		add("RN1", "Missing or invalid runner_schema_version")
	case s == "":
		add("RN1", "runner_schema_version cannot be empty")
	case s != "1.0.0":
		add("RN1", `Invalid schema version: expected "1.0.0", got "`+s+`"`)
	}

	// RN2
	switch s, ok := runner.prop("runner_id").(string); {
	case !ok:
		add("RN2", "Missing or invalid runner_id")
	case s == "":
		add("RN2", "runner_id cannot be empty")
	case !runnerIDPattern.MatchString(s):
		add("RN2", `Invalid runner_id format: expected pattern runner_YYYYMMDD_HHMMSS_random, got "`+s+`"`)
	}
	switch s, ok := runner.prop("runner_version").(string); {
	case !ok:
		add("RN2", "Missing or invalid runner_version")
	case s == "":
		add("RN2", "runner_version cannot be empty")
	}
}

// checkPlatformRunner checks RN3: the platform's os, arch, node_version
// and npm_version.
func checkPlatformRunner(platform *object, add func(rule, msg string)) {
	oneOf := func(field string, allowed []string) { checkOneOf(platform, "RN3", "platform", field, allowed, add) }
	oneOf("os", runnerOS)
	oneOf("arch", runnerArch)
	switch s, ok := platform.prop("node_version").(string); {
	case !ok:
		add("RN3", "Missing or invalid platform.node_version")
	case !strings.HasPrefix(s, "v"):
		add("RN3", `platform.node_version must start with "v", got "`+s+`"`)
	}
	if _, ok := platform.prop("npm_version").(string); !ok {
		add("RN3", "Missing or invalid platform.npm_version")
	}
}

// checkSandboxRunner checks RN4: the sandbox's backend, isolation level and flags.
func checkSandboxRunner(sandbox *object, add func(rule, msg string)) {
	oneOf := func(field string, allowed []string) { checkOneOf(sandbox, "RN4", "sandbox", field, allowed, add) }
	oneOf("backend", runnerBackends)
	oneOf("isolation_level", runnerIsolation)
	if strictEqual(sandbox.prop("isolation_level"), "none") && !strictEqual(sandbox.prop("backend"), "none") {
		add("RN4", `When isolation_level is "none", backend must also be "none"`)
	}
	for _, f := range []string{"network_blocked", "filesystem_readonly"} {
		if _, ok := sandbox.prop(f).(bool); !ok {
			add("RN4", "sandbox."+f+" must be boolean")
		}
	}
}

// checkLimitsRunner checks RN5: the limits, each in its bounds.
func checkLimitsRunner(limits *object, add func(rule, msg string)) {
	for _, l := range runnerLimits {
		n, ok := limits.prop(l.field).(float64)
		switch {
		case !ok:
			add("RN5", "Missing or invalid limits."+l.field)
		case n < l.min || n > l.max:
			add("RN5", "limits."+l.field+" must be in range ["+numberToString(l.min)+", "+numberToString(l.max)+"], got "+numberToString(n))
		}
	}
	for _, f := range []string{"max_memory_bytes", "max_cpu_seconds"} {
		v := limits.prop(f)
		if isUndefined(v) {
			continue
		}
		if n, ok := v.(float64); !ok {
			add("RN5", "limits."+f+" must be a number")
		} else if n <= 0 {
			add("RN5", "limits."+f+" must be positive")
		}
	}
}

// checkCommandsRunner checks RN6: sorted, disjoint allow- and blocklists, and a shell.
func checkCommandsRunner(commands *object, add func(rule, msg string)) {
	allow, allowOK := commands.prop("allowlist").(*array)
	block, blockOK := commands.prop("blocklist").(*array)
	if !allowOK {
		add("SCHEMA", "commands.allowlist must be an array")
	} else if !sortedStrings(stringsOf(allow)) {
		add("RN6", "commands.allowlist is not sorted lexicographically")
	}
	if !blockOK {
		add("SCHEMA", "commands.blocklist must be an array")
	} else if !sortedStrings(stringsOf(block)) {
		add("RN6", "commands.blocklist is not sorted lexicographically")
	}
	if allowOK && blockOK {
		blocked := stringsOf(block)
		for _, a := range stringsOf(allow) {
			if slices.Contains(blocked, a) {
				add("RN6", "commands.allowlist and commands.blocklist must not overlap")
				break
			}
		}
	}
	switch s, ok := commands.prop("shell").(string); {
	case !ok:
		add("RN6", "Missing or invalid commands.shell")
	case s == "":
		add("RN6", "commands.shell cannot be empty")
	}
}

// checkWriteRootsRunner checks RN7: sorted, relative write roots without traversal.
func checkWriteRootsRunner(roots *array, add func(rule, msg string)) {
	if !sortedStrings(stringsOf(roots)) {
		add("RN7", "write_roots is not sorted lexicographically")
	}
	for i, r := range roots.elems {
		s, ok := r.(string)
		if !ok {
			add("SCHEMA", "write_roots["+itoa(i)+"] is not a string")
			continue
		}
		if strings.HasPrefix(s, "/") || driveLetter.MatchString(s) {
			add("RN7", "write_roots["+itoa(i)+"] contains absolute path")
		}
		if strings.Contains(s, "..") {
			add("RN7", "write_roots["+itoa(i)+"] contains path traversal")
		}
	}
}

// checkContextRunner checks RN8: the working directory, environment
// allowlist, locale and time zone.
func checkContextRunner(ctx *object, add func(rule, msg string)) {
	if !strictEqual(ctx.prop("working_dir"), ".") {
		add("RN8", `context.working_dir must be "."`)
	}
	if env, ok := ctx.prop("env_allowlist").(*array); !ok {
		add("SCHEMA", "context.env_allowlist must be an array")
	} else {
		if !sortedStrings(stringsOf(env)) {
			add("RN8", "context.env_allowlist is not sorted lexicographically")
		}
		for i, e := range env.elems {
			if s, ok := e.(string); ok && hasAnyPrefix(s, forbiddenEnvPfxs) {
				add("RN8", "context.env_allowlist["+itoa(i)+`] has forbidden prefix: "`+s+`"`)
			}
		}
	}
	if _, ok := ctx.prop("locale").(string); !ok {
		add("RN8", "Missing or invalid context.locale")
	}
	if _, ok := ctx.prop("timezone").(string); !ok {
		add("RN8", "Missing or invalid context.timezone")
	}
}

// checkExitRunner checks RN10: the exit code, signal and kill flags.
func checkExitRunner(exit *object, add func(rule, msg string)) {
	if code, ok := exit.prop("code").(float64); !ok {
		add("RN10", "Missing or invalid exit.code")
	} else if !isInteger(code) || code < 0 || code > 255 {
		add("RN10", "exit.code must be integer in range [0, 255], got "+numberToString(code))
	}
	if sig := exit.prop("signal"); !isUndefined(sig) {
		if s, ok := sig.(string); !ok {
			add("RN10", "exit.signal must be a string")
		} else if changesWhenUppercased(s) {
			add("RN10", "exit.signal must be uppercase")
		}
	}
	for _, f := range []string{"oom_killed", "timeout_killed"} {
		if _, ok := exit.prop(f).(bool); !ok {
			add("RN10", "exit."+f+" must be boolean")
		}
	}
}

// checkOneOf checks that the member field of o, which is named name,
// is a string among allowed, under rule.
func checkOneOf(o *object, rule, name, field string, allowed []string, add func(rule, msg string)) {
	switch s, ok := o.prop(field).(string); {
	case !ok:
		add(rule, "Missing or invalid "+name+"."+field)
	case !slices.Contains(allowed, s):
		add(rule, "Invalid "+name+"."+field+": expected one of "+strings.Join(allowed, ", ")+`, got "`+s+`"`)
	}
}

func checkTimingRunner(timing *object, add func(rule, msg string)) {
	started, startedOK := timing.prop("started_at").(string)
	completed, completedOK := timing.prop("completed_at").(string)
	switch {
	case !startedOK:
		add("RN9", "Missing or invalid timing.started_at")
	case !iso8601UTC.MatchString(started):
		add("RN9", "timing.started_at must be valid ISO 8601 UTC")
	}
	switch {
	case !completedOK:
		add("RN9", "Missing or invalid timing.completed_at")
	case !iso8601UTC.MatchString(completed):
		add("RN9", "timing.completed_at must be valid ISO 8601 UTC")
	}
	duration, durationOK := timing.prop("duration_ms").(float64)
	if startedOK && completedOK && iso8601UTC.MatchString(started) && iso8601UTC.MatchString(completed) {
		start, end := dateParse(started), dateParse(completed)
		if end < start {
			add("RN9", "timing.completed_at must be >= timing.started_at")
		}
		if durationOK {
			expected := end - start
			if math.Abs(duration-expected) > 1 {
				add("RN9", "timing.duration_ms ("+numberToString(duration)+") does not match completed_at - started_at ("+numberToString(expected)+")")
			}
		}
	}
	if !durationOK {
		add("RN9", "Missing or invalid timing.duration_ms")
	}

	phases := timing.prop("phases")
	if isUndefined(phases) {
		return
	}
	pa, ok := phases.(*array)
	if !ok {
		add("SCHEMA", "timing.phases must be an array")
		return
	}
	last := ""
	for i, ph := range pa.elems {
		p, ok := ph.(*object)
		if !ok {
			add("SCHEMA", "timing.phases["+itoa(i)+"] is not an object")
			continue
		}
		if _, ok := p.prop("name").(string); !ok {
			add("SCHEMA", "timing.phases["+itoa(i)+"].name is not a string")
		}
		switch s, ok := p.prop("started_at").(string); {
		case !ok:
			add("SCHEMA", "timing.phases["+itoa(i)+"].started_at is not a string")
		case !iso8601UTC.MatchString(s):
			add("RN9", "timing.phases["+itoa(i)+"].started_at must be valid ISO 8601 UTC")
		default:
			if last != "" && compareUTF16(s, last) < 0 {
				add("RN9", "timing.phases must be sorted by started_at")
			}
			last = s
		}
		if _, ok := p.prop("duration_ms").(float64); !ok {
			add("SCHEMA", "timing.phases["+itoa(i)+"].duration_ms is not a number")
		}
	}
}

// dateParse is Date.parse for a string that matched iso8601UTC. V8 accepts
// day 31 in any month and rolls it over (2019-02-31 is 2019-03-03).
func dateParse(s string) float64 {
	m := iso8601UTC.FindStringSubmatch(s)
	n := func(i int) int64 { v, _ := strconv.ParseInt(m[i], 10, 64); return v }
	ms := int64(0)
	if m[7] != "" {
		ms, _ = strconv.ParseInt(m[7][1:], 10, 64)
	}
	days := daysFromCivil(n(1), n(2)) + n(3) - 1
	return float64(((days*24+n(4))*60+n(5))*60+n(6))*1000 + float64(ms)
}

// daysFromCivil is the number of days from 1970-01-01 to the first of the
// given month (proleptic Gregorian).
func daysFromCivil(y, m int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp + 2) / 5
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isInteger(f float64) bool { return !math.IsInf(f, 0) && f == math.Trunc(f) }

func stringsOf(a *array) []string {
	var out []string
	for _, e := range a.elems {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedStrings(ss []string) bool {
	for i := 1; i < len(ss); i++ {
		if compareUTF16(ss[i-1], ss[i]) > 0 {
			return false
		}
	}
	return true
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// changesWhenUppercased reports whether s !== s.toUpperCase(): a character
// has a simple uppercase mapping, or a full (SpecialCasing) one such as
// "ß" → "SS".
func changesWhenUppercased(s string) bool {
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		i += n
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if unicode.ToUpper(r) != r || specialUpper(r) || newerUpper(r) {
			return true
		}
	}
	return false
}

// newerUpper reports whether r is one of the 55 lowercase letters that
// gained an uppercase mapping after Unicode 15, the version of Go's
// tables, and which the JavaScript engines the reference runs on map:
// U+019B ƛ, U+0264 ɤ, U+1C8A, U+A7CD, U+A7CF, U+A7D3, U+A7D5, U+A7DB,
// Garay U+10D70–10D85 and U+16EBB–16ED3 (UnicodeData.txt, Unicode 16
// and 17).
func newerUpper(r rune) bool {
	switch {
	case r == 0x019B, r == 0x0264, r == 0x1C8A:
		return true
	case r == 0xA7CD, r == 0xA7CF, r == 0xA7D3, r == 0xA7D5, r == 0xA7DB:
		return true
	case r >= 0x10D70 && r <= 0x10D85, r >= 0x16EBB && r <= 0x16ED3:
		return true
	}
	return false
}

// specialUpper reports whether SpecialCasing.txt gives r an unconditional
// uppercase mapping of more than one character.
func specialUpper(r rune) bool {
	switch {
	case r == 0x00DF, r == 0x0149, r == 0x01F0, r == 0x0390, r == 0x03B0, r == 0x0587:
		return true
	case r >= 0x1E96 && r <= 0x1E9A:
		return true
	case r >= 0x1F50 && r <= 0x1F56 && r%2 == 0:
		return true
	case r >= 0x1F80 && r <= 0x1FAF:
		return true
	case r >= 0x1FB2 && r <= 0x1FB4, r >= 0x1FB6 && r <= 0x1FB7, r == 0x1FBC:
		return true
	case r >= 0x1FC2 && r <= 0x1FC4, r >= 0x1FC6 && r <= 0x1FC7, r == 0x1FCC:
		return true
	case r >= 0x1FD2 && r <= 0x1FD3, r >= 0x1FD6 && r <= 0x1FD7:
		return true
	case r >= 0x1FE2 && r <= 0x1FE4, r >= 0x1FE6 && r <= 0x1FE7:
		return true
	case r >= 0x1FF2 && r <= 0x1FF4, r >= 0x1FF6 && r <= 0x1FF7, r == 0x1FFC:
		return true
	case r >= 0xFB00 && r <= 0xFB06, r >= 0xFB13 && r <= 0xFB17:
		return true
	}
	return false
}
