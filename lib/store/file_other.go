//go:build !unix

package store

// openFlags: where there is no O_NOFOLLOW or O_NONBLOCK, the type is
// checked after opening.
const openFlags = 0
