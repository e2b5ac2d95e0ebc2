package cli

import (
	"os/exec"
	"runtime"

	"github.com/ctx-tools/ctx/lib/toolpath"
)

// Tool returns the path of another ctx tool (ctx-redact): beside the
// running executable first, then on PATH. A tool that hands work to
// another (so as not to link its dependencies) finds it this way, as the
// ctx front finds the commands it runs.
func Tool(name string) (string, error) { return toolpath.Find(name) }

// RunTool runs cmd, a ctx tool doing part of this one's work (ctx-redact
// --check for ctx-push), as exec.Cmd.Run does, its life tied to this
// process's: where the system allows (Linux), it is killed when this
// process dies, even by SIGKILL, rather than left running with no one
// to read its result.
func RunTool(cmd *exec.Cmd) error {
	// Linux sends the death signal when the thread that started the
	// child exits, not the process: the thread is kept, locked to this
	// goroutine, until the child has been waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dieWithParent(cmd)
	return cmd.Run()
}
