package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-tools/ctx/lib/digest"
)

// DirName is the name of a store directory inside a project.
const DirName = ".ctx"

// Sentinel errors; test with errors.Is.
var (
	ErrNoStore   = errors.New("no ctx store found")
	ErrNotFound  = errors.New("not found")
	ErrCorrupt   = errors.New("corrupt")
	ErrImmutable = errors.New("immutable")
)

// CorruptError reports stored content that does not match its name.
type CorruptError struct {
	What string // "object sha256:…"
	Err  error
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%s is corrupt: %v", e.What, e.Err) }
func (e *CorruptError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Config is the store's config.json. Unknown members (tool settings for
// replay, for instance) are kept in Raw.
type Config struct {
	Version int    `json:"version"`
	Hash    string `json:"hash"`
	Raw     []byte `json:"-"`
}

var defaultConfig = []byte(`{"hash":"sha256","version":1}` + "\n")

// Store is an open ctx store. Its methods are safe for concurrent use.
type Store struct {
	root    string
	objects string // root/objects/, to which object paths are appended
	config  Config
	sync    SyncMode

	holding atomic.Bool // this process holds the writers' lock (writers.go)
	// fanOutsExist is set once madeFanOut found a fan-out directory
	// already made: the store is not a new one.
	fanOutsExist atomic.Bool

	mu            sync.Mutex
	dirs          map[string]bool // fan-out directories known to exist
	pending       []string        // objects created and not yet synced
	refsToPrepare int             // refs each commit prepares (commit.go)
	prepared      []preparedRef   // refs' contents written for Set to use
}

// Init creates a store in dir (the .ctx directory itself). If dir already
// holds a store, Init changes nothing and reports created == false. When
// it returns, the store it made is durable.
func Init(dir string) (s *Store, created bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		s, err := Open(dir)
		return s, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("creating store: %w", err)
	}
	for _, sub := range []string{"objects", "packs", "refs", "refs/tags"} {
		if err := mkdir(filepath.Join(dir, sub)); err != nil {
			return nil, false, fmt.Errorf("creating store: %w", err)
		}
	}
	// config.json is written last and without replacing: its presence marks
	// a complete store, and of concurrent inits only the one whose link
	// lands has created it.
	err = writeConfig(dir)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("creating store: %w", err)
	}
	created = err == nil
	s, err = Open(dir)
	if err != nil {
		return nil, false, err
	}
	return s, created, nil
}

// mkdir creates the directory name unless it is one already: os.MkdirAll
// for a name whose parent exists, in one system call.
func mkdir(name string) error {
	err := os.Mkdir(name, 0o755)
	if errors.Is(err, fs.ErrExist) {
		if fi, serr := os.Stat(name); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}

// writeConfig writes dir/config.json, durably, with the directories made
// before it and dir's own name in its parent: the bytes of config.json
// (through a temporary file) and dir's parent are synced together, then
// config.json is linked and dir synced. Two flushes one after the other,
// as before; a syncfs(2) instead was as fast on a quiet machine and two
// to ten times slower while other programs had data to write on the same
// file system, which syncfs writes too.
func writeConfig(dir string) error {
	name := filepath.Join(dir, "config.json")
	tmp, err := writeTemp(dir, ".tmp-config.json-", defaultConfig, 0o644)
	if err != nil {
		return err
	}
	var g errgroup.Group
	g.Go(func() error { return syncFile(tmp) })
	g.Go(func() error {
		// A parent this user may write in but not read cannot be
		// opened to be synced; its entry is then left to the file
		// system, as it was before.
		if err := syncDir(filepath.Dir(dir)); err != nil && !errors.Is(err, fs.ErrPermission) {
			return err
		}
		return nil
	})
	err = g.Wait()
	if err == nil {
		err = linkNew(tmp, name)
	}
	// Before dir is synced, so that its one write drops the temporary
	// name as well.
	os.Remove(tmp)
	if err != nil {
		return err
	}
	// objects/, packs/, refs/ and config.json are named in dir; refs/tags
	// in refs/, but LockRef makes it again when it is missing.
	return syncDir(dir)
}

// InitAt creates the store named by a --store or CTX_STORE value, read by
// the rule OpenAt follows: a directory that is a store or holds .ctx names
// that store (created == false). Otherwise a directory that does not exist
// yet, is empty or is called .ctx becomes the store itself, and one that
// holds other things gets .ctx inside, so that a store's files never mix
// with a project's.
func InitAt(dir string) (s *Store, created bool, err error) {
	return Init(initDir(dir))
}

func initDir(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		return dir
	}
	if fi, err := os.Stat(filepath.Join(dir, DirName)); err == nil && fi.IsDir() {
		return filepath.Join(dir, DirName)
	}
	if filepath.Base(filepath.Clean(dir)) == DirName {
		return dir
	}
	f, err := os.Open(dir)
	if err != nil {
		return dir // does not exist (or Init will say why not)
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) == 0 {
		return dir
	}
	return filepath.Join(dir, DirName)
}

