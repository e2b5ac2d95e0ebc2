package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/importer/internal/snap"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Resuming an import. A Claude Code session is packed again after every
// reply (the Stop hook), a Codex rollout after every turn (notify), the
// transcript having grown by a few lines. With Options.Checkpoint set,
// an import of either saves its state once it has read the transcript's
// complete lines (ReadLines): the builder's and the format's reader's
// (Resume.State: lib/agent/claudecode's ccState, lib/agent/codex's
// codexState, each with its workspace reading),
// and the length and SHA-256 of the bytes they cover. The next import of the file restores
// that state when the file's first bytes still hash the same, and reads
// only the lines after them. A transcript rewritten or cut before that
// point (a compaction that rewrote lines, a truncation, another file at
// the same path) hashes differently and is read from its start; so is one
// read by another ctx build or with other options (the checkpoint's key).
//
// The state is saved before the end of the import changes it (joining
// calls and results, steps, the workspace's final notes), so a resumed
// import does exactly what a full import does after those lines: the log
// is byte for byte the same (resume_test.go compares them on every
// fixture cut at every line).
//
// Strings the state holds that are bytes of the transcript are saved as
// their place in it (snap), so that a checkpoint is small beside the
// transcript and restoring it does not copy the session's text.

// checkpointVersion changes when what a checkpoint holds changes meaning.
const checkpointVersion = 2

// MaxCheckpoints bounds how many checkpoints a directory keeps: writing
// one removes the least recently written beyond it.
const MaxCheckpoints = 32

// CheckpointFile returns the checkpoint file, in dir, of the import of the
// file at path (an absolute path, for a file imported again and again).
func CheckpointFile(dir, path string) string {
	h := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".ckpt")
}

// PriorFile returns the file, beside a checkpoint, that keeps the steps
// of the last pack of the transcript (execlog.Log.SavePrior), and the key
// they are saved and loaded under (execlog.LoadPrior): this build's.
func PriorFile(checkpoint string) (file, key string) {
	return strings.TrimSuffix(checkpoint, ".ckpt") + ".steps", buildID()
}

// saved is what a checkpoint holds: the state after the lines it covers,
// the builder's and the format's (T, a concrete type the format's
// package owns), encoded together, for the format's state may point into
// the builder's (snap keeps pointer identity within one encoding).
type saved[T any] struct {
	B *Builder
	F *T
}

// A Resume is how a format's reading of lines resumes (ReadLines).
type Resume[T any] struct {
	// State is the format's reading state: everything a later line, or
	// the end of the import, reads. It is saved with the builder after
	// the lines a checkpoint covers; it must be a value snap can encode
	// (no funcs, chans or non-nil interfaces; pointers to whole values).
	State *T
	// Restore takes the state a checkpoint saved (the builder is then
	// restored from it too), false when it cannot be resumed from.
	Restore func(*T) bool
	// Workspace reads the lines of data[from:to] into the format's
	// workspace reading, or, when that starts only now, the lines of
	// data[:to]; nil when the format reads no workspace.
	Workspace func(from, to int)
}

// ReadLines reads the JSON lines of data with read (Builder.JSONLines),
// resuming from the checkpoint b's Options.Checkpoint names when it
// covers the first bytes of data, and saving the state (r.State, with
// the builder's) once the complete lines are read (resumePoint), before
// the rest and the end of the import change it.
func ReadLines[T any](b *Builder, data []byte, read func(where string, rec gjson.Result) error, r Resume[T]) error {
	shape := snap.Fingerprint(&struct {
		S saved[T]
		M map[litAt]storedText
	}{})
	var s saved[T]
	ck := b.restore(data, shape, func(state []byte) bool {
		return snap.Decode(state, &s, data) == nil && s.B != nil && s.F != nil
	})
	if ck.restored && r.Restore(s.F) {
		b.resume(ck, s.B)
	} else {
		ck = checkpoint{sum: ck.sum, key: ck.key}
		ck.sum.Reset()
	}
	workspace := func(from, to int) {
		if r.Workspace != nil {
			r.Workspace(from, to)
		}
	}
	cut := max(ResumePoint(data), ck.n)
	if err := b.jsonLinesIn(data, ck.n, cut, read); err != nil {
		return err
	}
	workspace(ck.n, cut)
	b.save(ck, data, cut, func(b *Builder) any { return &saved[T]{B: b, F: r.State} })
	if b.opts.Prior != nil {
		// Read while the steps are joined and made, on one core.
		b.opts.Prior.Start()
	}
	if err := b.jsonLinesIn(data, cut, len(data), read); err != nil {
		return err
	}
	workspace(cut, len(data))
	return nil
}

