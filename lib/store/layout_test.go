package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layoutNames are the first elements of the store's layout (doc.go).
var layoutNames = map[string]bool{"objects": true, "packs": true, "refs": true, "tmp": true, "drafts": true, "config.json": true}

// layoutExempt are the directories outside lib/store whose code may spell
// layout names in paths, and why.
var layoutExempt = map[string]string{
	"lib/store":           "the store itself",
	"lib/secrets/verdict": "its own cache directory (DIR/<version>/packs/, objects), not a store",
	"scripts/w1base":      "the benchmark's floor: the least a program can write by hand, without lib/store",
}

// TestLayoutOnlyInStore checks that no production Go file outside
// lib/store builds a path inside a store by joining layout names:
// filepath.Join(…, "packs", …), s.Path("tmp"), or a call to os, syscall
// or filepath on "objects/" + …. Such paths come from the store's layout
// methods (ConfigPath, PackEntryPath, Abs with ObjectRel, …). Tests may
// damage a store on purpose, so they are not checked.
func TestLayoutOnlyInStore(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, ok := layoutExempt[rel]; ok || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg := ""
			if id, ok := fn.X.(*ast.Ident); ok {
				pkg = id.Name
			}
			join := pkg == "filepath" && fn.Sel.Name == "Join" || pkg == "path" && fn.Sel.Name == "Join" || fn.Sel.Name == "Path"
			fsCall := pkg == "os" || pkg == "syscall" || pkg == "unix" || pkg == "filepath"
			for i, arg := range call.Args {
				// The name right after the root (a variable): Path's
				// first argument, or Join's after a non-literal one. A
				// literal after a literal is a deeper name
				// (~/.config/ctx/config.json, ~/.gemini/tmp).
				first := fn.Sel.Name == "Path" && i == 0
				if i > 0 {
					_, prevLit := literal(call.Args[i-1])
					first = !prevLit
				}
				if join && first {
					if s, ok := literal(arg); ok && layoutNames[strings.SplitN(s, "/", 2)[0]] {
						t.Errorf("%s: %s joins the store layout name %q: ask lib/store for the path", fset.Position(arg.Pos()), callName(fn), s)
					}
				}
				if fsCall {
					if b, ok := arg.(*ast.BinaryExpr); ok && b.Op == token.ADD {
						if s, ok := literal(leftmost(b)); ok && strings.Contains(s, "/") && layoutNames[strings.SplitN(s, "/", 2)[0]] {
							t.Errorf("%s: %s on %q + …: ask lib/store for the path", fset.Position(arg.Pos()), callName(fn), s)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files: not the module's tree", checked)
	}
}

func literal(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func leftmost(b *ast.BinaryExpr) ast.Expr {
	for {
		l, ok := b.X.(*ast.BinaryExpr)
		if !ok {
			return b.X
		}
		b = l
	}
}

func callName(fn *ast.SelectorExpr) string {
	if id, ok := fn.X.(*ast.Ident); ok {
		return id.Name + "." + fn.Sel.Name
	}
	return "." + fn.Sel.Name
}
