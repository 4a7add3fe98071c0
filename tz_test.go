package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The goldens show times in UTC. time.Local is set once, before any test
// starts a goroutine: a test that sets it races with the timers and
// programs other tests leave running.
func init() { time.Local = time.UTC }

// TestTimeLocalSetOnlyInInit: no Go file of the module assigns time.Local
// but in an init function. Assigned later, it races with every timer
// still running, and under -race that race is not reported: a channel
// timer's send reads time.Local on the scheduler's stack, where the race
// runtime's report kills the test binary with a bare SIGSEGV
// (docs/testing.md, the race suite; testdata/racetimer shows it).
func TestTimeLocalSetOnlyInInit(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Recv == nil && fn.Name.Name == "init" {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok {
					return true
				}
				for _, lhs := range as.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Local" {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" {
							t.Errorf("%s: time.Local assigned outside an init function", fset.Position(as.Pos()))
						}
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: not the module's", files)
	}
}
