package importer

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// A format declared anywhere resumes with a state of its own type
// (ReadLines, Resume): here one this package's importers know nothing
// of, a line of notes ({"note": "…"}) each a prompt, whose state is the
// notes read so far, reported at the end.

// noteState is the notes format's reading state.
type noteState struct {
	notes []string
	last  *string // the last note, a pointer into what the state holds
}

// noteRest is another shape of state for the same format.
type noteRest struct {
	notes []string
	count int
}

// notesFormat is the notes format; restore tells whether its state is
// taken from a checkpoint.
func notesFormat(restore bool) *Registry {
	return NewRegistry(Format{Name: "notes", Resumable: true, Import: func(b *Builder, data []byte) error {
		st := &noteState{}
		err := ReadLines(b, data, func(where string, rec gjson.Result) error {
			b.MapRecord()
			note := rec.Get("note").String()
			st.notes = append(st.notes, note)
			st.last = &note
			b.Prompt("user", note, nil, "")
			return nil
		}, Resume[noteState]{State: st, Restore: func(s *noteState) bool {
			if restore {
				*st = *s
			}
			return restore
		}})
		if err != nil {
			return err
		}
		last := ""
		if st.last != nil {
			last = *st.last
		}
		b.Warn("%d notes, the last %q: %s", len(st.notes), last, strings.Join(st.notes, ","))
		return nil
	}})
}

// notesRestFormat is the notes format with a state of another shape.
func notesRestFormat() *Registry {
	return NewRegistry(Format{Name: "notes", Resumable: true, Import: func(b *Builder, data []byte) error {
		st := &noteRest{}
		err := ReadLines(b, data, func(where string, rec gjson.Result) error {
			b.MapRecord()
			st.notes = append(st.notes, rec.Get("note").String())
			st.count++
			b.Prompt("user", rec.Get("note").String(), nil, "")
			return nil
		}, Resume[noteRest]{State: st, Restore: func(s *noteRest) bool { *st = *s; return true }})
		b.Warn("%d notes: %s", st.count, strings.Join(st.notes, ","))
		return err
	}})
}

func importNotes(r *Registry, data []byte, opts Options) imported {
	out, rep, err := r.Import("notes", data, opts)
	got := imported{Out: out, Rep: rep}
	if err != nil {
		got.Err = err.Error()
	}
	return got
}

func noteLines(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = append(b, `{"note": "note `+strconv.Itoa(i)+`"}`+"\n"...)
	}
	return b
}

// TestResumeFormatState: the state a format's Resume names is saved and
// restored, its pointers with it; a format that refuses the saved state,
// or whose state has another shape, reads the transcript in full.
func TestResumeFormatState(t *testing.T) {
	t.Parallel()
	first, all := noteLines(0, 5), noteLines(0, 9)
	notes := notesFormat(true)
	full := importNotes(notes, all, Options{})
	if len(full.Rep.Warnings) == 0 || !strings.Contains(full.Rep.Warnings[0], `9 notes, the last "note 8"`) {
		t.Fatalf("full import: warnings %q", full.Rep.Warnings)
	}
	for _, c := range []struct {
		name    string
		then    *Registry
		resumed int
	}{
		{"restored", notes, 5},
		{"refused", notesFormat(false), 0},
		{"other shape", notesRestFormat(), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
			if got := importNotes(notes, first, opts); got.Err != "" {
				t.Fatal(got.Err)
			}
			got := importNotes(c.then, all, opts)
			if got.Rep.Resumed != c.resumed {
				t.Errorf("resumed %d lines, want %d", got.Rep.Resumed, c.resumed)
			}
			want := full
			if c.then != notes {
				want = importNotes(c.then, all, Options{})
			}
			sameImport(t, c.name, got, want)
		})
	}
}
