package importer

import (
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
	"github.com/ctx-tools/ctx/lib/store"
)

type packed = importtest.Packed

// packDirect packs ImportLog's log, unprinted.
func packDirect(s *store.Store, format string, data []byte, opts Options, po execlog.Options) packed {
	l, _, err := ImportLog(format, data, opts)
	return importtest.PackLog(s, l, err, po)
}

func same(direct, printed packed) string { return importtest.Same[*Error](direct, printed) }

var newStore = importtest.NewStore
