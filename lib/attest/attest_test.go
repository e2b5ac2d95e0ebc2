package attest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/sidecar"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func loadSigner(t testing.TB, name string) *Signer {
	t.Helper()
	s, err := LoadSigner(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func loadPublic(t testing.TB, name string) PublicKey {
	t.Helper()
	k, err := LoadPublicKey(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The test keys were made by openssl genpkey -algorithm ed25519 (and
// openssl pkey -pubout) and ssh-keygen -t ed25519, so the public keys are
// an independent check of the private-key parsers.
func TestKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ priv, pub string }{
		{"ed25519.pem", "ed25519.pub.pem"},
		{"other.pem", "other.pub.pem"},
		{"id_ed25519", "id_ed25519.pub"},
	} {
		t.Run(c.priv, func(t *testing.T) {
			s := loadSigner(t, c.priv)
			pub := loadPublic(t, c.pub)
			if s.Public().ID != pub.ID || !pub.Key.(ed25519.PublicKey).Equal(s.Public().Key) {
				t.Fatalf("public key of %s is %s, %s says %s", c.priv, s.Public().ID, c.pub, pub.ID)
			}
			// PEM gives back a key that parses to the same key.
			again, err := ParsePublicKey(pub.PEM(), "pem")
			if err != nil || again.ID != pub.ID {
				t.Fatalf("PEM round trip: %v, %s != %s", err, again.ID, pub.ID)
			}
		})
	}
	if loadSigner(t, "ed25519.pem").Public().ID == loadSigner(t, "other.pem").Public().ID {
		t.Fatal("two keys share an id")
	}
	// The key id is the fingerprint ssh-keygen -lf id_ed25519.pub prints.
	if id := loadSigner(t, "id_ed25519").Public().ID; id != "SHA256:az9UeLTz06j5VCyx2s+3w2wCMshonCZOuavYSRBmn+Q" {
		t.Fatalf("key id %s is not the OpenSSH fingerprint", id)
	}
}

func TestKeyErrors(t *testing.T) {
	t.Parallel()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: rsaDER})
	enc, _ := os.ReadFile("testdata/id_ed25519_enc")
	pub, _ := os.ReadFile("testdata/ed25519.pub.pem")
	ssh, _ := os.ReadFile("testdata/id_ed25519")
	// A corrupted OpenSSH key: its private half no longer matches.
	block, _ := pem.Decode(ssh)
	bad := bytes.Clone(block.Bytes)
	bad[len(bad)-40] ^= 1
	badSSH := pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: bad})
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "not a PEM private key"},
		{"rsa", rsaPEM, "a RSA key; ctx signs with ed25519 and ECDSA P-256 keys"},
		{"encrypted openssh", enc, ErrEncryptedKey.Error()},
		{"public", pub, "a public key; signing needs the private key"},
		{"corrupt openssh", badSSH, "OpenSSH private key"},
		{"truncated openssh", pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: block.Bytes[:60]}), "OpenSSH private key: short read"},
		{"two blocks", append(bytes.Clone(pub), pub...), "more than one PEM block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseKey(c.in, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := ParseKey(enc, nil); !errors.Is(err, ErrEncryptedKey) {
		t.Fatalf("encrypted key: %v, want ErrEncryptedKey", err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"private", ssh, "a private key; give the public key"},
		{"garbage", []byte("hello"), "not a public key"},
		{"rsa ssh line", []byte("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAAQC= x"), "a RSA key; ctx checks ed25519 and ECDSA P-256 keys"},
		{"lying type", []byte("ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIIIQhPhQdWxBLBc+WigfEnB5c2EnfvzOJifpKw5M4bz5"), "type mismatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParsePublicKey(c.in, "k")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestPAE(t *testing.T) {
	t.Parallel()
	// The example of the DSSE specification's protocol.md.
	got := PAE("http://example.com/HelloWorld", []byte("hello world"))
	want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"
	if string(got) != want {
		t.Fatalf("PAE = %q, want %q", got, want)
	}
}

// project is a directory holding a store with one pack of two outputs,
// the outputs written under out/ with their sidecars and bundles.
type project struct {
	dir string
	s   *store.Store
	m   *manifest.Manifest
}

// testManifest is the pack the golden files describe.
func testManifest(t testing.TB, s *store.Store) *manifest.Manifest {
	t.Helper()
	put := func(b string) digest.Digest {
		d, _, err := s.Put([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-10T09:00:00Z",
		Model: manifest.Model{Identifier: "gpt-4o", Parameters: []byte(`{"temperature":0,"seed":7}`)},
		Inputs: []manifest.File{
			{Name: "spec.md", ContentRef: put("spec"), Size: 4},
			{Name: "copy/spec.md", ContentRef: put("spec"), Size: 4},
		},
		Steps: []manifest.Step{
			{Index: 0, Type: manifest.ToolCall, Tool: "read_file", OutputRef: put("spec")},
			{Index: 1, Type: manifest.ToolCall, Tool: "grep", OutputRef: put("")},
			{Index: 2, Type: manifest.LLMCall},
		},
		Outputs: []manifest.Output{
			{Name: "result.md", ContentRef: put("# Result\n"), Size: 9, Confidence: "high", Notes: "no manual edits"},
			{Name: "handlers/user.go", ContentRef: put("package handlers\n"), Size: 17},
		},
		Environment: manifest.Environment{ToolVersions: map[string]string{"read_file": "1.0"}},
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func newProject(t *testing.T, signer *Signer) *project {
	t.Helper()
	dir := t.TempDir()
	s, _, err := store.Init(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	p := &project{dir: dir, s: s, m: testManifest(t, s)}
	p.write(t, "out/result.md", "# Result\n")
	p.write(t, "out/handlers/user.go", "package handlers\n")
	out := filepath.Join(dir, "out")
	for _, sc := range sidecar.ForPack(p.m) {
		if _, err := sidecar.Write(out, sc, false); err != nil {
			t.Fatal(err)
		}
	}
	signed, err := signer.SignOutputs(p.m)
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range signed {
		if _, err := sidecar.WriteFile(out, sb.Name+Suffix, sb.Bundle, false); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *project) path(rel string) string { return filepath.Join(p.dir, filepath.FromSlash(rel)) }

func (p *project) write(t *testing.T, rel, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p.path(rel)), 0o755)
	if err := os.WriteFile(p.path(rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) verify(t *testing.T, rel string, keys ...PublicKey) *sidecar.Verdict {
	t.Helper()
	return p.verifyOpts(t, rel, Options{Keys: func(*store.Store) ([]PublicKey, error) { return keys, nil }})
}

func (p *project) verifyOpts(t *testing.T, rel string, o Options) *sidecar.Verdict {
	t.Helper()
	o.Open = store.Find
	if o.KeysFrom == "" {
		o.KeysFrom = "trusted_keys in the test config"
	}
	v, err := Verify(p.path(rel), o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// validate checks an emitted statement with the in-toto project's own
// Go implementation, including the resource descriptors of the predicate.
func validate(t *testing.T, b []byte) {
	t.Helper()
	var st intoto.Statement
	if err := protojson.Unmarshal(b, &st); err != nil {
		t.Fatalf("in-toto cannot read the statement: %v\n%s", err, b)
	}
	if err := st.Validate(); err != nil {
		t.Fatalf("in-toto rejects the statement: %v\n%s", err, b)
	}
	if st.GetType() != intoto.StatementTypeUri {
		t.Fatalf("_type %q, want %q", st.GetType(), intoto.StatementTypeUri)
	}
	pred, _ := json.Marshal(st.GetPredicate().AsMap())
	var p struct {
		ContextPack json.RawMessage   `json:"contextPack"`
		Inputs      []json.RawMessage `json:"inputs"`
		Outputs     []json.RawMessage `json:"outputs"`
	}
	if err := json.Unmarshal(pred, &p); err != nil {
		t.Fatal(err)
	}
	for _, raw := range append(append([]json.RawMessage{p.ContextPack}, p.Inputs...), p.Outputs...) {
		var rd intoto.ResourceDescriptor
		if err := protojson.Unmarshal(raw, &rd); err != nil {
			t.Fatalf("predicate resource %s: %v", raw, err)
		}
		if err := rd.Validate(); err != nil || len(rd.GetDigest()) == 0 {
			t.Fatalf("predicate resource %s: %v", raw, err)
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file:\ngot  %s\nwant %s", name, got, want)
	}
}

// TestGolden pins the exact bytes of statements and bundles: the same
// pack and key must always give the same files.
func TestGolden(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	m := testManifest(t, s)
	pem := loadSigner(t, "ed25519.pem")
	ssh := loadSigner(t, "id_ed25519")
	stmts := append(ForOutputs(m), ForPack(m))
	names := []string{"result.md", "user.go", "pack"}
	for i, st := range stmts {
		b, err := Encode(st)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, b)
		golden(t, names[i]+".statement.json", append(b, '\n'))
		for _, k := range []struct {
			name string
			s    *Signer
		}{{"pem", pem}, {"ssh", ssh}} {
			bu, err := k.s.Sign(b)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := k.s.Sign(b)
			if !bytes.Equal(bu, again) {
				t.Fatal("signing twice gave different bundles")
			}
			golden(t, names[i]+"."+k.name+".sigstore.json", bu)
			ann, err := BundleAnnotations(bu)
			if err != nil || ann["dev.sigstore.bundle.predicateType"] != PredicateType || ann["dev.sigstore.bundle.content"] != "dsse-envelope" {
				t.Fatalf("annotations %v, %v", ann, err)
			}
			// The bundle's payload is the statement, byte for byte.
			parsed, err := parseBundle(bu)
			if err != nil || !bytes.Equal(parsed.DSSEEnvelope.Payload, b) {
				t.Fatalf("bundle payload: %v", err)
			}
		}
	}
	pred, err := EncodePredicate(stmts[0].Predicate)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "result.md.predicate.json", append(pred, '\n'))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	signer := loadSigner(t, "ed25519.pem")
	trusted := signer.Public()
	other := loadPublic(t, "other.pub.pem")

	t.Run("verified", func(t *testing.T) {
		p := newProject(t, signer)
		for _, rel := range []string{"out/result.md", "out/handlers/user.go"} {
			v := p.verify(t, rel, other, trusted)
			if v.Status != sidecar.Verified || v.Signer != trusted.ID || v.ContextPack != p.m.Hash {
				t.Fatalf("%s: %+v", rel, v)
			}
			if v.Bundle != p.path(rel)+Suffix || v.Sidecar != p.path(rel)+sidecar.Suffix {
				t.Fatalf("%s: bundle %q sidecar %q", rel, v.Bundle, v.Sidecar)
			}
		}
		v := p.verify(t, "out/result.md", trusted)
		if v.Confidence != "high" || v.Notes != "no manual edits" || v.Model != "gpt-4o" ||
			strings.Join(v.Tools, ",") != "grep,read_file" || len(v.Inputs) != 1 {
			t.Fatalf("details: %+v", v)
		}
	})

	t.Run("without sidecar", func(t *testing.T) {
		p := newProject(t, signer)
		os.Remove(p.path("out/result.md.ctx.json"))
		if v := p.verify(t, "out/result.md", trusted); v.Status != sidecar.Verified || v.Sidecar != "" {
			t.Fatalf("%+v", v)
		}
	})

	t.Run("openssh key", func(t *testing.T) {
		p := newProject(t, loadSigner(t, "id_ed25519"))
		v := p.verify(t, "out/result.md", loadPublic(t, "id_ed25519.pub"))
		if v.Status != sidecar.Verified {
			t.Fatalf("%+v", v)
		}
		if v := p.verify(t, "out/result.md", trusted); v.Status != sidecar.UntrustedSignature {
			t.Fatalf("%+v", v)
		}
	})

	for _, c := range []struct {
		name   string
		change func(t *testing.T, p *project)
		keys   []PublicKey
		artif  string
		status string
		reason string
	}{
		{
			name:   "tampered artifact",
			change: func(t *testing.T, p *project) { p.write(t, "out/result.md", "# Result, edited\n") },
			status: sidecar.Modified, reason: "differs from the subject",
		},
		{
			name:   "wrong key",
			keys:   []PublicKey{other},
			status: sidecar.UntrustedSignature, reason: "signed by key " + trusted.ID + ", which is not a trusted key",
		},
		{
			name:   "no keys",
			keys:   []PublicKey{},
			status: sidecar.UntrustedSignature, reason: "no trusted keys: give --key PUB or trusted_keys in the test config",
		},
		{
			name: "edited statement",
			change: func(t *testing.T, p *project) {
				editBundle(t, p.path("out/result.md.sigstore.json"), func(st []byte) []byte {
					return bytes.Replace(st, []byte(`"high"`), []byte(`"certain"`), 1)
				})
			},
			status: sidecar.BadSignature, reason: "does not verify with that key: the statement was changed after signing, or another key",
		},
		{
			name: "another key under the trusted key's name",
			change: func(t *testing.T, p *project) {
				p.writeBundle(t, "out/result.md", loadSigner(t, "id_ed25519"), ForOutputs(p.m)[0])
				editBundleJSON(t, p.path("out/result.md.sigstore.json"), func(m map[string]any) {
					m["verificationMaterial"].(map[string]any)["publicKey"].(map[string]any)["hint"] = trusted.ID
				})
			},
			status: sidecar.BadSignature, reason: "signature naming trusted key " + trusted.ID + " (testdata/ed25519.pem) does not verify with that key: the statement was changed after signing, or another key signed it under that key's name",
		},
		{
			name: "wrong predicate type",
			change: func(t *testing.T, p *project) {
				st := ForOutputs(p.m)[0]
				st.PredicateType = "https://slsa.dev/provenance/v1"
				p.writeBundle(t, "out/result.md", signer, st)
			},
			status: sidecar.WrongPredicateType, reason: `predicate type "https://slsa.dev/provenance/v1"`,
		},
		{
			name: "bundle for another artifact",
			change: func(t *testing.T, p *project) {
				b, _ := os.ReadFile(p.path("out/result.md.sigstore.json"))
				os.WriteFile(p.path("out/handlers/user.go.sigstore.json"), b, 0o644)
			},
			artif:  "out/handlers/user.go",
			status: sidecar.WrongSubject, reason: `about "result.md", not this artifact`,
		},
		{
			name: "statement disagrees with the pack",
			change: func(t *testing.T, p *project) {
				st := ForOutputs(p.m)[0]
				st.Predicate.Notes = "reviewed by a human"
				st.Predicate.Tools = st.Predicate.Tools[:1]
				p.writeBundle(t, "out/result.md", signer, st)
			},
			status: sidecar.Broken, reason: "disagrees with the pack's record on tools, notes",
		},
		{
			name: "pack not in the store",
			change: func(t *testing.T, p *project) {
				st := ForOutputs(p.m)[0]
				st.Predicate.ContextPack = packResource(digest.Of([]byte("no such pack")))
				p.writeBundle(t, "out/result.md", signer, st)
			},
			status: sidecar.Broken, reason: "is not in the store",
		},
		{
			name: "output the pack does not have",
			change: func(t *testing.T, p *project) {
				st := ForOutputs(p.m)[0]
				st.Subject[0].Name = "renamed.md"
				p.writeBundle(t, "out/result.md", signer, st)
			},
			status: sidecar.Broken, reason: `has no output named "renamed.md"`,
		},
		{
			name: "sidecar names another output",
			change: func(t *testing.T, p *project) {
				b, _ := os.ReadFile(p.path("out/handlers/user.go.ctx.json"))
				os.WriteFile(p.path("out/result.md.ctx.json"), b, 0o644)
			},
			status: sidecar.Broken, reason: `the sidecar names output "handlers/user.go"`,
		},
		{
			name: "not a bundle",
			change: func(t *testing.T, p *project) {
				os.WriteFile(p.path("out/result.md.sigstore.json"), []byte(`{"mediaType":"x"}`), 0o644)
			},
			status: sidecar.Broken, reason: `bundle does not parse: mediaType "x"`,
		},
		{
			name: "long media type",
			change: func(t *testing.T, p *project) {
				os.WriteFile(p.path("out/result.md.sigstore.json"), []byte(`{"mediaType":"`+strings.Repeat("é", 5000)+`"}`), 0o644)
			},
			status: sidecar.Broken, reason: `bundle does not parse: mediaType "` + strings.Repeat("é", 100) + `…" is not`,
		},
		{
			name: "bundle that is a directory",
			change: func(t *testing.T, p *project) {
				os.Remove(p.path("out/result.md.sigstore.json"))
				os.Mkdir(p.path("out/result.md.sigstore.json"), 0o755)
			},
			status: sidecar.Broken, reason: "bundle cannot be read: is a directory, not a regular file: refused",
		},
		{
			name: "keyless bundle",
			change: func(t *testing.T, p *project) {
				editBundleJSON(t, p.path("out/result.md.sigstore.json"), func(b map[string]any) {
					b["verificationMaterial"] = map[string]any{"certificate": map[string]any{"rawBytes": "AAAA"}}
				})
			},
			status: sidecar.UntrustedSignature, reason: "keyless",
		},
		{
			name: "signature removed",
			change: func(t *testing.T, p *project) {
				editBundleJSON(t, p.path("out/result.md.sigstore.json"), func(b map[string]any) {
					b["dsseEnvelope"].(map[string]any)["signatures"] = []any{}
				})
			},
			status: sidecar.Broken, reason: "no signature",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, signer)
			if c.change != nil {
				c.change(t, p)
			}
			keys := c.keys
			if keys == nil {
				keys = []PublicKey{trusted}
			}
			artif := c.artif
			if artif == "" {
				artif = "out/result.md"
			}
			v := p.verify(t, artif, keys...)
			if v.Status != c.status || !strings.Contains(v.Reason, c.reason) {
				t.Fatalf("status %q reason %q, want %q with %q", v.Status, v.Reason, c.status, c.reason)
			}
			if v.ExitCode() != 1 {
				t.Fatalf("exit code %d, want 1", v.ExitCode())
			}
		})
	}

	t.Run("signature required", func(t *testing.T) {
		p := newProject(t, signer)
		os.Remove(p.path("out/result.md.sigstore.json"))
		o := Options{Keys: func(*store.Store) ([]PublicKey, error) { return []PublicKey{trusted}, nil }}
		if v := p.verifyOpts(t, "out/result.md", o); v.Status != sidecar.Verified || v.Bundle != "" {
			t.Fatalf("unsigned, not required: %+v", v)
		}
		o.Signed = true
		if v := p.verifyOpts(t, "out/result.md", o); v.Status != sidecar.NoProvenance || !strings.Contains(v.Reason, "no signed attestation") {
			t.Fatalf("unsigned, required: %+v", v)
		}
	})

	t.Run("pack-level statement", func(t *testing.T) {
		p := newProject(t, signer)
		b, err := manifest.Encode(p.m)
		if err != nil {
			t.Fatal(err)
		}
		p.write(t, "pack.json", string(b))
		sp, err := signer.SignPack(p.m)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p.path("pack.json"+Suffix), sp.Bundle, 0o644)
		v := p.verify(t, "pack.json", trusted)
		if v.Status != sidecar.Verified || v.ContextPack != p.m.Hash || v.Output != "" {
			t.Fatalf("%+v", v)
		}
		p.write(t, "pack.json", string(b)+" ")
		if v := p.verify(t, "pack.json", trusted); v.Status != sidecar.WrongSubject {
			t.Fatalf("changed pack file: %+v", v)
		}
	})

	t.Run("ecdsa key", func(t *testing.T) {
		// A bundle signed with an ECDSA P-256 key, as cosign's own keys
		// are, is checked with its public key.
		p := newProject(t, signer)
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := Encode(ForOutputs(p.m)[0])
		sum := sha256.Sum256(PAE(PayloadType, st))
		sig, err := ecdsa.SignASN1(rand.Reader, k, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
		pub, err := ParsePublicKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), "cosign.pub")
		if err != nil {
			t.Fatal(err)
		}
		// The hint is the one cosign writes: base64 of the PKIX SHA-256.
		sum256 := sha256.Sum256(der)
		bu := map[string]any{
			"mediaType":            BundleMediaType,
			"verificationMaterial": map[string]any{"publicKey": map[string]any{"hint": base64.StdEncoding.EncodeToString(sum256[:])}},
			"dsseEnvelope": map[string]any{
				"payload": base64.StdEncoding.EncodeToString(st), "payloadType": PayloadType,
				"signatures": []any{map[string]any{"sig": base64.StdEncoding.EncodeToString(sig)}},
			},
		}
		b, _ := json.Marshal(bu)
		os.WriteFile(p.path("out/result.md.sigstore.json"), b, 0o644)
		if v := p.verify(t, "out/result.md", pub); v.Status != sidecar.Verified {
			t.Fatalf("%+v", v)
		}
		if v := p.verify(t, "out/result.md", trusted); v.Status != sidecar.UntrustedSignature || !strings.Contains(v.Reason, "signed by key "+base64.StdEncoding.EncodeToString(sum256[:])) {
			t.Fatalf("%+v", v)
		}
		// cosign's hint names the trusted key: an edit is a bad signature.
		editBundle(t, p.path("out/result.md.sigstore.json"), func(st []byte) []byte {
			return bytes.Replace(st, []byte(`"high"`), []byte(`"certain"`), 1)
		})
		if v := p.verify(t, "out/result.md", pub); v.Status != sidecar.BadSignature {
			t.Fatalf("%+v", v)
		}
	})
}

func (p *project) writeBundle(t *testing.T, rel string, s *Signer, st Statement) {
	t.Helper()
	b, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	bu, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.path(rel)+Suffix, bu, 0o644); err != nil {
		t.Fatal(err)
	}
}

func editBundleJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editBundle changes the signed statement and keeps the signature.
func editBundle(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	editBundleJSON(t, path, func(m map[string]any) {
		env := m["dsseEnvelope"].(map[string]any)
		st, err := base64.StdEncoding.DecodeString(env["payload"].(string))
		if err != nil {
			t.Fatal(err)
		}
		changed := edit(st)
		if bytes.Equal(changed, st) {
			t.Fatal("the edit changed nothing")
		}
		env["payload"] = base64.StdEncoding.EncodeToString(changed)
	})
}

func TestTrust(t *testing.T) {
	t.Parallel()
	signer := loadSigner(t, "ed25519.pem")
	ssh := loadPublic(t, "id_ed25519.pub")
	other := loadPublic(t, "other.pub.pem")
	dir := t.TempDir()
	cp := func(src, dst string) {
		b, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp("ed25519.pub.pem", filepath.Join(dir, "home/keys/ci.pub"))
	cp("other.pub.pem", filepath.Join(dir, "app/keys/other.pub"))
	sshLine, _ := os.ReadFile("testdata/id_ed25519.pub")
	s, _, err := store.Init(filepath.Join(dir, "app/.ctx"))
	if err != nil {
		t.Fatal(err)
	}
	// The store names a key of its own.
	os.Chmod(s.Path("config.json"), 0o644)
	if err := os.WriteFile(s.Path("config.json"), []byte(`{"hash":"sha256","version":1,"trusted_keys":["keys/other.pub"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	ids := func(keys []PublicKey) string {
		var out []string
		for _, k := range keys {
			out = append(out, k.ID[:8])
		}
		return strings.Join(out, ",")
	}
	user := filepath.Join(dir, "home/config.json")
	write := func(c string) {
		if err := os.WriteFile(user, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	loadTrust := func(path string) (*Trust, error) {
		u, err := userconfig.Load(path)
		if err != nil {
			return nil, err
		}
		return LoadTrust(u)
	}
	// No user config: nothing is trusted, and the store's key is not
	// either.
	tr, err := loadTrust(filepath.Join(dir, "missing.json"))
	if err != nil {
		t.Fatal(err)
	}
	keys, note, err := tr.Keys(s)
	if err != nil || len(keys) != 0 || !strings.Contains(note, "a store cannot make itself trusted") {
		t.Fatalf("keys %s note %q err %v", ids(keys), note, err)
	}

	write(`{"trusted_keys":["keys/ci.pub",` + string(mustJSON(strings.TrimSpace(string(sshLine)))) + `]}`)
	tr, err = loadTrust(user)
	if err != nil {
		t.Fatal(err)
	}
	keys, note, err = tr.Keys(s)
	if err != nil || ids(keys) != ids([]PublicKey{signer.Public(), ssh}) || note == "" {
		t.Fatalf("keys %s note %q err %v", ids(keys), note, err)
	}

	// Listing the store in trusted_stores adds the store's keys.
	write(`{"trusted_keys":["keys/ci.pub"],"trusted_stores":[` + string(mustJSON(s.Root())) + `]}`)
	tr, err = loadTrust(user)
	if err != nil {
		t.Fatal(err)
	}
	keys, note, err = tr.Keys(s)
	if err != nil || ids(keys) != ids([]PublicKey{signer.Public(), other}) || note != "" {
		t.Fatalf("keys %s note %q err %v", ids(keys), note, err)
	}

	// --key keys are the only ones.
	keys, note, err = TrustKeys([]PublicKey{ssh}).Keys(s)
	if err != nil || ids(keys) != ids([]PublicKey{ssh}) || note != "" {
		t.Fatalf("keys %s note %q err %v", ids(keys), note, err)
	}

	// A key file must be a regular file: a pipe would hang, a device
	// never end.
	fifo := filepath.Join(dir, "home/keys/fifo.pub")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ config, want string }{
		{`{"trusted_keys":["keys/none.pub"]}`, "trusted_keys[0]: public key "},
		{`{"trusted_keys":["keys/fifo.pub"]}`, "trusted_keys[0]: public key " + fifo + ": is a named pipe, not a regular file"},
		{`{"trusted_keys":["/dev/zero"]}`, "trusted_keys[0]: public key /dev/zero: is a device, not a regular file"},
		{`{"trusted_keys":"keys/ci.pub"}`, "config.json"},
		{`{"trusted_stores":["relative/.ctx"]}`, "not an absolute path"},
		{`{"trusted_keys":["ssh-ed25519 AAAA"]}`, "trusted_keys[0]: OpenSSH public key"},
	} {
		write(c.config)
		if _, err := loadTrust(user); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.config, err, c.want)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"golden/result.md.pem.sigstore.json", "golden/pack.ssh.sigstore.json", "id_ed25519", "ed25519.pem", "id_ed25519.pub", "cosign.key", "cosign.pub", "id_ecdsa_enc", "id_ecdsa_enc.pub"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseKey(b, nil)
		// Encrypted keys too: cosign's JSON, OpenSSH's bcrypt-pbkdf.
		ParseKey(b, func() ([]byte, error) { return []byte("ctx-test-passphrase"), nil })
		ParsePublicKey(b, "fuzz")
		if bu, err := parseBundle(b); err == nil {
			if st, err := parseStatement(bu.DSSEEnvelope.Payload); err == nil {
				parsePredicate(st.Predicate)
			}
		}
	})
}
