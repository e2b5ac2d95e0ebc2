package execlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/internal/halves"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// A session is packed again after every reply, and most of its steps are
// the steps it had the time before. A Prior is what packing a log left
// for the next pack of the same log grown: for each step, a fingerprint
// of the step as the log gave it (before Canonical), and where the
// step's entry lies in the pack's manifest. A step of the next log with
// the same fingerprint is taken from that manifest as it is (Reuse):
// neither put in printed form nor stored nor encoded again. The pack is
// the same, byte for byte, as packing the log afresh.
//
// The file (SavePrior) is a cache in the user's: a JSON header line (the
// caller's key, the pack, its size, the SHA-256 of the rest) and the
// entries. One that does not hash as its header says, names a pack the
// store does not hold, or whose manifest does not hash to its name is
// not used.
type Prior struct {
	start    sync.Once
	load     func()
	done     chan struct{}
	err      error // why the prior cannot be used
	pack     digest.Digest
	manifest []byte
	at       map[fingerprint]priorStep
	refs     []digest.Digest
}

// priorStep is one step of the prior pack: its bytes in the manifest and
// the objects it references (indexes into Prior.refs).
type priorStep struct {
	span manifest.Span
	refs []uint32
}

// fingerprint identifies a step as the log gives it; the zero value is
// none (a step whose content is a file, read when packed).
type fingerprint [sha256.Size]byte

// priorHeader is the first line of a prior file.
type priorHeader struct {
	Version int           `json:"version"`
	Key     string        `json:"key"`
	Pack    digest.Digest `json:"pack"`
	Size    int64         `json:"size"` // the manifest's
	Steps   int           `json:"steps"`
	Refs    int           `json:"refs"`
	Sum     string        `json:"sum"` // SHA-256 of the bytes after the header line
}

// priorVersion changes when what a fingerprint covers does.
const priorVersion = 1

// maxPrior bounds a prior file: far more than a session's steps take.
const maxPrior = 256 << 20

// LoadPrior returns the prior file (SavePrior) whose header holds key,
// with the manifest of the pack it names from s, to be read in the
// background once Start is called (or when first needed): its 10 MB are
// best read while the caller works on one core. Any problem makes a
// Prior that reuses nothing (Err says why).
func LoadPrior(s *store.Store, file, key string) *Prior {
	p := &Prior{done: make(chan struct{})}
	p.load = func() {
		defer close(p.done)
		p.err = p.read(s, file, key)
		if p.err != nil {
			p.manifest, p.at, p.refs = nil, nil, nil
		}
	}
	return p
}

// Start starts reading p in the background, once.
func (p *Prior) Start() { p.start.Do(func() { go p.load() }) }

// Err waits for p to be read, and says why it cannot be used (nil when it
// can).
func (p *Prior) Err() error {
	p.Start()
	<-p.done
	return p.err
}

// Pack is the pack p's steps are taken from.
func (p *Prior) Pack() digest.Digest {
	p.Err()
	return p.pack
}

func (p *Prior) read(s *store.Store, file, key string) error {
	b, err := found.ReadFile(file, found.Rule{What: "packed steps", Max: maxPrior, Within: filepath.Dir(file)})
	if err != nil {
		return err
	}
	head, body, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return errors.New("no header")
	}
	var h priorHeader
	if err := json.Unmarshal(head, &h); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if h.Version != priorVersion || h.Key != key {
		return errors.New("another version's or another log's")
	}
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != h.Sum {
		return errors.New("damaged: does not hash as its header says")
	}
	if h.Refs < 0 || h.Steps < 0 || len(body) < h.Refs*digest.Size {
		return errors.New("damaged: short")
	}
	p.refs = make([]digest.Digest, h.Refs)
	for i := range p.refs {
		body = body[copy(p.refs[i][:], body):]
	}
	p.at = make(map[fingerprint]priorStep, h.Steps)
	for range h.Steps {
		var e priorStep
		var fp fingerprint
		if len(body) < len(fp) {
			return errors.New("damaged: short")
		}
		body = body[copy(fp[:], body):]
		var vals [3]uint64
		for i := range vals {
			v, n := binary.Uvarint(body)
			if n <= 0 {
				return errors.New("damaged: bad number")
			}
			vals[i], body = v, body[n:]
		}
		if vals[0] > vals[1] || vals[1] > uint64(h.Size) || vals[2] > uint64(len(body)) {
			return errors.New("damaged: out of range")
		}
		e.span = manifest.Span{Start: int64(vals[0]), End: int64(vals[1])}
		e.refs = make([]uint32, vals[2])
		for i := range e.refs {
			v, n := binary.Uvarint(body)
			if n <= 0 || v >= uint64(len(p.refs)) {
				return errors.New("damaged: bad reference")
			}
			e.refs[i], body = uint32(v), body[n:]
		}
		p.at[fp] = e
	}
	if len(body) != 0 {
		return errors.New("damaged: trailing bytes")
	}
	// ctx-gc is held off from here, so that the pack, and the objects it
	// references, stay.
	if err := s.HoldWrites(); err != nil {
		return err
	}
	if ok, err := s.HasPack(h.Pack); err != nil || !ok {
		return fmt.Errorf("pack %s is not in the store", h.Pack)
	}
	// Read in full and verified: its bytes become the new manifest's.
	m, err := s.Get(h.Pack)
	if err != nil {
		return err
	}
	if int64(len(m)) != h.Size {
		return fmt.Errorf("pack %s is not the size recorded", h.Pack)
	}
	for _, e := range p.at {
		if b := m[e.span.Start:e.span.End]; len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
			return errors.New("damaged: a step's place is not an object")
		}
	}
	p.pack, p.manifest = h.Pack, m
	return nil
}

