package store

import "os"

// SyncMode says how objects are made durable.
type SyncMode int

const (
	// SyncFS flushes the whole file system holding the store once, at
	// Sync (syncfs(2) on Linux; elsewhere it behaves as SyncBatch).
	SyncFS SyncMode = iota
	// SyncBatch fsyncs every new object and every directory holding one
	// at Sync, several at a time.
	SyncBatch
	// SyncEach fsyncs each object and its directory as it is written.
	SyncEach
	// SyncNone never syncs; for measuring what durability costs only.
	SyncNone
)

// defaultSyncMode reads CTX_FSYNC (fs, batch or object; the default is fs),
// which exists to compare the strategies in benchmarks.
func defaultSyncMode() SyncMode {
	switch os.Getenv("CTX_FSYNC") {
	case "batch":
		return SyncBatch
	case "object":
		return SyncEach
	}
	return SyncFS
}

// SetSyncMode changes how this Store makes objects durable.
func (s *Store) SetSyncMode(m SyncMode) { s.sync = m }
