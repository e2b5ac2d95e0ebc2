// Package remote moves context packs to and from OCI registries and OCI
// image layout directories, in the layout docs/oci-layout.md specifies:
// one OCI image manifest per pack whose config blob is the pack's
// manifest object, the pack's objects in deterministic tar layers
// bucketed by the first byte of their hash, large objects as their own
// layers.
//
// Push reads objects straight from the store; pull verifies every byte
// (the config digest is the pack hash, every object is re-hashed, the tar
// layers must be exactly canonical), in memory or a staging directory,
// before the first object enters the store, and finalizes the pack through
// manifest.Commit, so that hostile or broken content leaves the store as
// it was.
//
// Nothing a remote sends can hang a command or exhaust memory or disk
// (docs/oci-layout.md, "Bounds"): connections time out (Timeouts:
// connect, response, and a stall detector that cuts a transfer moving less
// than StallBytes per idle timeout), timeouts are not retried, every blob
// is read up to its declared size, declared sizes are checked first
// against what the layout allows, referrer listings are bounded in pages
// and entries, and a layout directory's files are read and written only
// as regular files and directories inside it (lib/found).
//
// Registries are reached through oras-go: credentials from the Docker
// configuration and its helpers, retries with backoff on 429 and 5xx,
// the referrers API with its tag-schema fallback. Pushed layouts are
// remembered in a cache outside the store (cache.go), so that a re-push
// of a pack the remote has is one request.
package remote