// checkpointHeader is a checkpoint's first line.
type checkpointHeader struct {
	Key    string `json:"key"`    // what must match: checkpointKey
	Length int    `json:"length"` // the transcript bytes covered
	Prefix string `json:"prefix"` // their SHA-256
	Lines  int    `json:"lines"`  // the lines they hold
	// What follows: the state (its length and SHA-256), then the
	// objects of the covered bytes' string literals (objectMemo).
	StateLength int    `json:"state_length"`
	State       string `json:"state"`
	Objects     string `json:"objects"`
}

// checkpointKey names all a checkpoint's state depends on but the
// transcript: the format version, this program's build, the shape of the
// state (snap.Fingerprint), and the options that change how lines are read.
func checkpointKey(b *Builder, shape string) string {
	var subs []string
	for _, f := range b.opts.Subagents {
		h := sha256.Sum256(f.Data)
		subs = append(subs, f.Name, hex.EncodeToString(h[:]))
	}
	k, _ := json.Marshal([]any{checkpointVersion, b.format, buildID(), shape, b.opts.Deterministic, b.opts.Name, b.opts.Dir, subs})
	h := sha256.Sum256(k)
	return hex.EncodeToString(h[:])
}

// buildID identifies the running program: its path, size and time of
// change (a checkpoint of another build's importer is not resumed).
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown:" + strconv.FormatInt(time.Now().UnixNano(), 10) // matches no other run
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "unknown:" + strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	return fmt.Sprintf("%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
})

// ResumePoint returns where the lines a checkpoint may cover end in data:
// after the last line that ends with a line break, unless that line is
// the last one and not JSON (cut short while written: a later import,
// with more lines after it, reads it as an error, not as a line to leave
// out), then before it.
func ResumePoint(data []byte) int {
	end := bytes.LastIndexByte(data, '\n') + 1
	if end == 0 {
		return 0
	}
	if len(bytes.TrimSpace(data[end:])) > 0 {
		return end // a line follows, not ended yet: it is the last
	}
	start := bytes.LastIndexByte(data[:end-1], '\n') + 1
	for start > 0 && len(bytes.TrimSpace(data[start:end])) == 0 {
		// Blank lines at the end: the last line is before them.
		start = bytes.LastIndexByte(data[:start-1], '\n') + 1
	}
	if line := bytes.TrimSpace(data[start:end]); len(line) > 0 && !gjson.ValidBytes(line) {
		return start
	}
	return end
}

// A checkpoint is a saved state and the transcript bytes it covers.
type checkpoint struct {
	restored bool      // a state was decoded: something to resume
	n        int       // the bytes covered
	lines    int       // the lines they hold
	sum      hash.Hash // the SHA-256 of data[:n], to go on with
	key      string    // this import's checkpointKey
	size     int       // its state's encoded size, a hint for the next
}

// restore returns the checkpoint saved for data: a state to resume,
// decoded by decode, when there is one of this import's key (with shape,
// the state's fingerprint) whose covered bytes data still begins with.
// The objects of the literals it names are b's memo.
func (b *Builder) restore(data []byte, shape string, decode func(state []byte) bool) checkpoint {
	ck := checkpoint{sum: sha256.New()}
	if b.opts.Checkpoint == "" {
		return ck
	}
	ck.key = checkpointKey(b, shape)
	b.memo = &objectMemo{data: data, known: map[litAt]storedText{}}
	// A file ctx finds itself: regular, bounded, not a link out of the
	// cache directory.
	f, err := found.ReadFile(b.opts.Checkpoint, found.Rule{What: "import checkpoint", Max: MaxTranscript, Within: filepath.Dir(b.opts.Checkpoint)})
	if err != nil {
		return ck
	}
	nl := bytes.IndexByte(f, '\n')
	if nl < 0 {
		return ck
	}
	var h checkpointHeader
	if json.Unmarshal(f[:nl], &h) != nil || h.Key != ck.key || h.Length <= 0 || h.Length > len(data) ||
		h.StateLength < 0 || h.StateLength > len(f)-nl-1 {
		return ck
	}
	state, objects := f[nl+1:nl+1+h.StateLength], f[nl+1+h.StateLength:]
	// The checkpoint and the covered bytes are hashed while the state is
	// decoded (Decode is safe on any bytes): a state whose bytes are not
	// those saved, or that was saved for bytes that changed, is dropped.
	intact := make(chan bool, 1)
	go func() {
		ss, so := sha256.Sum256(state), sha256.Sum256(objects)
		ck.sum.Write(data[:h.Length])
		intact <- hex.EncodeToString(ss[:]) == h.State && hex.EncodeToString(so[:]) == h.Objects &&
			hex.EncodeToString(ck.sum.Sum(nil)) == h.Prefix
	}()
	var known map[litAt]storedText
	decoded := decode(state) && snap.Decode(objects, &known, nil) == nil
	if !<-intact || !decoded {
		ck.sum.Reset()
		return ck
	}
	for at, o := range known {
		if at.Off >= 0 && at.Len > 0 && at.Off+at.Len <= h.Length {
			b.memo.known[at] = o
		}
	}
	ck.restored, ck.n, ck.lines, ck.size = true, h.Length, h.Lines, h.StateLength
	return ck
}

