// Package gc removes from a store what nobody needs any more: the
// superseded snapshots of agent sessions, then the objects no pack
// references. It is ctx-gc's engine.
//
// # What is kept
//
// A pack is kept when it is
//
//   - not a snapshot of an agent session (manifest.Snapshot): packs made
//     from logs, forks, imports of a file are never dropped;
//   - the newest snapshot of its session, in ctx-log's order (more steps,
//     then packed later, first);
//   - named by refs/latest or a tag, or given in Options.Keep;
//   - pushed to a registry from this account (Options.Pushed);
//   - the parent, or an ancestor, of a kept pack.
//
// Every other pack, an older snapshot of a session, is dropped: its
// packs/ entry is removed, then its manifest object. Then every object no
// kept pack references (the one walk over a manifest's references,
// manifest.Refs) is removed: at once when a dropped pack referenced it,
// and otherwise only once it is older than Options.Grace, by modification
// time. A manifest object with no packs/ entry whose references are all
// present counts as a pack (as it does for every command) and keeps what
// it references. Leftovers in tmp/ older than the grace period go too.
// Nothing is removed through a symlink: when tmp/, packs/, objects/ or a
// fan-out directory it would remove from is one, Run removes nothing.
//
// # Concurrent writers
//
// Run decides once without a lock, then takes the store's writers' lock
// exclusively (store.LockWrites), decides again with what it read cached
// (only packs finalized in between are read), and removes. Every ctx
// command that writes objects or pack entries holds that lock shared from
// its first write, and before it checks that what its manifest will
// reference is present, until it exits; the kernel releases it when the
// process dies, kill -9 included. So no pack is finalized while objects
// are removed, every pack finalized before is seen, and no object a pack
// being written needs is removed. Objects written by a writer that does
// not take the lock (an older ctx, a copy made by hand) are new, and the
// grace period keeps them.
package gc
