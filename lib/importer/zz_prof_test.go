package importer
import ("testing";"github.com/ctx-tools/ctx/internal/packgen")
func BenchmarkLogOnly(b *testing.B){ d:=packgen.ClaudeSession(20<<20); bl:=newBuilder(ClaudeCode, Options{}); if err:=importClaudeCode(bl,d);err!=nil{b.Fatal(err)}; b.ResetTimer(); for b.Loop(){ l:=bl.log(); bl.addWorkspace(l, bl.workspace) } }
