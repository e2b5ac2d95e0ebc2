package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLibBoundaries enforces the library's two rules: nothing under lib/
// but this package imports kong, and nothing under lib/ but this package
// prints (fmt.Print*, os.Stdout, os.Stderr, package log).
func TestLibBoundaries(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no lib sources found: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || filepath.Dir(name) == filepath.Join("..", "cli") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(path, "alecthomas/kong") || path == "log" {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case x.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"),
				x.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr"):
				t.Errorf("%s: %s.%s: only lib/cli prints", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked only %d files", checked)
	}
	if _, err := os.Stat("../store"); err != nil {
		t.Fatal("run from lib/cli")
	}
}