// Open opens the store whose directory is dir.
func Open(dir string) (*Store, error) {
	b, err := ReadFile(filepath.Join(dir, "config.json"), MaxConfigSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (config.json missing)", dir, ErrNoStore)
		}
		return nil, fmt.Errorf("opening store: %w", err)
	}
	c, err := parseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, "config.json"), err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Store{root: abs, objects: filepath.Join(abs, "objects") + string(filepath.Separator), config: c, sync: defaultSyncMode(), dirs: map[string]bool{}}, nil
}

// Find locates the store for a working directory: the nearest .ctx
// directory walking up from start, as git finds .git.
func Find(start string) (*Store, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	for {
		cand := filepath.Join(dir, DirName)
		if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
			return Open(cand)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("%w in %s or any parent directory", ErrNoStore, start)
		}
		dir = parent
	}
}

// OpenAt opens the store named by a --store or CTX_STORE value: either the
// store directory itself or a directory that contains .ctx.
func OpenAt(dir string) (*Store, error) {
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		if fi, err := os.Stat(filepath.Join(dir, DirName)); err == nil && fi.IsDir() {
			return Open(filepath.Join(dir, DirName))
		}
	}
	return Open(dir)
}

// Root returns the absolute path of the store directory.
func (s *Store) Root() string { return s.root }

// Config returns the store's configuration.
func (s *Store) Config() Config { return s.config }

// Path returns the absolute path of a file inside the store.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.root}, elem...)...)
}

// ObjectPath returns where the object d lives: objects/ab/cdef….
func (s *Store) ObjectPath(d digest.Digest) string {
	// Built by hand: filepath.Join cleans the path, which showed in
	// profiles of reads of thousands of objects.
	var b strings.Builder
	b.Grow(len(s.objects) + objectRelLen)
	b.WriteString(s.objects)
	var h [2 * digest.Size]byte
	hex.Encode(h[:], d[:])
	b.Write(h[:2])
	b.WriteByte(filepath.Separator)
	b.Write(h[2:])
	return b.String()
}

// objectRelLen is the length of an object's path in the objects
// directory: "ab/cdef…".
const objectRelLen = 2*digest.Size + 1

// Has reports whether the object d exists.
func (s *Store) Has(d digest.Digest) (bool, error) {
	_, err := os.Lstat(s.ObjectPath(d))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// Size returns the size of the object d.
func (s *Store) Size(d digest.Digest) (int64, error) {
	fi, err := os.Lstat(s.ObjectPath(d))
	if err != nil {
		return 0, s.objectErr(d, err)
	}
	return fi.Size(), nil
}

func (s *Store) objectErr(d digest.Digest, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("object %s: %w", d, ErrNotFound)
	}
	return fmt.Errorf("reading object %s: %w", d, err)
}

// Get returns the bytes of object d after checking they hash to d. An
// object larger than MaxObjectInMemory is refused: read it with Open.
func (s *Store) Get(d digest.Digest) ([]byte, error) {
	b, size, err := s.GetUpTo(d, MaxObjectInMemory)
	return inMemory(d, b, size, err)
}

// inMemory is Get's answer from GetUpTo's: an object too large is
// refused.
func inMemory(d digest.Digest, b []byte, size int64, err error) ([]byte, error) {
	if err == nil && b == nil {
		return nil, fmt.Errorf("object %s is %d bytes, too large to read into memory (more than %d)", d, size, MaxObjectInMemory)
	}
	return b, err
}

