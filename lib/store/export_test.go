package store

// SetCrashHook makes the points of a commit call f, for tests of what a
// crash at each leaves behind; nil removes it.
func SetCrashHook(f func(point string)) { crashHook = f }
