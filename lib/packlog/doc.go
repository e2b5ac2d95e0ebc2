// Package packlog lists the packs of a store from their packs/ entries,
// the store's index, without reading manifests: ctx-log's engine.
//
// Read loads every entry, in parallel, and reports a corrupt entry as a
// problem without letting it hide the others. Entries are ordered newest
// first by created (compared as times, not strings); ties (the snapshots
// of an agent session share its start) are broken by lineage, then steps,
// then packing time, then hash (Compare), and Previous walks a session's
// snapshots in that order;
// List keeps the n first ones with a bounded heap, so `ctx-log -n 20` does
// not sort the whole store, and reads packing times and decodes usage only
// for the entries it sorts or returns. Filter selects by model, time range and gjson
// queries (Query), which read a pack's manifest only when they name fields
// its summary lacks. Lineage follows parent links from a pack to its root.
// An Entry encodes itself as one canonical JSON line.
//
// Opening one file per pack is what listing costs; for large stores List
// can keep a copy of the entries in one cache file outside the store
// (Options.CacheDir), trusted entry by entry only while the entry file is
// the same (cache.go says how). There too, a --where query on a manifest
// field reads each manifest without its steps, when that answers it
// (projection.go).
package packlog
