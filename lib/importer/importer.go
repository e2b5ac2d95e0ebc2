package importer

import (
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/execlog"
)

// Format names, as given to ctx-pack --from (an agent's format whose
// package is under lib/agent names itself there).
const (
	Anthropic       = "anthropic"
	ATIF            = "atif"
	Inspect         = "inspect"
	LangSmith       = "langsmith"
	OpenAIChat      = "openai-chat"
	OpenAIResponses = "openai-responses"
	OTelGenAI       = "otel-genai"
)

// Options tune an import.
type Options struct {
	// Name is the input's file name, used to recognise Inspect .eval
	// archives. It is never stored in the log.
	Name string
	// Deterministic lists tools to mark deterministic in addition to the
	// built-in read-only ones (ctx-pack --deterministic TOOL).
	Deterministic []string
	// Dir is the directory of the input file: media an ATIF trajectory
	// names by a relative path are read from under it. Empty: no file is
	// read.
	Dir string
	// Subagents are, for a Claude Code session, its subagents'
	// transcripts (the files under <session>/subagents/, see
	// claudecode.Subagents), read after the session's own.
	Subagents []File
	// Checkpoint, when not empty, is the file where an import of a
	// Claude Code session or a Codex rollout keeps its state after the
	// transcript's complete lines (CheckpointFile names one): the next
	// import of the transcript, grown by more lines, reads only those
	// when its first bytes still hash as they did. The log is the same
	// without it.
	Checkpoint string
	// Prior, when set, is the steps of the transcript's last pack
	// (execlog.LoadPrior of PriorFile): ImportLog notes each step's
	// fingerprint, for the caller to save the prior of the pack it makes
	// (execlog.Log.SavePrior), and takes the steps the last pack already
	// holds as they were packed (execlog.Log.Reuse). The pack is the
	// same without it.
	Prior *execlog.Prior
}

// File is a named input.
type File struct {
	Name string
	Data []byte
}

// Report says what an import did with its input.
type Report struct {
	Format string
	// Records is the number of input records (lines, exchanges, spans, log
	// records, messages or runs, depending on the format); each one is
	// either mapped into the log or skipped.
	Records, Mapped, Skipped int
	// Reasons says why records were skipped, one "reason: count" entry
	// per reason, sorted.
	Reasons []string
	// Warnings are things the log lacks or had to fill in (an unknown
	// model, tool calls without results), sorted.
	Warnings []string
	// Resumed is the number of lines a checkpoint covered, which this
	// import did not read again (Options.Checkpoint).
	Resumed int
	// Reused is the number of steps taken as the last pack holds them
	// (Options.Prior).
	Reused int
}

// Error reports input that does not have the shape of its format. Where
// names the record: "line 17", "[2].request.messages[3]",
// "resourceSpans[0].scopeSpans[1].spans[3]". The message does not repeat
// the file name: callers prefix it, as they do for every other error about
// the file.
type Error struct {
	Format string
	Where  string
	Msg    string
}

// Error says where the problem is: "claude-code: line 17: invalid JSON: …".
func (e *Error) Error() string {
	s := e.Format
	if e.Where != "" {
		s += ": " + e.Where
	}
	return s + ": " + e.Msg
}

// ExitCode is 1: the input is an invalid log (docs/design.md §2).
func (e *Error) ExitCode() int { return 1 }

// DetectError reports input whose format Detect cannot tell.
type DetectError struct {
	Name   string
	Reason string
	Known  []string // the formats, sorted
}

// Error names the input and lists the formats.
func (e *DetectError) Error() string {
	name := e.Name
	if name == "" {
		name = "input"
	}
	return fmt.Sprintf("cannot detect the format of %s (%s); use one of: %s", name, e.Reason, strings.Join(e.Known, ", "))
}

// ExitCode is 1, as for any invalid log.
func (e *DetectError) ExitCode() int { return 1 }

// Run converts data in the format to an execution log: canonical JSON
// bytes that ctx-pack accepts (Registry.Import).
func (f Format) Run(data []byte, opts Options) ([]byte, Report, error) {
	format := f.Name
	l, rep, err := f.RunLog(data, opts)
	if err != nil {
		return nil, rep, err
	}
	out, err := l.JSON()
	if err != nil {
		return nil, Report{Format: format}, &Error{Format: format, Msg: cannotPrint + err.Error()}
	}
	return out, rep, nil
}

// RunLog converts data in the format to an execution log, as Run
// does, and returns it unprinted: an execlog.Log, the one
// definition of the log, in the form printing and parsing it would give
// (execlog.Log.Canonical); what canonical JSON cannot carry (a lone UTF-16
// surrogate escape in the input's text) is an *Error, as from Import.
// Its content aliases data, which must not change until the log is
// packed. Check it (execlog.Log.Check) as Parse would check its JSON
// before packing it.
func (f Format) RunLog(data []byte, opts Options) (*execlog.Log, Report, error) {
	format := f.Name
	b := newBuilder(f, opts)
	if err := f.Import(b, data); err != nil {
		return nil, Report{Format: format}, err
	}
	if b.Records == 0 {
		return nil, Report{Format: format}, b.Errorf("", "the input holds no records")
	}
	l := b.log()
	if b.Workspace != nil {
		b.addWorkspace(l, b.Workspace)
	}
	reused := 0
	if opts.Prior != nil {
		l.Fingerprint()
		reused = l.Reuse(opts.Prior)
	}
	if err := l.Canonical(); err != nil {
		// Text the input carries but canonical JSON cannot (a lone UTF-16
		// surrogate escape): named by where it lands in the log.
		return nil, Report{Format: format}, b.Errorf("", "%s%v", cannotPrint, err)
	}
	b.commit()
	rep := b.report()
	rep.Reused = reused
	return l, rep, nil
}

// cannotPrint begins the message of an import that canonical JSON cannot
// carry.
const cannotPrint = "the imported log cannot be canonical JSON: "