// resume makes b the builder s a checkpoint saved, with this import's
// options and memo.
func (b *Builder) resume(ck checkpoint, s *Builder) {
	f, opts, det, memo := b.f, b.opts, b.det, b.memo
	*b = *s
	b.f, b.opts, b.det, b.memo = f, opts, det, memo
	b.resumed = ck.lines
}

// save encodes the state after data[:n], root(b) (a pointer to the
// builder's and the format's), to replace ck, which covered data[:ck.n];
// the checkpoint is written at the end of the import (commit), with the
// objects of the literals up to n.
func (b *Builder) save(ck checkpoint, data []byte, n int, root func(*Builder) any) {
	if b.memo != nil {
		b.memo.covered = n
	}
	if b.opts.Checkpoint == "" || n == 0 || n == ck.n {
		return
	}
	// The builder itself, for the format's state may point to it; what
	// the format, the options and the memo give is this import's, not
	// the state's.
	f, opts, det, resumed, memo := b.f, b.opts, b.det, b.resumed, b.memo
	b.f, b.opts, b.det, b.resumed, b.memo = nil, Options{}, nil, 0, nil
	s := root(b)
	// A little more than the last state: written once, not grown.
	state, err := snap.Encode(make([]byte, 0, ck.size+ck.size/8), s, data[:n])
	b.f, b.opts, b.det, b.resumed, b.memo = f, opts, det, resumed, memo
	if err != nil {
		return
	}
	ck.sum.Write(data[ck.n:n])
	p := &pendingCheckpoint{key: ck.key, n: n, prefix: hex.EncodeToString(ck.sum.Sum(nil)),
		lines: ck.lines + bytes.Count(data[ck.n:n], []byte{'\n'}), state: state, sum: make(chan [sha256.Size]byte, 1)}
	go func() { p.sum <- sha256.Sum256(state) }()
	b.pending = p
}

// A pendingCheckpoint is a state saved, to be written once the import
// has succeeded.
type pendingCheckpoint struct {
	key    string
	n      int
	prefix string
	lines  int
	state  []byte
	sum    chan [sha256.Size]byte // the state's, hashed while the import goes on
}

// commit writes the checkpoint save made, replacing the previous one. A
// checkpoint is a cache: when it cannot be written the import goes on,
// and the next one reads the transcript in full.
func (b *Builder) commit() {
	p := b.pending
	if p == nil {
		return
	}
	b.pending = nil
	objects, err := snap.Encode(nil, &b.memo.known, nil)
	if err != nil {
		return
	}
	ss, so := <-p.sum, sha256.Sum256(objects)
	head, err := json.Marshal(checkpointHeader{
		Key: p.key, Length: p.n, Prefix: p.prefix, Lines: p.lines,
		StateLength: len(p.state), State: hex.EncodeToString(ss[:]), Objects: hex.EncodeToString(so[:]),
	})
	if err != nil {
		return
	}
	if userconfig.WriteCache(b.opts.Checkpoint, append(head, '\n'), p.state, objects) != nil {
		return
	}
	dir := filepath.Dir(b.opts.Checkpoint)
	pruneCheckpoints(dir)
}