// GetMapped is Get mapping the object's file into memory instead of
// reading it: the pages the kernel holds for the file are shared until
// written, not copied into fresh memory (a fifth of the page faults of a
// diff of two 10,000-step packs). The mapping is private and is never
// removed, even when the bytes do not verify: it is for a command that
// reads a few large objects and exits. It relies on objects never
// changing in place (they are written whole under a temporary name);
// a file cut short under the mapping would fault the process. Where
// mapping is not possible, the object is read as Get reads it.
func (s *Store) GetMapped(d digest.Digest) ([]byte, error) {
	b, size, err := s.getUpTo(d, MaxObjectInMemory, func(name, _ string, max int64) ([]byte, int64, error) {
		return mapRegular(name, max)
	})
	return inMemory(d, b, size, err)
}

// GetUpTo returns the bytes of object d, after checking they hash to d,
// when it holds at most max bytes; for a larger object it returns nil and
// the object's size, having read nothing, for the caller to Open. It
// costs four system calls, for the thousands of small objects a diff
// reads.
func (s *Store) GetUpTo(d digest.Digest, max int64) (b []byte, size int64, err error) {
	return s.getUpTo(d, max, func(name, _ string, max int64) ([]byte, int64, error) {
		return readRegular(name, max)
	})
}

// getUpTo is GetUpTo reading the object file with read, given its path
// and its path relative to the objects directory.
func (s *Store) getUpTo(d digest.Digest, max int64, read func(name, rel string, max int64) ([]byte, int64, error)) (b []byte, size int64, err error) {
	name := s.ObjectPath(d)
	b, size, err = read(name, name[len(name)-objectRelLen:], max)
	if err != nil {
		return nil, 0, s.objectErr(d, err)
	}
	if b == nil {
		return nil, size, nil
	}
	if got := digest.Of(b); got != d {
		return nil, 0, &CorruptError{What: "object " + d.String(), Err: &digest.MismatchError{Want: d, Got: got}}
	}
	return b, size, nil
}

// Open returns a reader of object d that fails at its end, with a
// *CorruptError, if the bytes read do not hash to d.
func (s *Store) Open(d digest.Digest) (*Reader, error) {
	f, fi, err := OpenFile(s.ObjectPath(d))
	if err != nil {
		return nil, s.objectErr(d, err)
	}
	return &Reader{f: f, want: d, h: digest.NewHasher(), size: fi.Size()}, nil
}

// Reader reads one object and verifies its digest at EOF.
type Reader struct {
	f    *os.File
	want digest.Digest
	h    *digest.Hasher
	size int64
}

// Size returns the object's size.
func (r *Reader) Size() int64 { return r.size }

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.h.Write(p[:n])
	if err == io.EOF {
		if got := r.h.Digest(); got != r.want {
			return n, &CorruptError{What: "object " + r.want.String(), Err: &digest.MismatchError{Want: r.want, Got: got}}
		}
	}
	return n, err
}

// Close closes the underlying file.
func (r *Reader) Close() error { return r.f.Close() }

// Put stores b and returns its digest; created is false when the object
// already existed (deduplication).
func (s *Store) Put(b []byte) (d digest.Digest, created bool, err error) {
	if err := s.HoldWrites(); err != nil {
		return d, false, err
	}
	d = digest.Of(b)
	if !s.madeFanOut(d) {
		if ok, err := s.existsAs(d, b); err != nil || ok {
			return d, false, err
		}
	}
	tmp, err := s.newTemp()
	if err != nil {
		return d, false, err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.discard()
		return d, false, fmt.Errorf("writing object %s: %w", d, err)
	}
	created, err = s.commitObject(tmp, d, int64(len(b)))
	return d, created, err
}

