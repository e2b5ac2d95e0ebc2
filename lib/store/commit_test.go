package store_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/store"
)

// packLog packs a small log into s as ctx-pack does: latest prepared with
// the pack's objects, then moved to it.
func packLog(s *store.Store, name string) (digest.Digest, error) {
	l, err := execlog.Parse([]byte(fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},`+
		`"inputs":[{"name":"%s.txt","content":"input of %s"}],"steps":[{"type":"llm_call","output":"output of %s"}]}`, name, name, name)),
		execlog.Options{})
	if err != nil {
		return digest.Digest{}, err
	}
	s.PrepareRefs(1)
	defer s.DiscardPreparedRefs()
	m, _, err := l.Pack(s)
	if err != nil {
		return digest.Digest{}, err
	}
	return m.Hash, s.UpdateRef(store.Latest, func(*digest.Digest) (digest.Digest, error) { return m.Hash, nil })
}

// crashEnv, in the environment of this test binary run again, names the
// commit point at which it kills itself, and the store it packs into.
const crashEnv = "CTX_STORE_TEST_CRASH_AT"

// TestCrashDuringCommit kills a process packing into a store at each
// point of the commit (commit.go) and checks what it leaves: a store that
// verifies, latest unchanged, the pack committed only from the point its
// entry is linked, and a store the same pack then commits into. A kill
// keeps what the process wrote in the page cache, so this checks the
// order of the steps, not that each flush reached the disk.
func TestCrashDuringCommit(t *testing.T) {
	if point := os.Getenv(crashEnv); point != "" {
		crashingPack(point, os.Getenv(crashEnv+"_STORE"))
		return
	}
	for _, c := range []struct {
		point     string
		committed bool
	}{
		{"written", false}, // objects, entry and ref written, nothing flushed
		{"flushed", false}, // flushed, the entry not linked
		{"linked", true},   // the entry linked, packs/ not synced
		{"ref", true},      // the entry durable, latest not renamed
	} {
		t.Run(c.point, func(t *testing.T) {
			s, _, err := store.Init(filepath.Join(t.TempDir(), store.DirName))
			if err != nil {
				t.Fatal(err)
			}
			first, err := packLog(s, "first")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringCommit$")
			cmd.Env = append(os.Environ(), crashEnv+"="+c.point, crashEnv+"_STORE="+s.Root())
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "killed at "+c.point) {
				t.Fatalf("the packing process was not killed at %s: %v\n%s", c.point, err, out)
			}

			s, err = store.Open(s.Root())
			if err != nil {
				t.Fatal(err)
			}
			verify(t, s)
			if latest, err := s.Ref(store.Latest); err != nil || latest != first {
				t.Fatalf("latest = %s, %v after the crash, want %s", latest, err, first)
			}
			packs, _ := s.Packs("")
			if want := 1 + btoi(c.committed); len(packs) != want {
				t.Fatalf("%d packs after a crash at %s, want %d", len(packs), c.point, want)
			}

			second, err := packLog(s, "second")
			if err != nil {
				t.Fatalf("packing after the crash: %v", err)
			}
			if latest, _ := s.Ref(store.Latest); latest != second {
				t.Fatalf("latest = %s, want %s", latest, second)
			}
			verify(t, s)
		})
	}
}

// crashingPack is the helper process: it packs the second log into the
// store at root and kills itself at point.
func crashingPack(point, root string) {
	killAt(point)
	s, err := store.Open(root)
	if err == nil {
		_, err = packLog(s, "second")
	}
	fmt.Printf("not killed at %s: %v\n", point, err)
	os.Exit(0)
}

// killAt makes this process kill itself, as a crash would, at the store's
// crash point point (SetCrashHook), saying so on stdout first.
func killAt(point string) {
	store.SetCrashHook(func(p string) {
		if p == point {
			fmt.Println("killed at", p)
			proc, _ := os.FindProcess(os.Getpid())
			proc.Kill()
			select {}
		}
	})
}

// verify fails t unless the store has no violation; what a crash leaves
// in tmp/ and packs/.tmp-… is a warning.
func verify(t *testing.T, s *store.Store) {
	t.Helper()
	rep, err := fsck.Store(s, fsck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rep.Violations {
		t.Errorf("violation: %+v", v)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPreparedRefs checks the refs written with a pack: Set renames one
// into place, a second ref (a tag) takes the other, and what no Set used
// is removed by DiscardPreparedRefs.
func TestPreparedRefs(t *testing.T) {
	t.Parallel()
	for _, mode := range []store.SyncMode{store.SyncFS, store.SyncBatch, store.SyncEach, store.SyncNone} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			t.Parallel()
			s, _, err := store.Init(filepath.Join(t.TempDir(), store.DirName))
			if err != nil {
				t.Fatal(err)
			}
			s.SetSyncMode(mode)
			l, err := execlog.Parse([]byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[{"type":"llm_call","output":"x"}]}`), execlog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.PrepareRefs(3)
			m, _, err := l.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			if n := tmpFiles(t, s); n != 3 {
				t.Fatalf("%d files in tmp/ after the commit, want the 3 prepared refs", n)
			}
			for _, ref := range []string{store.Latest, "v1"} {
				if err := s.UpdateRef(ref, func(*digest.Digest) (digest.Digest, error) { return m.Hash, nil }); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Ref(ref); err != nil || got != m.Hash {
					t.Fatalf("%s = %s, %v, want %s", ref, got, err, m.Hash)
				}
			}
			if n := tmpFiles(t, s); n != 1 {
				t.Fatalf("%d files in tmp/ after setting two refs, want 1", n)
			}
			s.DiscardPreparedRefs()
			if n := tmpFiles(t, s); n != 0 {
				t.Fatalf("%d files in tmp/ after DiscardPreparedRefs", n)
			}
			// Packing again changes nothing, and prepares nothing.
			s.PrepareRefs(1)
			if _, _, err := l.Pack(s); err != nil {
				t.Fatal(err)
			}
			if n := tmpFiles(t, s); n != 0 {
				t.Fatalf("%d files in tmp/ after re-packing, want 0", n)
			}
			verify(t, s)
		})
	}
}

func tmpFiles(t *testing.T, s *store.Store) int {
	t.Helper()
	ents, err := os.ReadDir(s.Path("tmp"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return len(ents)
}

// TestPreparedRefOtherPack: a prepared ref holds one pack; setting a ref
// to another writes it the usual way.
func TestPreparedRefOtherPack(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(filepath.Join(t.TempDir(), store.DirName))
	if err != nil {
		t.Fatal(err)
	}
	first, err := packLog(s, "first")
	if err != nil {
		t.Fatal(err)
	}
	s.PrepareRefs(1)
	if _, err := packLog(s, "second"); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateRef("v1", func(*digest.Digest) (digest.Digest, error) { return first, nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Ref("v1"); got != first {
		t.Fatalf("v1 = %s, want %s", got, first)
	}
	s.DiscardPreparedRefs()
	if n := tmpFiles(t, s); n != 0 {
		t.Fatalf("%d files left in tmp/", n)
	}
	verify(t, s)
}
