package packgen

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// YearOptions shapes a year of sessions (Year).
type YearOptions struct {
	Sessions           int       // sessions (default 2,000)
	MinSteps, MaxSteps int       // steps of a session, log-uniform between them (default 50, 2,000)
	Start              time.Time // the first session's day (default 2025-11-01)
	Days               int       // days the sessions spread over (default 365)
	Workers            int       // sessions imported and packed at once (default GOMAXPROCS)
	Seed               uint64    // the same seed and options give the same store
	// LogBytes and ThinkBytes size the text that differs from turn to
	// turn: a test run's log (LogBytes/2 to 1.5·LogBytes, in three runs
	// of five; the others print what every session sees) and a model's
	// reasoning (up to ThinkBytes). Defaults 4,000 and 2,000.
	LogBytes, ThinkBytes int
	// Repo, when not empty, is a directory made a git repository of the
	// project, committed as the sessions left it once a month (commit
	// times after the sessions they hold): ctx-blame's work tree.
	Repo string
	// Progress, when set, is called after each session is packed.
	Progress func(done, total int)
	// Import reads a transcript as ctx-pack --from FORMAT does
	// ("claude-code" or "codex"; name is the session file's name,
	// subagents the transcripts beside it). It is the caller's, since
	// packgen cannot import the importers: their tests use packgen.
	Import func(format, name string, data []byte, subagents []File) (*execlog.Log, error)
}

// File is a named transcript: a subagent's, beside its session's.
type File struct {
	Name string
	Data []byte
}

// YearStats says what Year made.
type YearStats struct {
	Sessions, Claude, Codex int
	Packs                   int // snapshots and forks
	Forks, Tags, Subagents  int
	Steps                   int // of the sessions' last snapshots
	HotSessions             int // sessions that edited HotFile
	TranscriptBytes         int64
	Latest                  digest.Digest
	// Last is each session's last snapshot (before its fork), in time
	// order.
	Last []digest.Digest
}

