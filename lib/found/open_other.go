//go:build !unix

package found

const openFlags = 0

func isLoop(error) bool { return false }
