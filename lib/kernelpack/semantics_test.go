package kernelpack

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func mustParse(t *testing.T, s string) value {
	t.Helper()
	v, err := parseText(s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// The verifiers compare and print values of any JSON type the way
// JavaScript's >, < and template literals do.
func TestJSOperators(t *testing.T) {
	t.Parallel()
	const cannotConvert = "Cannot convert object to primitive value"
	tests := []struct {
		a, b   string
		gt, lt string // "true", "false" or the TypeError message
	}{
		{`"10"`, `9`, "true", "false"},
		{`"10"`, `"9"`, "false", "true"},
		{`[2]`, `10`, "false", "true"},
		{`[1,2]`, `"1,3"`, "false", "true"},
		{`null`, `1`, "false", "true"},
		{`null`, `-1`, "true", "false"},
		{`true`, `0.5`, "true", "false"},
		{`{}`, `"[object Nu"`, "true", "false"},
		{`"abc"`, `1`, "false", "false"},
		{`" 12 "`, `13`, "false", "true"},
		{`"0x1F"`, `32`, "false", "true"},
		{`"😀"`, `"ﬁ"`, "false", "true"},
		{`{"toString":1}`, `1`, cannotConvert, cannotConvert},
		{`[{"toString":1}]`, `"a"`, cannotConvert, cannotConvert},
		{`{"valueOf":1}`, `"[object Object]"`, "false", "false"},
	}
	show := func(ok bool, err error) string {
		if err != nil {
			return err.Error()
		}
		if ok {
			return "true"
		}
		return "false"
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		if got := show(greaterThan(a, b)); got != tt.gt {
			t.Errorf("%s > %s = %s, want %s", tt.a, tt.b, got, tt.gt)
		}
		if got := show(lessThan(a, b)); got != tt.lt {
			t.Errorf("%s < %s = %s, want %s", tt.a, tt.b, got, tt.lt)
		}
	}
	if got := show(lessThan(undefined, 1.0)); got != "false" {
		t.Errorf("undefined < 1 = %s, want false", got)
	}

	strs := map[string]string{
		`[1,[2,3],null,"a",true]`: "1,2,3,,a,true",
		`{"a":1}`:                 "[object Object]",
		`[{}]`:                    "[object Object]",
		`-0`:                      "0",
		`1e21`:                    "1e+21",
		`null`:                    "null",
		`"\ud800"`:                "\xed\xa0\x80",
		`[]`:                      "",
	}
	for in, want := range strs {
		got, err := toString(mustParse(t, in))
		if err != nil || got != want {
			t.Errorf("`${%s}` = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := toString(mustParse(t, `{"toString":"x"}`)); err == nil || err.Error() != cannotConvert {
		t.Errorf("`${{toString:\"x\"}}` error = %v, want %q", err, cannotConvert)
	}
	if !strictEqual(1.0, 1.0) || strictEqual("1", 1.0) || strictEqual(mustParse(t, `{}`), mustParse(t, `{}`)) || !strictEqual(math.Copysign(0, -1), 0.0) {
		t.Error("strictEqual disagrees with ===")
	}
}

func TestStringToNumber(t *testing.T) {
	t.Parallel()
	tests := map[string]float64{
		"": 0, " 12 ": 12, "0x1F": 31, "0b101": 5, "0o17": 15, "Infinity": math.Inf(1), "-Infinity": math.Inf(-1),
		"1e3": 1000, ".5": 0.5, "5.": 5, "+5": 5, "00012": 12, "\u00a0 7\u2028": 7, "\ufeff9": 9,
		"0x20000000000001": 9007199254740992, "0x20000000000003": 9007199254740996,
	}
	for in, want := range tests {
		if got := stringToNumber(in); got != want {
			t.Errorf("Number(%q) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"-", "1_000", "0x", "abc", "-0x10", "1e", "inf", "0x1p3", "1 2"} {
		if got := stringToNumber(in); !math.IsNaN(got) {
			t.Errorf("Number(%q) = %v, want NaN", in, got)
		}
	}
}

func TestJSTrimAndUpper(t *testing.T) {
	t.Parallel()
	if got := jsTrim("\ufeff\u00a0\t a b\u2028\u3000\r\n"); got != "a b" {
		t.Errorf("trim = %q, want %q", got, "a b")
	}
	if got := jsTrim("\u200b x"); got != "\u200b x" {
		t.Errorf("trim removed U+200B, which is not JavaScript white space: %q", got)
	}
	for s, want := range map[string]bool{
		"SIGTERM": false, "SIG_1": false, "": false, "sigterm": true, "SIGTERm": true,
		"ß": true, "ǅ": true, "ᾈ": true, "ﬁ": true, "ʼn": true, "Ω": false, "\xed\xa0\x80": false,
	} {
		if got := changesWhenUppercased(s); got != want {
			t.Errorf("%q !== %q.toUpperCase() = %v, want %v", s, s, got, want)
		}
	}
}

func TestDateParse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]float64{
		"1970-01-01T00:00:00Z":     0,
		"2000-01-01T00:00:00Z":     946684800000,
		"2026-01-07T12:00:02.000Z": 1767787202000,
		"2026-01-07T12:00:00.250Z": 1767787200250,
		"2019-02-31T00:00:00Z":     1551571200000, // V8 rolls over into March
		"2024-02-29T23:59:59.999Z": 1709251199999,
	} {
		if got := dateParse(s); got != want {
			t.Errorf("Date.parse(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNodeNormalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": ".", ".": ".", "pack": "pack", "pack/": "pack/", "./pack": "pack", "a//b": "a/b",
		"a/./b": "a/b", "a/../b": "b", "../a": "../a", "a/../..": "..", "/a/../../b": "/b",
		"//a": "/a", "./": "./", "dots..in-name": "dots..in-name", "/": "/",
	} {
		if got := nodeNormalize(in); got != want {
			t.Errorf("path.normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func messages(subs []subViolation) []string {
	var out []string
	for _, s := range subs {
		out = append(out, s.Rule+": "+s.Message)
	}
	slices.SortFunc(out, compareUTF16)
	return out
}

// Messages of the file verifiers, from the reference sources.
func TestFileVerifierMessages(t *testing.T) {
	t.Parallel()
	patchHead := `"patch_schema_version":"1.0.0","source_proposal_id":"p","source_proposal_hash":"h",`
	tests := []struct {
		name   string
		verify func(value) ([]subViolation, error)
		in     string
		want   []string
	}{
		{"bundle not object", verifyBundle, `[]`, []string{"SCHEMA: bundle must be object, got object"}},
		{"bundle null", verifyBundle, `null`, []string{"SCHEMA: bundle must be object, got null"}},
		{"bundle string", verifyBundle, `"b"`, []string{"SCHEMA: bundle must be object, got string"}},
		{"bundle empty", verifyBundle, `{"schema_version":""}`, []string{
			"BS1: schema_version cannot be empty",
			"SCHEMA: required field id is missing", "SCHEMA: required field kernel_version is missing",
			"SCHEMA: required field outputs is missing", "SCHEMA: required field root_node is missing",
			"SCHEMA: required field stats is missing", "SCHEMA: required field status is missing",
			"SCHEMA: required field terminal_nodes is missing", "SCHEMA: required field unresolved_questions is missing",
		}},
		{"bundle orders", verifyBundle, `{"id":1,"schema_version":null,"kernel_version":1,"status":1,"root_node":0,"stats":1e400,
			"terminal_nodes":[{"id":"n2","constraints":["b","a"],"unresolved_questions":[{"priority":5,"id":"q2"},{"priority":5,"id":"q1"}]},{"id":"n1"}],
			"outputs":[{"path":"/abs","source_constraints":["z","y"]},{"path":"b\\c"}],"unresolved_questions":[{"priority":"10"},{"priority":9}]}`, []string{
			"BS1: schema_version is missing",
			"BS4: outputs[0].source_constraints not sorted",
			"BS4: terminal_nodes[0].constraints not sorted",
			"BS5: terminal_nodes[0].unresolved_questions not sorted",
			"BS6: terminal_nodes not sorted by id",
			"BS7: unsafe path: /abs",
			`BS7: unsafe path: b\c`,
			"BS8: failed to canonicalize bundle",
		}},
		{"patch shape", verifyPatch, `{"patch_schema_version":5,"operations":{}}`, []string{
			"PS1: patch_schema_version must be string, got number",
			"SCHEMA: operations must be an array",
			"SCHEMA: required field source_proposal_hash is missing",
			"SCHEMA: required field source_proposal_id is missing",
			"SCHEMA: required field total_bytes is missing",
		}},
		{"patch paths", verifyPatch, `{` + patchHead + `"total_bytes":"many","operations":[
			{"op":"symlink","path":"./a"},{"op":"create","path":" b/"},{"op":"modify","path":"c//d\u0001"},{"op":"delete","path":"..\\e","order":-1},
			{"op":"create","path":"","content":"x\u0000"},{"op":"create","path":".","content":"\ud800","order":null},{"op":"create","path":"a","content":""}]}`, []string{
			"PS2: invalid operation type: symlink",
			"PS4: forbidden characters in path:  b/",
			"PS4: forbidden characters in path: c//d\x01",
			"PS4: path not normalized: ",
			"PS4: path not normalized:  b/",
			"PS4: path not normalized: ./a",
			"PS4: path not normalized: .",
			"PS4: path not normalized: c//d\x01",
			`PS4: path traversal or backslash not allowed: ..\e`,
			"PS6: content is not valid UTF-8 or contains null bytes",
			"PS6: create operation must have content",
			"PS6: modify operation must have content",
			"PS7: total_bytes is missing or not a number",
			"PS8: operations not sorted by order: 0 > -1",
			"PS8: operations not sorted by path: ./a >  b/",
			"PS9: symlink operations are not allowed",
		}},
		// A high surrogate that ends the content passes the reference's
		// scan (charCodeAt past the end is NaN); one mid-string does not.
		{"patch bytes", verifyPatch, `{` + patchHead + `"total_bytes":52428801,"operations":[{"op":"create","path":"a","content":"é😀\ud800"},{"op":"create","path":"b","content":"\ud800x"},{"op":"create","path":"c","content":"\udc00"}]}`, []string{
			"PS7: total_bytes (52428801) does not match actual content size (16)",
			"PS7: total_bytes (52428801) exceeds limit (52428800)",
			"PS6: content is not valid UTF-8 or contains null bytes",
			"PS6: content is not valid UTF-8 or contains null bytes",
		}},
		{"model io", verifyModelIO, `{"model_io_schema_version":"1.0","adapter_id":"","model_id":7,"mode":null,"interactions":[
			{"i":0,"prompt_hash":"sha256:AB","response_hash":7},
			{"i":"1","prompt_hash":"sha256:AB","response_hash":"sha256:0000000000000000000000000000000000000000000000000000000000000000","response_content":5},
			{"i":1,"prompt_hash":"sha256:AB","response_hash":"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","response_content":""},
			{"i":1,"prompt_hash":"sha256:AB"}]}`, []string{
			"MI1: model_io_schema_version must be semver format, got 1.0",
			"MI2: adapter_id must be non-empty string",
			"MI2: model_id must be non-empty string",
			"MI3: mode must be one of [record, replay], got null",
			"MI5: index must be 3, got 1",
			"MI5: index must be 2, got 1",
			"MI5: index must be a number, got string",
			"MI6: prompt_hash must be sha256:<64 hex chars>, got sha256:AB",
			"MI6: prompt_hash must be sha256:<64 hex chars>, got sha256:AB",
			"MI6: prompt_hash must be sha256:<64 hex chars>, got sha256:AB",
			"MI6: prompt_hash must be sha256:<64 hex chars>, got sha256:AB",
			"MI7: response_content must be a string, got number",
			"MI7: response_hash must be sha256:<64 hex chars>, got 7",
			"MI7: response_hash must be sha256:<64 hex chars>, got undefined",
			"MI8: duplicate (prompt_hash, i) pair at index 2",
			"MI8: duplicate (prompt_hash, i) pair at index 3",
			"MI9: interactions not sorted by i: 1 >= 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			subs, err := tt.verify(mustParse(t, tt.in))
			if err != nil {
				t.Fatalf("aborted: %v", err)
			}
			want := slices.Clone(tt.want)
			slices.SortFunc(want, compareUTF16)
			if got := messages(subs); !slices.Equal(got, want) {
				t.Errorf("violations\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestRunnerMessages(t *testing.T) {
	t.Parallel()
	if got := messages(verifyRunner(mustParse(t, `[]`))); !slices.Equal(got, []string{"SCHEMA: Expected object, got array"}) {
		t.Errorf("array runner: %q", got)
	}
	got := messages(verifyRunner(mustParse(t, `{}`)))
	want := []string{
		"RN1: Missing or invalid runner_schema_version",
		"RN2: Missing or invalid runner_id",
		"RN2: Missing or invalid runner_version",
		"SCHEMA: Missing or invalid commands: expected object",
		"SCHEMA: Missing or invalid context: expected object",
		"SCHEMA: Missing or invalid exit: expected object",
		"SCHEMA: Missing or invalid limits: expected object",
		"SCHEMA: Missing or invalid platform: expected object",
		"SCHEMA: Missing or invalid sandbox: expected object",
		"SCHEMA: Missing or invalid timing: expected object",
		"SCHEMA: Missing or invalid write_roots: expected array",
	}
	if !slices.Equal(got, want) {
		t.Errorf("empty runner\n got %q\nwant %q", got, want)
	}

	runner := `{"runner_schema_version":"1.0.0","runner_id":"runner_2026_x","runner_version":"",
		"platform":{"os":"linux","arch":"sparc","node_version":"24","npm_version":1},
		"sandbox":{"backend":"process","isolation_level":"none","network_blocked":1},
		"limits":{"timeout_ms":999,"max_output_files":1e400,"max_total_output_bytes":"1","max_memory_bytes":0,"max_cpu_seconds":"1"},
		"commands":{"allowlist":["npm","node",3],"blocklist":["node"],"shell":""},
		"write_roots":["tmp","/abs","C:x","a/../b",7],
		"context":{"working_dir":"/","env_allowlist":["SSH_AUTH_SOCK","GIT_DIR"],"locale":"C"},
		"timing":{"started_at":"2026-01-07T12:00:02Z","completed_at":"2026-01-07T12:00:00Z","duration_ms":5,
			"phases":[{"name":"b","started_at":"2026-01-07T12:00:01Z","duration_ms":1},{"name":"a","started_at":"2026-01-07T12:00:00Z"},3]},
		"exit":{"code":1.5,"signal":"sigkill","oom_killed":false},
		"warnings":["b","a"]}`
	got = messages(verifyRunner(mustParse(t, runner)))
	want = []string{
		`RN2: Invalid runner_id format: expected pattern runner_YYYYMMDD_HHMMSS_random, got "runner_2026_x"`,
		"RN2: runner_version cannot be empty",
		`RN3: Invalid platform.arch: expected one of x64, arm64, ia32, got "sparc"`,
		"RN3: Missing or invalid platform.npm_version",
		`RN3: platform.node_version must start with "v", got "24"`,
		"RN4: sandbox.filesystem_readonly must be boolean",
		"RN4: sandbox.network_blocked must be boolean",
		`RN4: When isolation_level is "none", backend must also be "none"`,
		"RN5: limits.max_cpu_seconds must be a number",
		"RN5: limits.max_memory_bytes must be positive",
		"RN5: limits.max_output_files must be in range [1, 10000], got Infinity",
		"RN5: Missing or invalid limits.max_total_output_bytes",
		"RN5: limits.timeout_ms must be in range [1000, 600000], got 999",
		"RN6: commands.allowlist and commands.blocklist must not overlap",
		"RN6: commands.allowlist is not sorted lexicographically",
		"RN6: commands.shell cannot be empty",
		"RN7: write_roots is not sorted lexicographically",
		"RN7: write_roots[1] contains absolute path",
		"RN7: write_roots[2] contains absolute path",
		"RN7: write_roots[3] contains path traversal",
		"SCHEMA: write_roots[4] is not a string",
		`RN8: context.env_allowlist[0] has forbidden prefix: "SSH_AUTH_SOCK"`,
		`RN8: context.env_allowlist[1] has forbidden prefix: "GIT_DIR"`,
		"RN8: context.env_allowlist is not sorted lexicographically",
		`RN8: context.working_dir must be "."`,
		"RN8: Missing or invalid context.timezone",
		"RN9: timing.completed_at must be >= timing.started_at",
		"RN9: timing.duration_ms (5) does not match completed_at - started_at (-2000)",
		"RN9: timing.phases must be sorted by started_at",
		"SCHEMA: timing.phases[1].duration_ms is not a number",
		"SCHEMA: timing.phases[2] is not an object",
		"RN10: exit.code must be integer in range [0, 255], got 1.5",
		"RN10: exit.signal must be uppercase",
		"RN10: exit.timeout_killed must be boolean",
		"SCHEMA: warnings is not sorted",
	}
	slices.SortFunc(want, compareUTF16)
	if !slices.Equal(got, want) {
		t.Errorf("bad runner\n got %q\nwant %q", got, want)
	}

	// RN12 runs only without SCHEMA and RN1 violations; a number that parsed
	// to Infinity makes the round trip fail.
	valid := `{"runner_schema_version":"1.0.0","runner_id":"runner_20260107_120000_k3x9q2","runner_version":"1",
		"platform":{"os":"linux","arch":"x64","node_version":"v24","npm_version":"10"},
		"sandbox":{"backend":"none","isolation_level":"none","network_blocked":true,"filesystem_readonly":false},
		"limits":{"timeout_ms":1000,"max_output_files":1,"max_total_output_bytes":1024},
		"commands":{"allowlist":[],"blocklist":[],"shell":"sh"},"write_roots":[],
		"context":{"working_dir":".","env_allowlist":[],"locale":"C","timezone":"UTC"},
		"timing":{"started_at":"2026-01-07T12:00:00Z","completed_at":"2026-01-07T12:00:01.001Z","duration_ms":1000},
		"exit":{"code":0,"signal":"SIGKILL","oom_killed":false,"timeout_killed":false},"extra":%s}`
	if got := messages(verifyRunner(mustParse(t, fmt.Sprintf(valid, "1")))); len(got) != 0 {
		t.Errorf("valid runner: %q", got)
	}
	if got := messages(verifyRunner(mustParse(t, fmt.Sprintf(valid, "1e400")))); !slices.Equal(got, []string{"RN12: Runner record does not round-trip through canonicalization"}) {
		t.Errorf("runner with 1e400: %q", got)
	}
}

// Where the reference would throw, verification aborts with its message.
func TestFileVerifierThrows(t *testing.T) {
	t.Parallel()
	patchHead := `"patch_schema_version":"1.0.0","source_proposal_id":"p","source_proposal_hash":"h","total_bytes":0,`
	tests := []struct {
		name   string
		verify func(value) ([]subViolation, error)
		in     string
		want   string
	}{
		{"bundle null output", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[],"outputs":[null,{"path":"a"}],"unresolved_questions":[],"stats":{}}`,
			"Cannot read properties of null (reading 'path')"},
		{"bundle single null output", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[],"outputs":[null],"unresolved_questions":[],"stats":{}}`,
			"Cannot read properties of null (reading 'source_constraints')"},
		{"bundle numeric path", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[],"outputs":[{"path":5}],"unresolved_questions":[],"stats":{}}`,
			"path.startsWith is not a function"},
		{"bundle null terminal", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[null],"outputs":[],"unresolved_questions":[],"stats":{}}`,
			"Cannot read properties of null (reading 'constraints')"},
		{"bundle null question", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[],"outputs":[],"unresolved_questions":[{"priority":1},null],"stats":{}}`,
			"Cannot read properties of null (reading 'priority')"},
		{"bundle unconvertible constraint", verifyBundle, `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{"constraints":["a",{"toString":0}]},"terminal_nodes":[],"outputs":[],"unresolved_questions":[],"stats":{}}`,
			"Cannot convert object to primitive value"},
		{"patch null op", verifyPatch, `{` + patchHead + `"operations":[null]}`, "Cannot read properties of null (reading 'op')"},
		{"patch missing path", verifyPatch, `{` + patchHead + `"operations":[{"op":"delete"}]}`, "Cannot read properties of undefined (reading 'startsWith')"},
		{"patch numeric content", verifyPatch, `{` + patchHead + `"operations":[{"op":"create","path":"a","content":1}]}`, "content.includes is not a function"},
		{"patch array content", verifyPatch, `{` + patchHead + `"operations":[{"op":"create","path":"a","content":["x"]}]}`, "content.charCodeAt is not a function"},
		{"patch empty array content", verifyPatch, `{` + patchHead + `"operations":[{"op":"create","path":"a","content":[]}]}`,
			`The "string" argument must be of type string or an instance of Buffer or ArrayBuffer. Received an instance of Array`},
		{"model io null interaction", verifyModelIO, `{"model_io_schema_version":"1.0.0","adapter_id":"a","model_id":"m","mode":"record","interactions":[null]}`,
			"Cannot read properties of null (reading 'i')"},
		{"model io unconvertible mode", verifyModelIO, `{"model_io_schema_version":"1.0.0","adapter_id":"a","model_id":"m","mode":{"toString":1},"interactions":[]}`,
			"Cannot convert object to primitive value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.verify(mustParse(t, tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
	// An empty-array content passes PS6 and only fails where its byte length
	// is taken; without a numeric total_bytes that never happens.
	subs, err := verifyPatch(mustParse(t, `{"patch_schema_version":"1","source_proposal_id":"p","source_proposal_hash":"h","total_bytes":"n","operations":[{"op":"create","path":"a","content":[]},{"op":"create","path":"b","content":["\u0000"]}]}`))
	if err != nil {
		t.Fatalf("aborted: %v", err)
	}
	if got, want := messages(subs), []string{"PS6: content is not valid UTF-8 or contains null bytes", "PS7: total_bytes is missing or not a number"}; !slices.Equal(got, want) {
		t.Errorf("array contents\n got %q\nwant %q", got, want)
	}
}