// Year fills s with a year of coding sessions on one project, as a
// person capturing every session with the hooks would have: Claude Code
// transcripts (some with subagents, in transcripts of their own beside
// the session's, as Claude Code writes them) and Codex rollouts, each
// rendered in its agent's own format and imported and packed as
// ctx-pack --from claude-code|codex does (o.Import, then
// execlog.Log.Pack), in process. Each session is packed at one to three
// lengths, as the hooks pack a growing session after its replies; one in
// 25 is forked (a pack whose parent is its last snapshot, under another
// model, as ctx-fork makes one), one in 10 tagged. The sessions read
// the project's files whole and edit them, so a file's versions are
// shared by the sessions that read it unchanged, and its history can be
// blamed (HotFile is edited by 3 sessions in 20); test runs print the
// same cached output two times in five. Objects are not synced
// (store.SyncNone): the store is a fixture. latest names the newest
// session's last snapshot.
func Year(s *store.Store, o YearOptions) (YearStats, error) {
	if o.Import == nil {
		return YearStats{}, errors.New("packgen.Year: no Import given")
	}
	if o.Sessions <= 0 {
		o.Sessions = 2000
	}
	if o.MinSteps <= 0 {
		o.MinSteps = 50
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 2000
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC)
	}
	if o.Days <= 0 {
		o.Days = 365
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.LogBytes <= 0 {
		o.LogBytes = 4000
	}
	if o.ThinkBytes <= 0 {
		o.ThinkBytes = 2000
	}
	s.SetSyncMode(store.SyncNone)
	st := YearStats{Last: make([]digest.Digest, o.Sessions)}
	if o.Repo != "" {
		if err := git(o.Repo, time.Time{}, "init", "-q", "-b", "main"); err != nil {
			return st, err
		}
	}

	// The sessions are rendered in time order, one after the other (each
	// sees the files as the ones before left them), and packed by the
	// workers.
	work := make(chan *yearSession, o.Workers)
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		latest   *yearSession
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ss := range work {
				last, final, packs, err := packSession(s, ss, o.Import)
				if err != nil {
					fail(fmt.Errorf("session %d (%s): %w", ss.index, ss.id, err))
					continue
				}
				mu.Lock()
				st.Packs += packs
				st.Last[ss.index] = final
				done++
				if ss == latest {
					st.Latest = last
				}
				if o.Progress != nil {
					o.Progress(done, o.Sessions)
				}
				mu.Unlock()
			}
		}()
	}

	r := &yearRand{x: o.Seed*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d}
	p := newProject(r)
	var after, committed time.Time
	month := o.Start.Month()
	for i := range o.Sessions {
		ss := planSession(i, o.Sessions, o, r, after)
		if o.Repo != "" && ss.start.Month() != month {
			if err := commitProject(o.Repo, p, after.Add(time.Minute), month); err != nil {
				fail(err)
				break
			}
			month, committed = ss.start.Month(), after
		}
		ss.render(p, r, o)
		after = ss.end
		st.Sessions++
		if ss.codex {
			st.Codex++
		} else {
			st.Claude++
		}
		for _, f := range ss.files {
			if f == HotFile {
				st.HotSessions++
			}
		}
		st.Subagents += len(ss.subData)
		st.TranscriptBytes += int64(len(ss.data))
		st.Steps += ss.turns * stepsPerTurn
		if i%25 == 24 {
			ss.forked = true
			st.Forks++
		}
		if i%10 == 9 {
			ss.tag = fmt.Sprintf("review-%s-%03d", ss.start.Format("2006-01"), i)
			st.Tags++
		}
		mu.Lock()
		latest = ss
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		work <- ss
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return st, firstErr
	}
	st.Last = st.Last[:st.Sessions]
	if o.Repo != "" && after.After(committed) {
		if err := commitProject(o.Repo, p, after.Add(time.Minute), month); err != nil {
			return st, err
		}
	}
	if !st.Latest.IsZero() {
		err := s.UpdateRef(store.Latest, func(*digest.Digest) (digest.Digest, error) { return st.Latest, nil })
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// packSession imports and packs each snapshot of ss, then its fork and
// tag; it returns the last pack made (the fork, if any), the last
// snapshot and the number of packs made.
func packSession(s *store.Store, ss *yearSession, importLog func(format, name string, data []byte, subagents []File) (*execlog.Log, error)) (last, final digest.Digest, packs int, err error) {
	format := "claude-code"
	if ss.codex {
		format = "codex"
	}
	var l *execlog.Log
	for _, cut := range ss.cuts {
		var subs []File
		for k, at := range ss.subAt {
			if at <= cut {
				subs = append(subs, File{Name: ss.subNames[k], Data: ss.subData[k]})
			}
		}
		l, err = importLog(format, ss.name(), ss.data[:cut], subs)
		if err != nil {
			return last, final, packs, err
		}
		if err := l.Check(execlog.Options{}); err != nil {
			return last, final, packs, err
		}
		m, _, err := l.Pack(s)
		if err != nil {
			return last, final, packs, err
		}
		last, final = m.Hash, m.Hash
		packs++
	}
	if ss.forked {
		// ctx-fork: the same log, under another model, with the last
		// snapshot as its parent.
		l.Parent = last
		models := claudeModels
		if ss.codex {
			models = codexModels
		}
		l.Model.Identifier = models[(slices.Index(models, ss.model)+1)%len(models)]
		m, _, err := l.Pack(s)
		if err != nil {
			return last, final, packs, fmt.Errorf("fork: %w", err)
		}
		packs++
		if ss.tag != "" {
			ss.tag += "-fork"
		}
		last = m.Hash
	}
	if ss.tag != "" {
		err := s.UpdateRef(ss.tag, func(*digest.Digest) (digest.Digest, error) { return last, nil })
		if err != nil {
			return last, final, packs, err
		}
	}
	return last, final, packs, nil
}

// commitProject writes the project's files into repo and commits them
// at time at, as the work of month.
func commitProject(repo string, p *project, at time.Time, month time.Month) error {
	for path := range p.files {
		full := filepath.Join(repo, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(p.text(path)), 0o644); err != nil {
			return err
		}
	}
	if err := git(repo, at, "add", "-A"); err != nil {
		return err
	}
	return git(repo, at, "commit", "-q", "--allow-empty", "-m", "work of "+month.String())
}

// git runs git in dir, with author and committer dates at when set.
func git(dir string, at time.Time, args ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	if !at.IsZero() {
		d := at.Format(time.RFC3339)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}
