// Package snap saves an importer's in-memory state as bytes and restores
// it exactly, so that an import can resume from a checkpoint.
package snap
