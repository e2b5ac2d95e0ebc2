// Package fsck verifies a ctx store, or one pack in it, and reports every
// problem it finds as a violation {rule_id, path, message}: the verifier
// discipline of the kernel's PACK_SPEC (seed 003), applied to ctx's own
// store. Violations are sorted by rule id, then path, then message, and
// carry no timing or ordering noise, so the same store always gives the
// same bytes. Paths are slash-separated and relative to the store
// directory (objects/ab/cdef…, packs/<hex>, refs/latest).
//
// Rules (ids compare as strings, as the kernel's PK ids do):
//
//	ST1  object integrity: an object's bytes do not hash to its name, or it
//	     cannot be read
//	ST2  layout: a file or directory that is not part of the store layout
//	     (a stray file, a malformed object or pack name)
//	ST3  file type: a symlink, or a file where a directory belongs (or the
//	     other way round), a device, a pipe
//	ST4  pack entry: a packs/ entry that does not parse, is not canonical,
//	     disagrees with its manifest, or is missing for a pack manifest
//	     named by --pack
//	ST5  manifest: a pack's manifest object is missing, does not hash to the
//	     pack's name, or does not parse as a manifest
//	ST6  dangling reference: a manifest references an object that is not
//	     in the store
//	ST7  ref: refs/latest or a tag is malformed, has an invalid name, or
//	     points at no finalized pack
//
// Warnings have rule ids too, but never make a store invalid:
//
//	ST8  a pack's parent is not a finalized pack in this store (normal when
//	     only some packs were copied)
//	ST9  a leftover temporary or lock file (tmp/…, packs/.tmp-…, drafts/.tmp-…,
//	     refs/….lock): an interrupted write, or one still in flight; safe
//	     to delete when no ctx command is running
//
// Hashing, the dominant cost, runs on as many workers as GOMAXPROCS. Each
// object is read and hashed once: the objects pass leaves the manifests
// of the packs packs/ lists to the packs pass, which hashes each as it
// reads it to parse.
package fsck
