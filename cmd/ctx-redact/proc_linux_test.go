package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// TestLargeObjectMemory: ctx-redact --check of a pack holding a 64 MB
// text object stays within 256 MB of resident memory: the shared agent
// sessions concatenated (when ../shared/testdata is here), else a tool's
// log (key=value lines among prose).
func TestLargeObjectMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 64 MB")
	}
	if e2e.Race {
		t.Skip("the race detector's shadow memory")
	}
	dir := t.TempDir()
	var b strings.Builder
	var sessions []string
	if root, err := sharedtest.Path(); err == nil {
		sessions, _ = filepath.Glob(filepath.Join(root, "agent-logs", "*", "*.json*"))
	}
	for i := 0; b.Len() < 64<<20; i++ {
		switch {
		case len(sessions) > 0:
			data, err := os.ReadFile(sessions[i%len(sessions)])
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		case i%10 == 0:
			fmt.Fprintf(&b, "2026-04-01T10:00:%02dZ INFO request_id=%08x token=none path=/v1/items/%d {\"key\":\"service.name\",\"value\":\"svc-%d\"}\n", i%60, i, i, i%97)
		default:
			fmt.Fprintf(&b, "The %dth step of the build reads the cache, then writes object %x to the store and moves on.\n", i, i*7919)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.log"), []byte(b.String()[:64<<20]), 0o644); err != nil {
		t.Fatal(err)
	}
	log := `{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"big.log","path":"big.log"}]}`
	if err := os.WriteFile(filepath.Join(dir, "log.json"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CTX_SECRETS_CACHE=off", "XDG_CACHE_HOME="+dir, "GOGC=")
	cmd := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(e2e.PlainBin(t, name), args...)
		c.Dir, c.Env = dir, env
		return c
	}
	if out, err := cmd("ctx-init").CombinedOutput(); err != nil {
		t.Fatalf("ctx-init: %v\n%s", err, out)
	}
	out, err := cmd("ctx-pack", "log.json").Output()
	if err != nil {
		t.Fatalf("ctx-pack: %v", err)
	}
	hwm := e2e.PeakRSS(t, cmd("ctx-redact", "--check", gjson.GetBytes(out, "hash").String())) << 10
	t.Logf("64 MB object: peak RSS %d MB", hwm>>20)
	if hwm > 256<<20 {
		t.Errorf("peak RSS %d MB checking a 64 MB object, want at most 256", hwm>>20)
	}
}
