// Package found opens the files ctx finds for itself rather than being
// named them on its command line: the transcript a hook payload names,
// the Codex rollout a notification leads to, a session's subagent
// transcripts, key files, configuration files, the entries of every
// cache ctx keeps in the user's cache directory (blame, pack list, push
// layout, import checkpoints, secret-scan verdicts), and the files of an OCI image layout
// directory. Such a path comes from
// a stranger (a payload, a config, a directory someone else made), so one
// rule applies to all of them: after symlinks are resolved (and the
// result must stay inside the directory the file is looked for in, when
// there is one), it must be a regular file of at most a stated size.
// Anything else — a named pipe that would block, /dev/zero that never
// ends, a directory, a symlink out of the layout — is refused before a
// byte is read, with an *Error saying what the file was and why.
//
// Append applies the same rule to a file ctx adds to (a cache's log of
// verdicts): it is created or extended only when it is a regular file.
//
// A file the user names on the command line is not subject to this: a
// LOG argument may well be a pipe (<(…)).
package found
