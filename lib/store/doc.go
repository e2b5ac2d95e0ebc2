// Package store implements the on-disk ctx store: content-addressed objects,
// finalized pack entries and refs, under a .ctx directory.
//
// Layout:
//
//	config.json        {"version":1,"hash":"sha256"}
//	objects/ab/cdef…   raw bytes named by their SHA-256, read-only
//	packs/<64 hex>     canonical JSON summary of a finalized pack
//	refs/latest        "sha256:<hex>\n"
//	refs/tags/<name>   "sha256:<hex>\n"
//	drafts/            editable logs (ctx-fork --draft)
//	tmp/               in-flight writes, safe to delete
//
// Objects and pack entries are immutable: they are written to tmp/ and then
// linked into place without replacing anything, so a crash leaves at most
// garbage in tmp/ and concurrent writers of the same content agree. Writing
// identical bytes again is a no-op; a name that already holds other bytes
// is reported as ErrImmutable. PutPackEntry makes a pack's objects, its
// entry's bytes and the refs prepared for it (PrepareRefs) durable in one
// flush, then links the entry, the commit point (commit.go says in which
// order, and why a crash between any two steps is safe). Refs are replaced
// with rename under a flock(2) lock on their directory, which the kernel
// releases when its holder dies, so a crash never leaves a lock behind.
//
// This package alone spells the layout (layout.go): other packages ask it
// for paths (ConfigPath, PackEntryPath, Abs of ObjectRel, …), listings
// (Packs, Objects, Tags, OpenPackDir, TempLeftovers) and removals; a test
// checks that no other package joins layout names. Every file ctx writes
// whole, in a store or out of it (pages, sidecars, caches), goes through
// WriteFileAtomic or WriteOptions (atomic.go), the one
// temp→write→fsync→rename→fsync-directory sequence.
//
// Nothing is ever removed except by ctx-gc (RemovePackEntry, RemoveObject),
// under the writers' lock (writers.go): every writer holds it shared from
// its first write until it exits, ctx-gc exclusively while it removes.
package store