// Fingerprint notes, for Reuse and SavePrior, what each step is as the
// log gives it now: call it before Canonical.
func (l *Log) Fingerprint() {
	l.prints = make([]fingerprint, len(l.Steps))
	l.reused = nil
	halves.Do(len(l.Steps), func(from, to int) {
		f := fingerprinter{h: sha256.New()}
		for i := from; i < to; i++ {
			l.prints[i] = f.step(&l.Steps[i])
		}
	})
}

// Reuse takes each step whose fingerprint (Fingerprint) p holds as it was
// packed, and returns how many it took. A log that reused steps is for
// Hash and Pack: printing it is refused, since those steps are not put
// in printed form.
func (l *Log) Reuse(p *Prior) int {
	if p.Err() != nil || l.prints == nil {
		return 0
	}
	n := 0
	for i, fp := range l.prints {
		e, ok := p.at[fp]
		if !ok || fp == (fingerprint{}) {
			continue
		}
		enc := p.manifest[e.span.Start:e.span.End]
		if !hasIndex(enc, i) {
			continue // a place that is not this step's: not taken
		}
		if l.reused == nil {
			l.reused = make([]reusedStep, len(l.Steps))
		}
		refs := make([]digest.Digest, len(e.refs))
		for j, r := range e.refs {
			refs[j] = p.refs[r]
		}
		l.reused[i] = reusedStep{encoded: enc, refs: refs}
		n++
	}
	return n
}

// hasIndex reports whether enc, a step's canonical JSON, is step i's. Its
// members before "index" are agent, deterministic and error, whose
// strings escape any quote: the first "index": is the step's.
func hasIndex(enc []byte, i int) bool {
	const key = `"index":`
	k := bytes.Index(enc, []byte(key))
	if k < 0 {
		return false
	}
	rest, n := enc[k+len(key):], strconv.Itoa(i)
	return bytes.HasPrefix(rest, []byte(n)) && len(rest) > len(n) && (rest[len(n)] == ',' || rest[len(n)] == '}')
}

// reusedStep is a step Reuse took from a prior pack: its manifest entry,
// and the objects it references.
type reusedStep struct {
	encoded []byte
	refs    []digest.Digest
}

// encoded returns step i's manifest entry when Reuse took it, else nil.
func (l *Log) encoded(i int) []byte {
	if l.reused == nil {
		return nil
	}
	return l.reused[i].encoded
}

// SavePrior writes, after Pack, the prior file the next pack of this log
// grown can Reuse steps from (LoadPrior, with the same key): by way of a
// temporary file, so that it is whole or not there. It needs Fingerprint
// to have been called before Pack.
func (l *Log) SavePrior(file, key string) error {
	c := l.committed
	if l.prints == nil || c == nil || len(c.Steps) != len(l.Steps) {
		return errors.New("execlog: SavePrior needs Fingerprint and Pack first")
	}
	index := map[digest.Digest]uint32{}
	var refs []digest.Digest
	var steps []byte
	n := 0
	for i, fp := range l.prints {
		if fp == (fingerprint{}) {
			continue
		}
		var mine []digest.Digest
		if l.encoded(i) != nil {
			mine = l.reused[i].refs
		} else {
			mine = c.steps[i]
		}
		steps = append(steps, fp[:]...)
		steps = binary.AppendUvarint(steps, uint64(c.Steps[i].Start))
		steps = binary.AppendUvarint(steps, uint64(c.Steps[i].End))
		steps = binary.AppendUvarint(steps, uint64(len(mine)))
		for _, d := range mine {
			k, ok := index[d]
			if !ok {
				k = uint32(len(refs))
				index[d] = k
				refs = append(refs, d)
			}
			steps = binary.AppendUvarint(steps, uint64(k))
		}
		n++
	}
	body := make([]byte, 0, len(refs)*digest.Size+len(steps))
	for _, d := range refs {
		body = append(body, d[:]...)
	}
	body = append(body, steps...)
	sum := sha256.Sum256(body)
	head, err := json.Marshal(priorHeader{
		Version: priorVersion, Key: key, Pack: c.Hash, Size: c.Size,
		Steps: n, Refs: len(refs), Sum: hex.EncodeToString(sum[:]),
	})
	if err != nil {
		return err
	}
	return userconfig.WriteCache(file, append(append(head, '\n'), body...))
}

