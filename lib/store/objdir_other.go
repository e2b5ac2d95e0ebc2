//go:build !linux

package store

type objectDir struct{}

func (o *objectDir) open(string) error { return nil }

func (o *objectDir) read(name, _ string, max int64) ([]byte, int64, error) {
	return readRegular(name, max)
}

func (o *objectDir) readInto(name, _ string, max int64, _ []byte) ([]byte, int64, error) {
	return readRegular(name, max)
}

func (o *objectDir) close() error { return nil }
