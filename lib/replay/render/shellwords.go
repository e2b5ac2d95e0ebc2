package render

import (
	"fmt"
	"strings"
)

// Split splits a command line into words as a POSIX shell splits simple
// words: blanks separate words, '…' quotes literally, "…" quotes with \
// escaping only \ " $ and `, and a \ outside quotes escapes the next
// character. Nothing is expanded: no variables, globs or ~. Unquoted
// operators (| & ; < > ( ) $ `) are errors, since a shell would give them
// a meaning; put such a pipeline in a script and name the script.
func Split(line string) ([]string, error) {
	stages, err := split(line, false)
	if err != nil {
		return nil, err
	}
	return stages[0], nil
}

// SplitPipeline splits a pipeline of simple commands (CMD | CMD …) at its
// unquoted "|", each command as Split splits it. Any other operator, and
// an empty command ("||", a leading or trailing "|"), is an error.
func SplitPipeline(line string) ([][]string, error) {
	return split(line, true)
}

func split(line string, pipes bool) ([][]string, error) {
	var stages [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endStage := func() error {
		if len(words) == 0 {
			if len(stages) > 0 || pipes && strings.Contains(line, "|") {
				return fmt.Errorf("splitting %q: a pipeline with an empty command", line)
			}
			return fmt.Errorf("splitting %q: no command", line)
		}
		stages = append(stages, words)
		words = nil
		return nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					w.WriteByte(line[i])
				}
			}
		case '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("splitting %q: unterminated '", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case '"':
			inWord = true
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\\\"$`\n", line[i+1]) >= 0 {
					i++
					if line[i] == '\n' {
						continue
					}
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("splitting %q: unterminated \"", line)
			}
		case '|':
			if !pipes {
				return nil, operator(line, c)
			}
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			if err := endStage(); err != nil {
				return nil, err
			}
		case '&', ';', '<', '>', '(', ')', '$', '`':
			return nil, operator(line, c)
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if err := endStage(); err != nil {
		return nil, err
	}
	return stages, nil
}

func operator(line string, c byte) error {
	return fmt.Errorf("splitting %q: %q would mean something to a shell, and no shell runs it; quote it or name a script", line, string(c))
}