// PutParts stores the object made of parts, one after the other, as Put
// stores it, without joining them in memory first (a manifest whose
// steps come from an earlier one's bytes). It returns its size.
func (s *Store) PutParts(parts [][]byte) (d digest.Digest, size int64, created bool, err error) {
	if len(parts) == 1 {
		d, created, err = s.Put(parts[0])
		return d, int64(len(parts[0])), created, err
	}
	if err := s.HoldWrites(); err != nil {
		return d, 0, false, err
	}
	// Hashed on another core while written: an object of parts is a new
	// manifest, which the store seldom holds already (the file written is
	// then dropped unnamed).
	sum := make(chan digest.Digest, 1)
	go func() {
		h := digest.NewHasher()
		for _, p := range parts {
			h.Write(p)
		}
		sum <- h.Digest()
	}()
	for _, p := range parts {
		size += int64(len(p))
	}
	tmp, err := s.newTemp()
	if err != nil {
		return <-sum, size, false, err
	}
	for _, p := range parts {
		if _, err := tmp.Write(p); err != nil {
			tmp.discard()
			d = <-sum
			return d, size, false, fmt.Errorf("writing object %s: %w", d, err)
		}
	}
	d = <-sum
	created, err = s.commitWritten(tmp, d, size)
	return d, size, created, err
}

// PutReader stores everything read from r, streaming it through a temporary
// file, so its size is not bounded by memory.
func (s *Store) PutReader(r io.Reader) (d digest.Digest, size int64, created bool, err error) {
	if err := s.HoldWrites(); err != nil {
		return d, 0, false, err
	}
	tmp, err := s.newTemp()
	if err != nil {
		return d, 0, false, err
	}
	h := digest.NewHasher()
	buf := make([]byte, 1<<20)
	size, err = io.CopyBuffer(io.MultiWriter(tmp, h), onlyReader{r}, buf)
	if err != nil {
		tmp.discard()
		return d, 0, false, fmt.Errorf("writing object: %w", err)
	}
	d = h.Digest()
	created, err = s.commitWritten(tmp, d, size)
	return d, size, created, err
}

// commitWritten names tmp, which holds object d of size bytes, unless the
// store holds d already: tmp is then dropped, and created is false.
func (s *Store) commitWritten(tmp tempObject, d digest.Digest, size int64) (created bool, err error) {
	if !s.madeFanOut(d) {
		if ok, err := s.exists(d, size); err != nil || ok {
			tmp.discard()
			return false, err
		}
	}
	return s.commitObject(tmp, d, size)
}

// onlyReader hides any WriterTo of r so that CopyBuffer uses our buffer.
type onlyReader struct{ io.Reader }

// exists reports whether object d is already stored, reading it back to
// make sure: a pack must never come to reference bytes that are not what
// its digest says. An existing file holding other bytes under d's name is
// reported, never overwritten.
func (s *Store) exists(d digest.Digest, size int64) (bool, error) {
	fi, err := os.Lstat(s.ObjectPath(d))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking object %s: %w", d, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return true, fmt.Errorf("object %s exists with other bytes (%d bytes, want %d): %w; run ctx-verify --fsck", d, fi.Size(), size, ErrImmutable)
	}
	if got, _, err := digest.OfReader(fileReader(s.ObjectPath(d))); err != nil {
		return true, fmt.Errorf("checking object %s: %w", d, err)
	} else if got != d {
		return true, fmt.Errorf("object %s exists with other bytes of the same size: %w; run ctx-verify --fsck", d, ErrImmutable)
	}
	return true, nil
}

// existsAs is exists for content held in memory: comparing the stored
// bytes with b costs less than hashing them again.
func (s *Store) existsAs(d digest.Digest, b []byte) (bool, error) {
	same, err := sameContent(s.ObjectPath(d), b)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err == nil && same:
		return true, nil
	}
	// Other bytes, or unreadable: say which, through the general check.
	if ok, err := s.exists(d, int64(len(b))); err != nil || !ok {
		return ok, err
	}
	return true, fmt.Errorf("checking object %s: %w", d, err)
}

// fileReader opens name lazily and closes it at EOF or error.
func fileReader(name string) io.Reader { return &lazyFile{name: name} }

type lazyFile struct {
	name string
	f    *os.File
}

