package store

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
)

// On Linux, packs/ is read through its directory descriptor: getdents(2)
// parsed in place, and each entry opened with openat(2), one path element
// instead of the whole store path, without the poller registration and
// stat that os.ReadFile adds, and read with a single read(2). On this
// class of machine system calls are most of the cost of listing a large
// store, and this takes about half of them away.

type packDir struct{ fd int }

func (p *packDir) open(s *Store) error {
	fd, err := syscall.Open(s.packsDir(), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("listing packs: %w", err)
	}
	p.fd = fd
	return nil
}

func (p *packDir) close() error { return syscall.Close(p.fd) }

func (p *packDir) id() (string, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(p.fd, &st); err != nil {
		return "", false
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), true
}

func (p *packDir) list() ([]PackName, error) {
	if _, err := syscall.Seek(p.fd, 0, 0); err != nil {
		return nil, fmt.Errorf("listing packs: %w", err)
	}
	buf := make([]byte, 256<<10)
	var out []PackName
	for {
		n, err := syscall.ReadDirent(p.fd, buf)
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
				if digest.FromLowerHex(&d, n[:digest.HexSize]) {
					out = append(out, PackName{Digest: d, Ino: binary.NativeEndian.Uint64(b[0:8])})
				}
			}
			b = b[reclen:]
		}
	}
}

func (p *packDir) read(d digest.Digest, buf []byte) ([]byte, error) {
	var hexName [digest.HexSize]byte
	hex.Encode(hexName[:], d[:])
	name := zerocopy.String(hexName[:]) // no copy: openat copies it for the kernel
	var fd int
	for {
		var err error
		fd, err = unix.Openat(p.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOENT {
			// Listed a moment ago: the store changed under us.
			return buf, fmt.Errorf("pack entry %s: %w", d, ErrNotFound)
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
		return buf, fmt.Errorf("reading pack entry %s: packs/%s: %w", d, d.Hex(), ErrNotRegular)
	}
	if st.Size > MaxEntrySize {
		return buf, fmt.Errorf("reading pack entry %s: packs/%s is %d bytes, more than the %d it may hold", d, d.Hex(), st.Size, MaxEntrySize)
	}
	start := len(buf)
	for {
		if len(buf)-start > MaxEntrySize {
			return buf, fmt.Errorf("reading pack entry %s: packs/%s is more than the %d bytes it may hold", d, d.Hex(), MaxEntrySize)
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
