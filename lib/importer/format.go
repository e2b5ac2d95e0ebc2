package importer

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
)

// A Format is what ctx knows of one input format: how to tell it, how to
// read it, what to call it. Each agent's package (lib/agent/NAME)
// declares its own; the formats of no agent (the API exchanges, ATIF,
// OTel, LangSmith, Inspect) are declared in this package; lib/formats
// lists them all, in one Registry. The importer machinery (the Builder,
// Options, Report, Error) is this package's.
type Format struct {
	// Name is the format's name, as given to ctx-pack --from.
	Name string
	// Noun is what a log of the format is ("session", "trajectory",
	// "chat history"); "" is "log".
	Noun string
	// Session marks an agent's session, whose outputs are the files it
	// wrote: its last answer is the output of its last model call, and
	// no final.md is made up for it.
	Session bool
	// Import reads data into b.
	Import func(b *Builder, data []byte) error
	// Kinds are the kinds of record the importer knows (RecordKind):
	// those it imports and those it skips, with why.
	Kinds []RecordKind
	// FileTools are the agent's tools that write files, by tool name
	// (Builder.AgentFiles makes the files they wrote outputs).
	FileTools map[string]FileTool
	// Sniff, when set, recognises the format before the input is read
	// as JSON, by its file name or first bytes (an Aider history, an
	// Inspect .eval archive).
	Sniff func(name string, data []byte) bool
	// Match, when set, recognises the format from the input's first
	// JSON record. The Registry tries the formats in its order: the
	// first whose Match holds is the format.
	Match func(rec gjson.Result) bool
	// Beside, when set, reads what a session file has beside it (its
	// subagents' transcripts, or the messages of a session stored as
	// files), for ctx-pack to import with it; nil for input that is not
	// a file.
	Beside func(name string) (Beside, error)
	// Hook, when set, recognises a payload the agent gives its own hook
	// or notify program that names no transcript (Codex's notify) and
	// finds the transcript it is about: nil, nil when payload (as
	// HookPayload returns it) is not one. Payloads naming their
	// transcript are ParseHook's.
	Hook func(payload gjson.Result) (*Hook, error)
	// Resumable formats are transcripts that grow by lines: an import
	// may keep a checkpoint (Options.Checkpoint) and take the steps of
	// the transcript's last pack as they were (Options.Prior).
	Resumable bool
}

// Beside is what a session file has beside it.
type Beside struct {
	// Data, when not nil, is what to import in place of the file's own
	// bytes.
	Data []byte
	// Subagents are transcripts to read after the session's own
	// (Options.Subagents).
	Subagents []File
	// Note says, for stderr, what was read.
	Note string
}

// Describe names what a log of the format is, with its article: "a
// claude-code session", "an openai-chat log".
func (f Format) Describe() string {
	noun := f.Noun
	if noun == "" {
		noun = "log"
	}
	return describe(f.Name, noun)
}

func describe(name, noun string) string {
	article := "a"
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		article = "an"
	}
	return article + " " + name + " " + noun
}

// A Registry is the formats ctx imports, in the order Detect tries them.
type Registry struct {
	list   []Format
	byName map[string]Format
	names  []string
}

// NewRegistry makes the registry of formats, tried by Detect in the
// order given. Two formats of one name are a programming error.
func NewRegistry(formats ...Format) *Registry {
	r := &Registry{list: formats, byName: map[string]Format{}}
	for _, f := range formats {
		if _, dup := r.byName[f.Name]; dup || f.Name == "" || f.Import == nil {
			panic("importer: format " + f.Name + " registered twice, or without a name or an importer")
		}
		r.byName[f.Name] = f
		r.names = append(r.names, f.Name)
	}
	sort.Strings(r.names)
	return r
}

// ParseHook recognises a hook payload (ParseHook), or one a format of r
// recognises (Format.Hook); nil, nil when data is neither.
func (r *Registry) ParseHook(data []byte) (*Hook, error) {
	payload, ok := HookPayload(data)
	if !ok {
		return nil, nil
	}
	if h, err := hookOf(payload); h != nil || err != nil {
		return h, err
	}
	for _, f := range r.list {
		if f.Hook == nil {
			continue
		}
		if h, err := f.Hook(payload); h != nil || err != nil {
			return h, err
		}
	}
	return nil, nil
}

// Formats returns the supported format names, sorted.
func (r *Registry) Formats() []string { return append([]string(nil), r.names...) }