func (l *lazyFile) Read(p []byte) (int, error) {
	if l.f == nil {
		f, _, err := OpenFile(l.name)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	n, err := l.f.Read(p)
	if err != nil {
		l.f.Close()
	}
	return n, err
}

// tempObject is an object being written: invisible until linked.
type tempObject interface {
	io.Writer
	Sync() error
	// link makes the complete, read-only content appear at name, never
	// replacing a file there (fs.ErrExist), and releases the temporary.
	link(name string) error
	discard()
}

// newTemp returns a temporary object: an unnamed file (O_TMPFILE) where
// the system has them, so that a crash leaves nothing behind and a write
// costs one directory operation; else a named file in tmp/.
func (s *Store) newTemp() (tempObject, error) {
	if t, ok := newUnnamed(filepath.Join(s.root, "objects")); ok {
		return t, nil
	}
	dir := filepath.Join(s.root, "tmp")
	f, err := os.CreateTemp(dir, "obj-")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", dir, err)
		}
		f, err = os.CreateTemp(dir, "obj-")
	}
	if err != nil {
		return nil, fmt.Errorf("creating temporary file: %w", err)
	}
	return namedTemp{f}, nil
}

// namedTemp is a temporary object in tmp/.
type namedTemp struct{ *os.File }

func (t namedTemp) link(name string) error {
	defer os.Remove(t.Name())
	if err := t.Chmod(0o444); err != nil {
		t.Close()
		return err
	}
	// Close before linking, so that the object is complete once visible.
	if err := t.Close(); err != nil {
		return err
	}
	return linkNew(t.Name(), name)
}

func (t namedTemp) discard() {
	t.Close()
	os.Remove(t.Name())
}

// commitObject links tmp into place as object d without replacing an
// existing file.
func (s *Store) commitObject(tmp tempObject, d digest.Digest, size int64) (bool, error) {
	if s.sync == SyncEach {
		if err := tmp.Sync(); err != nil {
			tmp.discard()
			return false, fmt.Errorf("syncing object %s: %w", d, err)
		}
	}
	final := s.ObjectPath(d)
	if err := s.ensureDir(filepath.Dir(final)); err != nil {
		tmp.discard()
		return false, err
	}
	if err := tmp.link(final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Another writer stored it first; it must be the same bytes.
			_, err := s.exists(d, size)
			return false, err
		}
		return false, fmt.Errorf("storing object %s: %w", d, err)
	}
	if s.sync == SyncEach {
		if err := syncDir(filepath.Dir(final)); err != nil {
			return true, err
		}
	} else {
		s.mu.Lock()
		s.pending = append(s.pending, final)
		s.mu.Unlock()
	}
	return true, nil
}

// madeFanOut makes the fan-out directory of object d, when this Store has
// not met it, and reports whether it made it: then nothing is stored
// there under d's name, and the Put need not look for the object (a
// new store's first objects each make their directory; W1 looks 16 times
// less, 0.12-0.20 ms). An object another writer links there meanwhile is
// still found, by the link that never replaces (commitObject), and its
// bytes checked. Once a directory is found made, the store is not a new
// one: every later object is looked for first, and no more directories
// are made ahead, so that a store full of objects costs one mkdir more.
func (s *Store) madeFanOut(d digest.Digest) bool {
	if s.fanOutsExist.Load() {
		return false
	}
	name := s.ObjectPath(d)
	dir := name[:len(name)-objectRelLen+2]
	s.mu.Lock()
	known := s.dirs[dir]
	s.mu.Unlock()
	if known {
		return false
	}
	err := os.Mkdir(dir, 0o755)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			s.fanOutsExist.Store(true)
		}
		// Else ensureDir makes it (objects/ may be missing) or says why not.
		return false
	}
	s.mu.Lock()
	s.dirs[dir] = true
	s.mu.Unlock()
	return true
}

func (s *Store) ensureDir(dir string) error {
	s.mu.Lock()
	ok := s.dirs[dir]
	s.mu.Unlock()
	if ok {
		return nil
	}
	err := mkdir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	s.mu.Lock()
	s.dirs[dir] = true
	s.mu.Unlock()
	return nil
}

// linkNew puts oldname at newname unless newname exists (fs.ErrExist).
// Hard links never replace; where they are unsupported, a rename after an
// existence check is the fallback.
func linkNew(oldname, newname string) error { return linkNewIn(hostOps{}, oldname, newname) }

// Sync makes every object this Store created durable. Callers sync before
// writing a pack entry, the commit point, so that a finalized pack never
// references an object a power loss could take away (PutPackEntry does).
func (s *Store) Sync() error { return s.syncWith(nil) }

