package replay

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Where executors come from. A pack, and the store it travels in, come
// from strangers: a replay runs only commands the user gave on this
// machine. In order of precedence:
//
//  1. --tool NAME=CMD, for this run (it may replace a built-in);
//  2. "tools" in the store's .ctx/config.json, only when the user trusts
//     that store: --trust-store-config for this run, or its directory
//     listed in "trusted_stores" of the user's config;
//  3. "tools" in the user's config (lib/userconfig: $CTX_CONFIG, else
//     $XDG_CONFIG_HOME/ctx/config.json or ~/.config/ctx/config.json),
//     which the user wrote.
//
// No configuration replaces a built-in (read_file, list_dir, glob, grep
// and their aliases): an entry for one is ignored with a warning.

// ToolSources are the places executors may come from (see above).
type ToolSources struct {
	Flags      map[string]Executor // --tool
	User       *userconfig.Config  // the user's config; nil for none
	Store      *store.Store        // the store replayed from
	TrustStore bool                // --trust-store-config
}

// ConfigError is a configuration file whose executors cannot be read.
type ConfigError struct {
	Path string
	Err  error
}

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsBuiltin reports whether tool names a built-in executor or an alias of
// one.
func IsBuiltin(tool string) bool {
	_, b := builtins[tool]
	_, a := Aliases[tool]
	return b || a
}

// LoadTools returns the executors the user gave for a replay, and
// warnings about configured executors it ignored.
func LoadTools(src ToolSources) (map[string]Executor, []string, error) {
	tools := map[string]Executor{}
	var warnings []string
	if u := src.User; u != nil && u.Raw != nil {
		user, err := ConfigTools(u.Raw, filepath.Dir(u.Path))
		if err != nil {
			return nil, nil, &ConfigError{Path: u.Path, Err: fmt.Errorf("%s: %w", u.Path, err)}
		}
		warnings = append(warnings, addConfigured(tools, user, u.Path)...)
	}
	if s := src.Store; s != nil {
		cfg := s.ConfigPath()
		if src.TrustStore || (src.User != nil && src.User.TrustsStore(s)) {
			st, err := ConfigTools(s.Config().Raw, filepath.Dir(s.Root()))
			if err != nil {
				return nil, nil, &ConfigError{Path: cfg, Err: err}
			}
			warnings = append(warnings, addConfigured(tools, st, cfg)...)
		} else if names := configuredNames(s.Config().Raw); len(names) > 0 {
			warnings = append(warnings, fmt.Sprintf("ignoring the executors %s names (%s): a store's config is not trusted, since stores travel; "+
				"trust this one with --trust-store-config, or list it in \"trusted_stores\" of %s", cfg, strings.Join(names, ", "), src.User.Name()))
		}
	}
	maps.Copy(tools, src.Flags)
	return tools, warnings, nil
}

// addConfigured adds configured executors, except those named like a
// built-in, which configuration never replaces.
func addConfigured(tools map[string]Executor, cfg map[string]*Command, where string) []string {
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		if IsBuiltin(name) {
			warnings = append(warnings, fmt.Sprintf("%s: tools.%s is ignored: %s is built in, and configuration never replaces a built-in (--tool %s=CMD does, for one run)", where, name, name, name))
			continue
		}
		tools[name] = cfg[name]
	}
	return warnings
}

// configuredNames returns the tool names under "tools", sorted, without
// judging the entries.
func configuredNames(raw []byte) []string {
	var top struct {
		Tools map[string]jsontext.Value `json:"tools"`
	}
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(top.Tools))
}