// packed is what SavePrior needs of a Pack: the manifest's hash and
// size, where each step lies in it, and the objects each step not
// reused references.
type packed struct {
	manifest.Committed
	steps [][]digest.Digest
}

// A fingerprinter hashes steps: every field, each given its length or
// presence, so that different steps cannot write the same bytes.
type fingerprinter struct {
	h hash.Hash
	b []byte
}

func (f *fingerprinter) step(s *Step) fingerprint {
	f.h.Reset()
	f.b = f.b[:0]
	f.int(int64(s.Index))
	f.str(s.Type)
	f.str(s.Tool)
	f.str(s.Agent)
	f.flag(s.ParentStep != nil)
	if s.ParentStep != nil {
		f.int(int64(*s.ParentStep))
	}
	f.bytes(s.Parameters, s.Parameters != nil)
	if !f.content(s.Output) {
		return fingerprint{}
	}
	f.flag(s.OutputParts != nil)
	f.int(int64(len(s.OutputParts)))
	for _, p := range s.OutputParts {
		f.str(p.Type)
		f.str(p.MediaType)
		if !f.content(p.Content) {
			return fingerprint{}
		}
	}
	if !f.content(s.Reasoning) {
		return fingerprint{}
	}
	f.flag(s.Error != nil)
	if e := s.Error; e != nil {
		f.str(e.Message)
		f.optInt(e.ExitCode)
	}
	f.flag(s.Usage != nil)
	if u := s.Usage; u != nil {
		for _, fl := range u.Fields() {
			f.optInt(*fl.Value)
		}
	}
	f.flag(s.Deterministic)
	f.str(s.Timestamp)
	f.bytes(s.Metadata, s.Metadata != nil)
	f.flag(s.Observed != nil)
	f.int(int64(len(s.Observed)))
	for _, o := range s.Observed {
		f.str(o.Name)
		f.flag(o.Deleted)
		f.str(o.Skipped)
		if !f.content(o.Content) {
			return fingerprint{}
		}
	}
	f.h.Write(f.b)
	var fp fingerprint
	f.h.Sum(fp[:0])
	return fp
}

// content writes c, or reports false for content read when packed (a
// file), whose bytes the fingerprint cannot vouch for.
func (f *fingerprinter) content(c *Content) bool {
	f.flag(c != nil)
	if c == nil {
		return true
	}
	f.int(c.stated)
	f.int(c.lines)
	if !c.stored.IsZero() {
		// Its text is known to be this object (QuotedStored).
		f.b = append(f.b, 's')
		f.b = append(f.b, c.stored[:]...)
		f.int(c.storedSize)
		return true
	}
	f.b = append(f.b, byte(c.kind))
	switch c.kind {
	case inline, base64Text:
		f.bytes(c.raw, true)
	case ref:
		f.b = append(f.b, c.ref[:]...)
	case data:
		f.bytes(c.data, true)
	case text:
		f.str(c.text)
	default:
		return false
	}
	return true
}

func (f *fingerprinter) flag(ok bool) {
	if ok {
		f.b = append(f.b, 1)
	} else {
		f.b = append(f.b, 0)
	}
}

func (f *fingerprinter) int(v int64) { f.b = binary.AppendVarint(f.b, v) }

func (f *fingerprinter) optInt(v *int64) {
	f.flag(v != nil)
	if v != nil {
		f.int(*v)
	}
}

func (f *fingerprinter) str(s string) {
	f.bytes(zerocopy.Bytes(s), true)
}

// bytes writes b's presence and length, then b: large ones straight to
// the hash.
func (f *fingerprinter) bytes(b []byte, present bool) {
	f.flag(present)
	f.b = binary.AppendUvarint(f.b, uint64(len(b)))
	if len(b) < 512 {
		f.b = append(f.b, b...)
		return
	}
	f.h.Write(f.b)
	f.b = f.b[:0]
	f.h.Write(b)
}
