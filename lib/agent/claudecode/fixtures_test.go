package claudecode_test

import (
	"testing"

	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// fixture is one of this package's own edge-case inputs (testdata/).
type fixture = importtest.Case[importer.Report]

// fixtures are this package's edge-case inputs; each file adds its own.
var fixtures []fixture

// TestFixtures checks each fixture's log (importtest.RunCases).
func TestFixtures(t *testing.T) { importtest.RunCases(t, fixtures, formatstest.Importer()) }
