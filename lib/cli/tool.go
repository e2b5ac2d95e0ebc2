package cli

import "github.com/ctx-tools/ctx/lib/toolpath"

// Tool returns the path of another ctx tool (ctx-redact): beside the
// running executable first, then on PATH. A tool that hands work to
// another (so as not to link its dependencies) finds it this way, as the
// ctx front finds the commands it runs.
func Tool(name string) (string, error) { return toolpath.Find(name) }