// An objectMemo knows the objects the text of the transcript's string
// literals (tool outputs, most of a session's bytes) is stored as, by
// their place in the transcript: a literal in the bytes a checkpoint
// covers is packed by the name of its object (execlog.QuotedStored), not
// decoded, hashed and compared with the stored object again.
type objectMemo struct {
	data    []byte
	covered int // the bytes the checkpoint this import writes covers
	mu      sync.Mutex
	known   map[litAt]storedText // guarded by mu once steps are made (builder.log)
}

// lookup returns the object of the literal at, computing it with object
// (outside the lock, so that two goroutines hash at once) when it is not
// known.
func (m *objectMemo) lookup(at litAt, object func() (storedText, bool)) (storedText, bool) {
	m.mu.Lock()
	o, ok := m.known[at]
	m.mu.Unlock()
	if ok {
		return o, true
	}
	if o, ok = object(); !ok {
		return o, false
	}
	m.mu.Lock()
	m.known[at] = o
	m.mu.Unlock()
	return o, true
}

// A litAt is a literal's place in the transcript, or (Text) that of a
// text the transcript holds as it is, without escapes.
type litAt struct {
	Off, Len int
	Text     bool
}

// A storedText is the object a literal's text is, and its size.
type storedText struct {
	D    digest.Digest
	Size int64
}

// at returns where s is in the bytes the checkpoint covers, ok false
// when s is not bytes of them.
func (m *objectMemo) at(s string, text bool) (at litAt, ok bool) {
	if m == nil || len(m.data) == 0 || len(s) == 0 {
		return litAt{}, false
	}
	off, ok := zerocopy.Offset(s, m.data)
	if !ok || off+len(s) > m.covered {
		return litAt{}, false
	}
	return litAt{off, len(s), text}, true
}

// text returns the content of s, a text of the transcript in the bytes
// the checkpoint covers, with its object; nil for another.
func (m *objectMemo) text(s string) *execlog.Content {
	at, ok := m.at(s, true)
	if !ok || !utf8.ValidString(s) {
		return nil
	}
	o, _ := m.lookup(at, func() (storedText, bool) {
		return storedText{digest.Of(m.data[at.Off : at.Off+at.Len]), int64(len(s))}, true
	})
	return execlog.TextStored(s, o.D, o.Size)
}

// content returns the content of lit, a literal of the transcript in the
// bytes the checkpoint covers, with its object; nil for another.
func (m *objectMemo) content(lit string) *execlog.Content {
	at, ok := m.at(lit, false)
	if !ok || len(lit) < 2 {
		return nil
	}
	off := at.Off
	b := m.data[off : off+len(lit) : off+len(lit)]
	o, ok := m.lookup(at, func() (storedText, bool) {
		d, size, err := execlog.QuotedObject(b)
		return storedText{d, size}, err == nil
	})
	if !ok {
		return nil // not canonical: Canonical says where
	}
	return execlog.QuotedStored(b, o.D, o.Size)
}

// pruneCheckpoints removes the checkpoints of dir written least recently
// beyond maxCheckpoints, with the prior files (PriorFile) beside them and
// those left without a checkpoint, and temporary files left by an import
// or a pack that was stopped while writing one.
func pruneCheckpoints(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type ckpt struct {
		name string
		at   time.Time
	}
	var all []ckpt
	kept := map[string]bool{}
	var priors []string
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		switch name := e.Name(); {
		case filepath.Ext(name) == ".ckpt":
			all = append(all, ckpt{name, fi.ModTime()})
			kept[strings.TrimSuffix(name, ".ckpt")] = true
		case filepath.Ext(name) == ".steps" && name[0] != '.':
			priors = append(priors, name)
		case name[0] == '.' && (strings.Contains(name, ".ckpt-") || strings.Contains(name, ".steps-")) && time.Since(fi.ModTime()) > time.Hour:
			// A temporary file of userconfig.WriteCache's, left by an
			// import or a pack that was stopped.
			os.Remove(filepath.Join(dir, name))
		}
	}
	if len(all) > MaxCheckpoints {
		slices.SortFunc(all, func(a, b ckpt) int { return b.at.Compare(a.at) })
		for _, c := range all[MaxCheckpoints:] {
			if err := os.Remove(filepath.Join(dir, c.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return
			}
			delete(kept, strings.TrimSuffix(c.name, ".ckpt"))
		}
	}
	for _, name := range priors {
		if !kept[strings.TrimSuffix(name, ".steps")] {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