// Lookup returns the format of the given name.
func (r *Registry) Lookup(name string) (Format, bool) {
	f, ok := r.byName[name]
	return f, ok
}

// Import converts data in the given format to an execution log: canonical
// JSON bytes that ctx-pack accepts. It is ImportLog, printed with
// (*execlog.Log).JSON, as ctx-fork prints a log; ctx-pack, which packs
// what it imports, takes ImportLog's log as it is. format must be one of
// Formats (resolve "auto" with Detect first). Malformed input gives an
// *Error naming the line or record. data is read, never written, and
// must not change while Import runs.
func (r *Registry) Import(format string, data []byte, opts Options) ([]byte, Report, error) {
	f, ok := r.byName[format]
	if !ok {
		return nil, Report{}, r.unknown(format)
	}
	return f.Run(data, opts)
}

// ImportLog converts data in the given format to an execution log, as
// Import does, and returns it unprinted (Format.RunLog).
func (r *Registry) ImportLog(format string, data []byte, opts Options) (*execlog.Log, Report, error) {
	f, ok := r.byName[format]
	if !ok {
		return nil, Report{}, r.unknown(format)
	}
	return f.RunLog(data, opts)
}

func (r *Registry) unknown(format string) error {
	return fmt.Errorf("unknown import format %q (known: %s)", format, strings.Join(r.names, ", "))
}

// Detect guesses the format of data from its first record (the first line
// of JSON Lines, the first element of an array, or the document itself),
// trying the formats in the registry's order: first each one's Sniff,
// then each one's Match. name is the file name, if any (an Inspect .eval
// archive, an Aider history are told by it). When
// it cannot tell it returns a *DetectError listing the formats.
func (r *Registry) Detect(name string, data []byte) (string, error) {
	for _, f := range r.list {
		if f.Sniff != nil && f.Sniff(name, data) {
			return f.Name, nil
		}
	}
	if Blank(data) {
		return "", &DetectError{Name: name, Reason: "it is empty", Known: r.names}
	}
	rec, ok := FirstRecord(data)
	if !ok {
		return "", &DetectError{Name: name, Reason: "it is not JSON", Known: r.names}
	}
	if what := notImported(rec); what != "" {
		return "", &UnsupportedError{Name: name, What: what, Known: r.names}
	}
	for _, f := range r.list {
		if f.Match != nil && f.Match(rec) {
			return f.Name, nil
		}
	}
	return "", &DetectError{Name: name, Reason: "its first record matches none of them", Known: r.names}
}

// Choose decides how to read data, given the format the user named: Ctx
// (ctx's own log), Auto (detect) or one of Formats. It returns Ctx or the
// format to import from. Importers read leniently, so a document of
// another format would become an empty run rather than an error: when
// the user names a format and data is recognisably another one, Choose
// returns a *MismatchError. A name that is no format is an
// *UnknownFormatError.
func (r *Registry) Choose(from, name string, data []byte) (string, error) {
	if from != Ctx && from != Auto {
		if _, ok := r.byName[from]; !ok {
			return "", &UnknownFormatError{Name: from, Known: r.names}
		}
	}
	if IsExecLog(data) {
		if from == Ctx || from == Auto {
			return Ctx, nil
		}
		return "", &MismatchError{Name: name, Seen: Ctx, Want: from, seen: r.Describe(Ctx), want: r.Describe(from)}
	}
	if from == Auto {
		return r.Detect(name, data)
	}
	seen, err := r.Detect(name, data)
	var unsupported *UnsupportedError
	if errors.As(err, &unsupported) {
		return "", err
	}
	if err != nil || seen == from {
		// Nothing recognisable: the named format's own checks (or
		// ctx's schema) say what is wrong.
		return from, nil
	}
	return "", &MismatchError{Name: name, Seen: seen, Want: from, seen: r.Describe(seen), want: r.Describe(from)}
}

// Describe names what a log of format f is, with its article: "a
// claude-code session", "an openai-chat log", "a ctx execution log".
func (r *Registry) Describe(f string) string {
	if f == Ctx {
		return describe(Ctx, "execution log")
	}
	if d, ok := r.byName[f]; ok {
		return d.Describe()
	}
	return describe(f, "log")
}

// blank reports whether data holds nothing but white space.
func Blank(data []byte) bool { return len(bytes.TrimLeft(data, " \t\r\n\ufeff")) == 0 }
