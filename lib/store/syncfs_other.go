//go:build !linux

package store

import "errors"

func syncFS(string) error { return errors.ErrUnsupported }
