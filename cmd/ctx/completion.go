package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/toolpath"
)

const completionUsage = `Usage: ctx completion bash|zsh|fish

Print a script that completes ctx's commands and each command's flags
(for ctx VERB and for ctx-VERB), as the installed commands list them:

  ctx completion bash > ~/.local/share/bash-completion/completions/ctx
  ctx completion zsh  > "${fpath[1]}/_ctx"
  ctx completion fish > ~/.config/fish/completions/ctx.fish

Generate it again after installing a new version.
`

// completion returns the completion script for shell: static, listing the
// verbs and, for each installed ctx-VERB, the flags its --help shows.
func completion(shell string) (string, error) {
	flags := verbFlags()
	switch shell {
	case "bash":
		return bashCompletion(flags), nil
	case "zsh":
		// zsh runs bash's completion functions through bashcompinit.
		return "#compdef ctx\nautoload -U +X bashcompinit && bashcompinit\n" + bashCompletion(flags), nil
	case "fish":
		return fishCompletion(flags), nil
	}
	return "", &usageError{msg: fmt.Sprintf("completion: unknown shell %q: want bash, zsh or fish", shell)}
}

// verbFlags runs `ctx-VERB --help` for every verb installed and returns
// the flags each one lists, in order, with -h.
func verbFlags() map[string][]string {
	flags := map[string][]string{}
	for _, v := range verbs {
		bin, err := toolpath.Find("ctx-" + v.name)
		if err != nil {
			continue
		}
		out, _ := exec.Command(bin, "--help").Output()
		fs := []string{"-h"}
		for line := range strings.Lines(string(out)) {
			if f, ok := helpFlag(line); ok && !slices.Contains(fs, f) {
				fs = append(fs, f)
			}
		}
		flags[v.name] = fs
	}
	return flags
}

// helpFlag returns the long flag a line of kong's help starts with,
// after its indentation: "  -n, --max-count=N …" or "  --human  …". It
// is not a regular expression so that the front does not link regexp,
// whose initialisation every ctx VERB would pay for.
func helpFlag(line string) (string, bool) {
	rest := strings.TrimLeft(line, " \t")
	if len(rest) == len(line) {
		return "", false
	}
	if len(rest) >= 4 && rest[0] == '-' && isLetter(rest[1]) && rest[2] == ',' && rest[3] == ' ' {
		rest = rest[4:]
	}
	if len(rest) < 3 || !strings.HasPrefix(rest, "--") || rest[2] < 'a' || rest[2] > 'z' {
		return "", false
	}
	n := 3
	for n < len(rest) && (rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= '0' && rest[n] <= '9' || rest[n] == '-') {
		n++
	}
	return rest[:n], true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func bashCompletion(flags map[string][]string) string {
	var b strings.Builder
	b.WriteString("# bash completion for ctx (ctx completion bash)\n")
	b.WriteString("_ctx_flags() {\n\tcase $1 in\n")
	for _, v := range verbs {
		if fs, ok := flags[v.name]; ok {
			fmt.Fprintf(&b, "\t%s) echo '%s' ;;\n", v.name, strings.Join(fs, " "))
		}
	}
	b.WriteString("\tcompletion) echo 'bash zsh fish' ;;\n\thelp) echo '" + strings.Join(names(), " ") + "' ;;\n\tesac\n}\n")
	b.WriteString(`_ctx() {
	local cur=${COMP_WORDS[COMP_CWORD]} i verb=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--store) ((i++)) ;;
		-*) ;;
		*) verb=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $verb ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--store --human --json --help --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W '` + strings.Join(names(), " ") + `' -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* || $verb == completion || $verb == help ]]; then
		COMPREPLY=($(compgen -W "$(_ctx_flags "$verb")" -- "$cur"))
	fi
}
_ctx_tool() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ctx_flags "${COMP_WORDS[0]#ctx-}")" -- "$cur"))
	fi
}
complete -o default -F _ctx ctx
`)
	for _, v := range verbs {
		if _, ok := flags[v.name]; ok {
			fmt.Fprintf(&b, "complete -o default -F _ctx_tool ctx-%s\n", v.name)
		}
	}
	return b.String()
}

func fishCompletion(flags map[string][]string) string {
	var b strings.Builder
	b.WriteString("# fish completion for ctx (ctx completion fish)\n")
	b.WriteString("complete -c ctx -n __fish_use_subcommand -l store -r -d 'store directory'\n")
	b.WriteString("complete -c ctx -n __fish_use_subcommand -l human -d 'readable rendering'\n")
	b.WriteString("complete -c ctx -n __fish_use_subcommand -l json -d 'canonical JSON'\n")
	add := func(name, does string) {
		fmt.Fprintf(&b, "complete -c ctx -f -n __fish_use_subcommand -a %s -d %s\n", name, fishQuote(does))
	}
	for _, v := range verbs {
		add(v.name, v.does)
	}
	for _, v := range builtins {
		add(v.name, v.does)
	}
	b.WriteString("complete -c ctx -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, v := range verbs {
		for _, f := range flags[v.name] {
			if !strings.HasPrefix(f, "--") {
				continue
			}
			fmt.Fprintf(&b, "complete -c ctx -n '__fish_seen_subcommand_from %s' -l %s\n", v.name, f[2:])
			fmt.Fprintf(&b, "complete -c ctx-%s -l %s\n", v.name, f[2:])
		}
	}
	return b.String()
}

// fishQuote quotes s for fish, between single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