// syncWith is Sync, also making durable the bytes (not the names) of the
// files staged, which the same flush then covers.
func (s *Store) syncWith(staged []string) error {
	s.mu.Lock()
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(pending) == 0 && len(staged) == 0 {
		return nil
	}
	if err := s.sync1(pending, staged); err != nil {
		// Keep them pending: a later Sync must not report them durable.
		s.mu.Lock()
		s.pending = append(pending, s.pending...)
		s.mu.Unlock()
		return err
	}
	return nil
}

func (s *Store) sync1(pending, staged []string) error {
	switch s.sync {
	case SyncFS:
		if err := syncFS(s.root); err == nil {
			return nil
		}
		// Not supported here: fall back to syncing each file.
	case SyncNone:
		return nil
	}
	dirs := map[string]bool{}
	for _, name := range pending {
		dirs[filepath.Dir(name)] = true
	}
	// Files and directories together, several at a time: concurrent
	// fsyncs share the device's cache flushes. A staged file's name is
	// made durable by whoever links it into place, after this.
	var g errgroup.Group
	g.SetLimit(16)
	for _, name := range append(pending, staged...) {
		g.Go(func() error { return syncFile(name) })
	}
	for dir := range dirs {
		g.Go(func() error { return syncDir(dir) })
	}
	return g.Wait()
}

func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", name, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", name, err)
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return syncOpenDir(f, dir)
}

// syncOpenDir syncs and closes the directory f, named dir.
func syncOpenDir(f *os.File, dir string) error {
	defer f.Close()
	// Some file systems cannot sync directories; the data is safe there.
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// Objects returns the digests of stored objects whose hex form starts with
// prefix (all objects for ""), sorted.
func (s *Store) Objects(prefix string) ([]digest.Digest, error) {
	prefix = strings.ToLower(prefix)
	var fan []string
	if len(prefix) >= 2 {
		fan = []string{prefix[:2]}
	} else {
		ents, err := os.ReadDir(filepath.Join(s.root, "objects"))
		if err != nil {
			return nil, fmt.Errorf("listing objects: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() && len(e.Name()) == 2 && strings.HasPrefix(e.Name(), prefix) {
				fan = append(fan, e.Name())
			}
		}
	}
	var out []digest.Digest
	for _, f := range fan {
		ents, err := os.ReadDir(filepath.Join(s.root, "objects", f))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing objects: %w", err)
		}
		for _, e := range ents {
			h := f + e.Name()
			if !strings.HasPrefix(h, prefix) {
				continue
			}
			if d, err := digest.Parse(h); err == nil {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// touch sets the modification time of name to now, leaving its content
// alone; errors are ignored, since only ordering and the age ctx-gc
// reads depend on it.
func touch(name string) {
	now := time.Now()
	os.Chtimes(name, now, now)
}

// PackEntry returns the bytes of packs/<hex of d>; ErrNotFound if the pack
// is not finalized in this store.
func (s *Store) PackEntry(d digest.Digest) ([]byte, error) {
	b, err := ReadFile(filepath.Join(s.root, "packs", d.Hex()), MaxEntrySize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("pack %s: %w", d, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading pack entry %s: %w", d, err)
	}
	return b, nil
}

// HasPack reports whether d is a finalized pack in this store.
func (s *Store) HasPack(d digest.Digest) (bool, error) {
	_, err := os.Lstat(filepath.Join(s.root, "packs", d.Hex()))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// Packs returns the digests of finalized packs whose hex form starts with
// prefix (all packs for ""), in directory order. Names that are not 64 hex
// digits are skipped (ctx-verify --store reports them).
func (s *Store) Packs(prefix string) ([]digest.Digest, error) {
	prefix = strings.ToLower(prefix)
	f, err := os.Open(filepath.Join(s.root, "packs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing packs: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("listing packs: %w", err)
	}
	out := make([]digest.Digest, 0, len(names))
	for _, n := range names {
		if len(n) != digest.HexSize || !strings.HasPrefix(n, prefix) {
			continue
		}
		if d, err := digest.Parse(n); err == nil && d.Hex() == n {
			out = append(out, d)
		}
	}
	return out, nil
}

// readAll appends r's content to b, as io.ReadAll does, into b's capacity.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
