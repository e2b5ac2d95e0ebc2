package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/cmd/internal/ocitest"
	"github.com/ctx-tools/ctx/lib/attest"
)

// cosignVersion is the cosign the interop test checks bundles with.
const cosignVersion = "v3.1.3"

// cosign returns a cosign binary: $CTX_COSIGN, else cosign on PATH, else
// one built with go install into the user cache (about six minutes the
// first time).
func cosign(t *testing.T) string {
	if p := os.Getenv("CTX_COSIGN"); p != "" {
		return p
	}
	if p, err := exec.LookPath("cosign"); err == nil {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory to install cosign into: %v", err)
	}
	bin := filepath.Join(cache, "ctx-test", "cosign-"+cosignVersion)
	p := filepath.Join(bin, "cosign")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	t.Logf("installing cosign %s into %s (about six minutes)", cosignVersion, bin)
	cmd := exec.Command("go", "install", "github.com/sigstore/cosign/v3/cmd/cosign@"+cosignVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install cosign: %v\n%s", err, out)
	}
	return p
}

// TestCosign checks ctx's bundles with the real cosign, offline: the
// documented verify-blob-attestation command accepts them, and refuses a
// changed artifact, another key and another predicate type; and a bundle
// cosign attest-blob makes of ctx's predicate passes ctx-verify. Opt in
// with CTX_TEST_COSIGN=1.
func TestCosign(t *testing.T) {
	if os.Getenv("CTX_TEST_COSIGN") == "" {
		t.Skip("set CTX_TEST_COSIGN=1 to check bundles with cosign " + cosignVersion + " (installed with go install when absent)")
	}
	cos := cosign(t)
	dir := t.TempDir()
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(e2e.Bin(name), args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
		}
		return out
	}
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyKey := func(name string) {
		b, err := os.ReadFile(filepath.Join("..", "..", "lib", "attest", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		write("keys/"+name, string(b))
	}
	for _, k := range []string{"ed25519.pem", "other.pem", "id_ed25519"} {
		copyKey(k)
	}
	write("log.json", `{"created":"2026-02-10T09:00:00Z","model":{"identifier":"gpt-4o"},
		"inputs":[{"name":"spec.md","content":"Write a handler.\n"}],
		"steps":[{"type":"tool_call","tool":"read_file","parameters":{"path":"spec.md"},"output":"Write a handler.\n"}],
		"outputs":[{"name":"result.md","content":"# Result\n","confidence":"high"},{"name":"handlers/user.go","content":"package handlers\n"}]}`)
	run("ctx-init")
	hash := strings.TrimPrefix(gjson.GetBytes(run("ctx-pack", "--sidecars", "out", "--sign-key", "keys/ed25519.pem", "log.json"), "hash").String(), "sha256:")
	write("out/result.md", "# Result\n")
	write("out/handlers/user.go", "package handlers\n")
	run("ctx-attest", "--sign-key", "keys/id_ed25519", "--dir", "ssh", hash)
	write("ssh/result.md", "# Result\n")
	write("pack.json", string(run("ctx-show", "--blob", hash)))
	write("pack.json.sigstore.json", string(run("ctx-attest", "--pack", "--sign-key", "keys/ed25519.pem", hash)))
	for _, k := range []string{"ed25519.pem", "other.pem", "id_ed25519"} {
		write("keys/"+k+".pub", string(run("ctx-attest", "--public-key", "keys/"+k)))
	}

	cosignRun := func(args ...string) (bool, string) {
		cmd := exec.Command(cos, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"), "COSIGN_PASSWORD=")
		out, err := cmd.CombinedOutput()
		return err == nil, string(out)
	}
	verify := func(key, typ, bundle, artifact string) (bool, string) {
		return cosignRun("verify-blob-attestation", "--key", key, "--insecure-ignore-tlog",
			"--type", typ, "--bundle", bundle, artifact)
	}
	for _, c := range []struct {
		name, key, typ, bundle, artifact string
		ok                               bool
	}{
		{"output", "keys/ed25519.pem.pub", attest.PredicateType, "out/result.md.sigstore.json", "out/result.md", true},
		{"nested output", "keys/ed25519.pem.pub", attest.PredicateType, "out/handlers/user.go.sigstore.json", "out/handlers/user.go", true},
		{"openssh key", "keys/id_ed25519.pub", attest.PredicateType, "ssh/result.md.sigstore.json", "ssh/result.md", true},
		{"pack", "keys/ed25519.pem.pub", attest.PredicateType, "pack.json.sigstore.json", "pack.json", true},
		{"another artifact", "keys/ed25519.pem.pub", attest.PredicateType, "out/result.md.sigstore.json", "out/handlers/user.go", false},
		{"another key", "keys/other.pem.pub", attest.PredicateType, "out/result.md.sigstore.json", "out/result.md", false},
		{"another type", "keys/ed25519.pem.pub", "https://slsa.dev/provenance/v1", "out/result.md.sigstore.json", "out/result.md", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, out := verify(c.key, c.typ, c.bundle, c.artifact)
			if ok != c.ok || (ok && !strings.Contains(out, "Verified OK")) {
				t.Fatalf("cosign verify-blob-attestation: ok %v, want %v\n%s", ok, c.ok, out)
			}
		})
	}

	// The other way round: cosign signs ctx's predicate with its own
	// (ECDSA) key, offline, and ctx-verify checks the bundle.
	t.Run("signed by cosign", func(t *testing.T) {
		for _, args := range [][]string{
			{"generate-key-pair"},
			{"signing-config", "create", "--out", "no-tlog.json"},
		} {
			if ok, out := cosignRun(args...); !ok {
				t.Fatalf("cosign %s: %s", strings.Join(args, " "), out)
			}
		}
		write("pred.json", string(run("ctx-attest", "--predicate", "--output", "result.md", hash)))
		write("cos/result.md", "# Result\n")
		if ok, out := cosignRun("attest-blob", "--key", "cosign.key", "--predicate", "pred.json",
			"--type", attest.PredicateType, "--signing-config", "no-tlog.json",
			"--bundle", "cos/result.md.sigstore.json", "--yes", "cos/result.md"); !ok {
			t.Fatalf("cosign attest-blob: %s", out)
		}
		out := run("ctx-verify", "--key", "cosign.pub", "cos/result.md")
		if gjson.GetBytes(out, "status").String() != "verified" || gjson.GetBytes(out, "context_pack").String() != "sha256:"+hash {
			t.Fatalf("ctx-verify: %s", out)
		}

		// And ctx signs with that very key, encrypted as cosign wrote it,
		// the passphrase in COSIGN_PASSWORD: cosign accepts the bundles.
		t.Setenv("COSIGN_PASSWORD", "")
		run("ctx-attest", "--sign-key", "cosign.key", "--dir", "ecdsa", hash)
		write("ecdsa/result.md", "# Result\n")
		if ok, out := verify("cosign.pub", attest.PredicateType, "ecdsa/result.md.sigstore.json", "ecdsa/result.md"); !ok || !strings.Contains(out, "Verified OK") {
			t.Fatalf("cosign verify-blob-attestation of a bundle signed with cosign's key: %s", out)
		}
	})

	// A pack pushed with --sign-key: cosign verify-attestation
	// REPOSITORY@DIGEST finds the attestation among the pushed
	// manifest's referrers and accepts it, offline.
	t.Run("verify-attestation", func(t *testing.T) {
		bin, err := exec.LookPath("docker-registry")
		if err != nil {
			t.Skip("docker-registry is not installed (apt-get install docker-registry)")
		}
		reg, err := ocitest.Start(bin, filepath.Join(dir, "registry"), "")
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Stop()
		t.Setenv("DOCKER_CONFIG", filepath.Join(dir, ".docker"))
		t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
		t.Setenv("COSIGN_PASSWORD", "")
		if _, err := os.Stat(filepath.Join(dir, "cosign.key")); err != nil {
			t.Skip("needs the key of the subtest signed by cosign")
		}
		repo := reg.Addr + "/team/runs"
		pushed := run("ctx-push", "--sign-key", "cosign.key", "oci://"+repo, hash)
		image := gjson.GetBytes(pushed, "digest").String()
		if !gjson.GetBytes(pushed, `referrers.#(artifact_type=="application/vnd.dev.sigstore.bundle.v0.3+json")`).Exists() {
			t.Fatalf("ctx-push attached no bundle: %s", pushed)
		}
		verifyImage := func(key, typ string) (bool, string) {
			return cosignRun("verify-attestation", "--key", key, "--insecure-ignore-tlog", "--allow-http-registry",
				"--type", typ, repo+"@"+image)
		}
		if ok, out := verifyImage("cosign.pub", attest.PredicateType); !ok {
			t.Fatalf("cosign verify-attestation: %s", out)
		}
		if ok, out := verifyImage("keys/other.pem.pub", attest.PredicateType); ok {
			t.Fatalf("cosign verify-attestation accepts another key: %s", out)
		}
		if ok, out := verifyImage("cosign.pub", "https://slsa.dev/provenance/v1"); ok {
			t.Fatalf("cosign verify-attestation accepts another type: %s", out)
		}
		// What ctx attached before: a statement whose subject is the pack,
		// not the pushed manifest. cosign finds it and refuses it.
		write("other.json", `{"created":"2026-02-11T09:00:00Z","model":{"identifier":"gpt-4o"},"steps":[]}`)
		other := strings.TrimPrefix(gjson.GetBytes(run("ctx-pack", "other.json"), "hash").String(), "sha256:")
		write("other.sigstore.json", string(run("ctx-attest", "--pack", "--sign-key", "cosign.key", other)))
		otherImage := gjson.GetBytes(run("ctx-push", "--attach", "other.sigstore.json", "oci://"+repo, other), "digest").String()
		if ok, out := cosignRun("verify-attestation", "--key", "cosign.pub", "--insecure-ignore-tlog", "--allow-http-registry",
			"--type", attest.PredicateType, repo+"@"+otherImage); ok {
			t.Fatalf("cosign verify-attestation accepts a statement about the pack, not the image: %s", out)
		}
	})
}
