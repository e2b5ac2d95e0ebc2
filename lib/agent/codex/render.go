package codex

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Codex runs shell commands; the read-only ones below print what GNU
// coreutils print, reproduced from the files alone. What Codex records
// around a command's output does not depend on the files: Frame
// puts the reproduced output back into the recorded frame.

// Sed prints lines from to to (1-based, inclusive) of content, as
// `sed -n 'FROM,TOp'` does: each with its line ending; a last line without
// one stays without.
func Sed(content []byte, from, to int) []byte {
	var out []byte
	n := 0
	for len(content) > 0 {
		n++
		i := bytes.IndexByte(content, '\n')
		line := content
		if i >= 0 {
			line = content[:i+1]
		}
		if n >= from && n <= to {
			out = append(out, line...)
		}
		content = content[len(line):]
		if n >= to {
			break
		}
	}
	return out
}

// Nl numbers every line of content as `nl -ba` does: "%6d\t" before each
// line, a last line without "\n" given one.
func Nl(content []byte) []byte {
	var b bytes.Buffer
	n := 0
	for len(content) > 0 {
		n++
		i := bytes.IndexByte(content, '\n')
		line := content
		if i >= 0 {
			line = content[:i]
			content = content[i+1:]
		} else {
			content = nil
		}
		fmt.Fprintf(&b, "%6d\t", n)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Lines prints names one per line, as `ls` does when its output is not a
// terminal (in the order given).
func Lines(names []string) []byte {
	if len(names) == 0 {
		return nil
	}
	return []byte(strings.Join(names, "\n") + "\n")
}

// Read is a plain read-only command Codex ran on files, read from its
// words (ParseRead): what it prints is a function of the files alone
// (Print), and what it printed tells which lines of the file it showed
// (Shown).
type Read struct {
	Prog  string   // cat, sed, head or nl: the program that reads the files
	Files []string // the files read: one, or cat's several
	// From and To are the lines printed, 1-based and inclusive; To is
	// ToEnd for every line from From on. head -n 0 has To 0.
	From, To int
	// Numbered is set when each line is printed after its number, as
	// nl -ba numbers it ("%6d\t"); every printed line then ends in "\n".
	Numbered bool
}

// ToEnd is Read.To of a read that prints to the end of the file.
const ToEnd = math.MaxInt

// NotARead is why a command of a program that reads files (cat, sed,
// head, nl) is not one of the plain reads Read describes.
type NotARead struct {
	Prog, What string
}

// Error says what in the command is not a plain read.
func (e *NotARead) Error() string { return e.Prog + ": " + e.What + " is not a plain read" }

// sedRange is compiled at first use, not when a program that links this
// package starts.
var sedRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+)(?:,([0-9]+))?p$`) })

// ParseRead reads a command given as pipeline stages (render.SplitPipeline)
// as one of the plain reads:
//
//	cat FILE…
//	sed -n 'A,Bp' FILE      sed -n 'Ap' FILE
//	head FILE               head -n N FILE         head -N FILE
//	nl -ba FILE
//	nl -ba FILE | sed -n 'A,Bp'    nl -ba FILE | head [-n N | -N]
//
// It returns nil and no error when the first program is none of cat, sed,
// head and nl, and a *NotARead for another use of them (options, several
// files where one is read, another program in the pipeline).
func ParseRead(stages [][]string) (*Read, error) {
	if len(stages) == 0 || len(stages[0]) == 0 {
		return nil, nil
	}
	argv := stages[0]
	prog, args := argv[0], argv[1:]
	not := func(what string) error { return &NotARead{Prog: prog, What: what} }
	switch prog {
	case "cat", "sed", "head", "nl":
	default:
		return nil, nil
	}
	if len(stages) > 2 || len(stages) == 2 && prog != "nl" {
		return nil, not("a pipeline")
	}
	r := &Read{Prog: prog, From: 1, To: ToEnd}
	switch prog {
	case "cat":
		if len(args) == 0 {
			return nil, not("cat without a file")
		}
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				return nil, not("option " + a)
			}
		}
		r.Files = args
		return r, nil
	case "sed":
		if len(args) > 3 && args[0] == "-n" && sedRange().MatchString(args[1]) {
			return nil, not("sed of several files")
		}
		if len(args) != 3 || args[0] != "-n" {
			return nil, not("a sed other than sed -n 'A,Bp' FILE")
		}
		if err := r.sedRange(args[1]); err != nil {
			return nil, err
		}
		r.Files = args[2:]
		return r, nil
	case "head":
		file, err := r.head(args, true)
		if err != nil {
			return nil, err
		}
		r.Files = []string{file}
		return r, nil
	}
	if len(args) != 2 || args[0] != "-ba" {
		return nil, not("an nl other than nl -ba FILE")
	}
	r.Files, r.Numbered = args[1:], true
	if len(stages) == 1 {
		return r, nil
	}
	next := stages[1]
	switch {
	case next[0] == "sed" && len(next) == 3 && next[1] == "-n":
		if err := r.sedRange(next[2]); err != nil {
			return nil, err
		}
	case next[0] == "head":
		if _, err := r.head(next[1:], false); err != nil {
			return nil, err
		}
	default:
		return nil, not("a pipeline into " + strconv.Quote(strings.Join(next, " ")))
	}
	return r, nil
}

// sedRange reads a sed script 'A,Bp' or 'Ap' into r's lines.
func (r *Read) sedRange(script string) error {
	m := sedRange().FindStringSubmatch(script)
	if m == nil {
		return &NotARead{Prog: "sed", What: "sed script " + strconv.Quote(script)}
	}
	from, err1 := strconv.Atoi(m[1])
	to, err2 := from, error(nil)
	if m[2] != "" {
		to, err2 = strconv.Atoi(m[2])
	}
	if err1 != nil || err2 != nil || from == 0 || to < from {
		return &NotARead{Prog: "sed", What: "sed range " + script}
	}
	r.From, r.To = from, to
	return nil
}

// head reads head's arguments ([-n N | -N] FILE, or no FILE in a
// pipeline) into r's lines; it returns the file.
func (r *Read) head(args []string, file bool) (string, error) {
	not := func(what string) error { return &NotARead{Prog: "head", What: what} }
	n := 10
	switch {
	case len(args) >= 2 && args[0] == "-n":
		v, err := strconv.Atoi(args[1])
		if err != nil || v < 0 || strings.HasPrefix(args[1], "+") {
			return "", not("head -n " + args[1])
		}
		n, args = v, args[2:]
	case len(args) >= 1 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1:
		v, err := strconv.Atoi(args[0][1:])
		if err != nil || v < 0 || strings.HasPrefix(args[0][1:], "+") {
			return "", not("option " + args[0])
		}
		n, args = v, args[1:]
	}
	if file && len(args) != 1 || !file && len(args) != 0 {
		return "", not("a head other than head [-n N] FILE")
	}
	r.From, r.To = 1, n
	if file {
		return args[0], nil
	}
	return "", nil
}

// Print returns what r prints of a file holding content (for cat, of one
// of its files).
func (r *Read) Print(content []byte) []byte {
	if r.Numbered {
		content = Nl(content)
	}
	if r.From == 1 && r.To == ToEnd {
		return content
	}
	return Sed(content, r.From, r.To)
}

// PrintLines returns what r prints of a file whose lines from r.From on
// are lines (without their line endings), each ending in "\n": the caller
// knows that the file has a line ending after each of them.
func (r *Read) PrintLines(lines []string) []byte {
	var b bytes.Buffer
	for k, l := range lines {
		if r.Numbered {
			fmt.Fprintf(&b, "%6d\t", r.From+k)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Shown reads what r printed: the lines of the file it showed, from r.From
// on, without their line endings, and whether the file ends after the
// last of them (fewer lines than asked for, a last line without a line
// ending, or a read to the end of the file). An output that r could not
// have printed (more lines than asked for, nl's numbers missing or out of
// order) is an error.
func (r *Read) Shown(out []byte) (lines []string, ended bool, err error) {
	s := string(out)
	if s != "" && !strings.HasSuffix(s, "\n") {
		if r.Numbered {
			return nil, false, errors.New("the last line printed has no line ending, which nl -ba always writes")
		}
		s += "\n"
		ended = true
	}
	if s != "" {
		lines = strings.Split(s[:len(s)-1], "\n")
	}
	if r.Numbered {
		for k, l := range lines {
			prefix := fmt.Sprintf("%6d\t", r.From+k)
			text, ok := strings.CutPrefix(l, prefix)
			if !ok {
				return nil, false, fmt.Errorf("line %d printed does not start with its number %d as nl -ba writes it", k+1, r.From+k)
			}
			lines[k] = text
		}
	}
	if r.To != ToEnd && len(lines) > r.To-r.From+1 {
		return nil, false, fmt.Errorf("%d lines printed where at most %d were asked for", len(lines), max(r.To-r.From+1, 0))
	}
	ended = ended || r.To == ToEnd || len(lines) < r.To-r.From+1
	return lines, ended, nil
}
