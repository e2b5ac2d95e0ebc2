package packlog

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/store"
)

// On Linux, packs/ is read through its directory descriptor: getdents(2)
// parsed in place, and each entry opened with openat(2), one path element
// instead of the whole store path, without the poller registration and
// stat that os.ReadFile adds, and read with a single read(2). On this
// class of machine system calls are most of the cost of listing a large
// store, and this takes about half of them away.

// entryReader reads packs/ entries relative to the packs/ directory.
type entryReader struct {
	s   *store.Store
	dir int // packs/ directory descriptor
}

func newEntryReader(s *store.Store) (*entryReader, error) {
	fd, err := syscall.Open(s.Path("packs"), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("listing packs: %w", err)
	}
	return &entryReader{s: s, dir: fd}, nil
}

func (r *entryReader) close() { syscall.Close(r.dir) }

// id identifies the packs/ directory itself (device and inode), so that a
// cache made for one store is not taken for another at the same path.
func (r *entryReader) id() (string, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(r.dir, &st); err != nil {
		return "", false
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), true
}

// list returns the packs whose entries packs/ holds: every name of 64
// lowercase hex digits, as store.Packs does, in directory order, with its
// inode number.
func (r *entryReader) list() ([]name, error) {
	if _, err := syscall.Seek(r.dir, 0, 0); err != nil {
		return nil, fmt.Errorf("listing packs: %w", err)
	}
	buf := make([]byte, 256<<10)
	var out []name
	for {
		n, err := syscall.ReadDirent(r.dir, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing packs: %w", err)
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, errors.New("listing packs: malformed directory entry")
			}
			if n := b[19:reclen]; len(n) > digest.HexSize && n[digest.HexSize] == 0 {
				var d digest.Digest
				if decodeHex(d[:], n[:digest.HexSize]) {
					out = append(out, name{d: d, ino: binary.NativeEndian.Uint64(b[0:8])})
				}
			}
			b = b[reclen:]
		}
	}
}

// read appends the entry of d to buf. buf should have room for a whole
// entry: a read(2) that does not fill it is taken as the end of the file,
// as it is for regular files on local file systems. (Were it ever short,
// the entry would not parse in canonical form, and the caller re-reads it
// through the store.)
func (r *entryReader) read(d digest.Digest, buf []byte) ([]byte, error) {
	var hexName [digest.HexSize]byte
	hex.Encode(hexName[:], d[:])
	name := zerocopy.String(hexName[:]) // no copy: openat copies it for the kernel
	var fd int
	for {
		var err error
		fd, err = unix.Openat(r.dir, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOENT {
			// Listed a moment ago: the store changed under us.
			return buf, fmt.Errorf("pack entry %s: %w", d, store.ErrNotFound)
		}
		if err != nil {
			return buf, fmt.Errorf("reading pack entry %s: %w", d, err)
		}
		break
	}
	defer syscall.Close(fd)
	// Only a regular file is an entry, and only so large: a pipe, device
	// or runaway file in a received store must not hang or fill memory.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, fmt.Errorf("reading pack entry %s: %w", d, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, fmt.Errorf("reading pack entry %s: packs/%s: %w", d, d.Hex(), store.ErrNotRegular)
	}
	if st.Size > store.MaxEntrySize {
		return buf, fmt.Errorf("reading pack entry %s: packs/%s is %d bytes, more than the %d it may hold", d, d.Hex(), st.Size, store.MaxEntrySize)
	}
	start := len(buf)
	for {
		if len(buf)-start > store.MaxEntrySize {
			return buf, fmt.Errorf("reading pack entry %s: packs/%s is more than the %d bytes it may hold", d, d.Hex(), store.MaxEntrySize)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, fmt.Errorf("reading pack entry %s: %w", d, err)
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
	}
}

// mapFile maps the file name read-only, under rule r: the entry cache
// is read in place, without copying tens of megabytes into fresh heap
// pages. release unmaps it; nothing may hold on to the bytes after that.
func mapFile(name string, r found.Rule) (b []byte, release func(), err error) {
	f, size, err := found.Open(name, r)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if size == 0 {
		return nil, nil, fmt.Errorf("%s: empty", name)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
