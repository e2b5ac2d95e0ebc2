package attest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/secretbox"
	"golang.org/x/crypto/ssh"

	"github.com/ctx-tools/ctx/lib/sidecar"
)

const testPassphrase = "ctx-test-passphrase"

func passphrase(p string) Passphrase {
	return func(string) ([]byte, error) { return []byte(p), nil }
}

// writeKey writes b to a file in dir and returns its path.
func writeKey(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKeyForms signs with a key of every form people have, made in the
// test, and checks that the signer's public key is the key's own and
// that its bundles verify against that public key in every form it is
// published in (PEM, OpenSSH line).
func TestKeyForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(k crypto.Signer) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	// EncryptCosign's own cost (2^16, cosign's) is checked by
	// TestEncryptCosign; here the cheapest cosign accepts (2^15, its
	// legacy one) keeps the race detector's run short.
	cosignEC, err := sealCosign(ec, []byte(testPassphrase), 1<<15)
	if err != nil {
		t.Fatal(err)
	}
	cosignED, err := sealCosign(ed, []byte(testPassphrase), 1<<15)
	if err != nil {
		t.Fatal(err)
	}
	openssh := func(k crypto.Signer, pass string) []byte {
		var b *pem.Block
		var err error
		if pass == "" {
			b, err = ssh.MarshalPrivateKey(k, "ctx test")
		} else {
			b, err = ssh.MarshalPrivateKeyWithPassphrase(k, "ctx test", []byte(pass))
		}
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(b)
	}
	for _, c := range []struct {
		name      string
		key       []byte
		want      crypto.Signer
		encrypted bool
	}{
		{"ecdsa pkcs8", pkcs8(ec), ec, false},
		{"ecdsa sec1", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), ec, false},
		{"ecdsa cosign", cosignEC, ec, true},
		{"ed25519 cosign", cosignED, ed, true},
		{"ecdsa openssh", openssh(ec, ""), ec, false},
		{"ecdsa openssh passphrase", openssh(ec, testPassphrase), ec, true},
		{"ed25519 openssh passphrase", openssh(ed, testPassphrase), ed, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := writeKey(t, dir, strings.ReplaceAll(c.name, " ", "_"), c.key)
			s, err := LoadSigner(path, passphrase(testPassphrase))
			if err != nil {
				t.Fatal(err)
			}
			want, err := newPublicKey(c.want.Public(), "")
			if err != nil {
				t.Fatal(err)
			}
			if s.Public().ID != want.ID {
				t.Fatalf("public key %s, want %s", s.Public().ID, want.ID)
			}
			// Without a way to ask, an encrypted key is refused as such;
			// with the wrong passphrase, it says so.
			_, err = LoadSigner(path, nil)
			if c.encrypted != errors.Is(err, ErrEncryptedKey) {
				t.Fatalf("without a passphrase: %v (encrypted %v)", err, c.encrypted)
			}
			asked := false
			_, err = LoadSigner(path, func(key string) ([]byte, error) {
				if key != path {
					t.Errorf("asked for the passphrase of %q, want %q", key, path)
				}
				asked = true
				return []byte("not it"), nil
			})
			if asked != c.encrypted || c.encrypted && !errors.Is(err, ErrPassphrase) {
				t.Fatalf("wrong passphrase: %v (asked %v)", err, asked)
			}
			// Its bundles verify against the public key, as PEM and as
			// an OpenSSH line.
			p := newProject(t, s)
			if v := p.verify(t, "out/result.md", want); v.Status != sidecar.Verified {
				t.Fatalf("PEM key: %+v", v)
			}
			sshPub, err := ssh.NewPublicKey(c.want.Public())
			if err != nil {
				t.Fatal(err)
			}
			line, err := ParsePublicKey(ssh.MarshalAuthorizedKey(sshPub), "line")
			if err != nil {
				t.Fatal(err)
			}
			if v := p.verify(t, "out/result.md", line); v.Status != sidecar.Verified {
				t.Fatalf("OpenSSH key line: %+v", v)
			}
			if v := p.verify(t, "out/result.md", loadPublic(t, "ed25519.pub.pem")); v.Status != sidecar.UntrustedSignature {
				t.Fatalf("another key: %+v", v)
			}
		})
	}
}

// TestKeyFixtures reads keys the real tools made: cosign v3.1.3's
// generate-key-pair and OpenSSH's ssh-keygen -N (passphrase
// ctx-test-passphrase), against the public keys they wrote beside them.
func TestKeyFixtures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ priv, pub string }{
		{"cosign.key", "cosign.pub"},
		{"id_ecdsa_enc", "id_ecdsa_enc.pub"},
		{"id_ed25519_pass", "id_ed25519_pass.pub"},
	} {
		t.Run(c.priv, func(t *testing.T) {
			t.Parallel()
			s, err := LoadSigner(filepath.Join("testdata", c.priv), passphrase(testPassphrase))
			if err != nil {
				t.Fatal(err)
			}
			if pub := loadPublic(t, c.pub); s.Public().ID != pub.ID {
				t.Fatalf("public key %s, %s says %s", s.Public().ID, c.pub, pub.ID)
			}
			if _, err := LoadSigner(filepath.Join("testdata", c.priv), passphrase("wrong")); !errors.Is(err, ErrPassphrase) {
				t.Fatalf("wrong passphrase: %v", err)
			}
		})
	}
}

func TestKeyFormErrors(t *testing.T) {
	t.Parallel()
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(p384)
	cosign, err := os.ReadFile("testdata/cosign.key")
	if err != nil {
		t.Fatal(err)
	}
	// A key whose scrypt cost would take hours is refused before any work.
	block, _ := pem.Decode(cosign)
	body := strings.Replace(string(block.Bytes), `"N":65536`, `"N":1073741824`, 1)
	if body == string(block.Bytes) {
		t.Fatalf("cosign.key has no N of 65536: %s", block.Bytes)
	}
	costly := pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: []byte(body)})
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"p384", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "an ECDSA key on P-384"},
		{"openssl encrypted", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}), "encrypted by OpenSSL"},
		{"legacy encrypted ec", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}}), "legacy OpenSSL way"},
		{"costly scrypt", costly, "unsupported scrypt parameters N=1073741824"},
		{"not json", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: []byte("x")}), "cosign encrypted key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseKey(c.in, func() ([]byte, error) { return []byte(testPassphrase), nil })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// EncryptCosign writes what cosign writes: an ENCRYPTED SIGSTORE PRIVATE
// KEY block of JSON with scrypt at cosign's cost (N 2^16, r 8, p 1), a
// 32-byte salt and a 24-byte nonce, which ParseKey opens again.
func TestEncryptCosign(t *testing.T) {
	t.Parallel()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncryptCosign(ec, []byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "ENCRYPTED SIGSTORE PRIVATE KEY" {
		t.Fatalf("not a cosign key block: %s", b)
	}
	var ck cosignKey
	if err := json.Unmarshal(block.Bytes, &ck); err != nil {
		t.Fatal(err)
	}
	if p := ck.KDF.Params; ck.KDF.Name != "scrypt" || p.N != 1<<16 || p.R != 8 || p.P != 1 || len(ck.KDF.Salt) != 32 ||
		ck.Cipher.Name != "nacl/secretbox" || len(ck.Cipher.Nonce) != 24 {
		t.Fatalf("cosign key %s", block.Bytes)
	}
	k, err := ParseKey(b, func() ([]byte, error) { return []byte(testPassphrase), nil })
	if err != nil || !ec.Equal(k) {
		t.Fatalf("ParseKey: %v", err)
	}
}

// EncryptCosign seals a private key as cosign generate-key-pair does:
// its PKCS#8 DER in a NaCl secretbox under a key scrypt derives from
// passphrase (N 2^16, r 8, p 1; random 32-byte salt and 24-byte nonce),
// in an "ENCRYPTED SIGSTORE PRIVATE KEY" PEM block.
func EncryptCosign(key crypto.Signer, passphrase []byte) ([]byte, error) {
	return sealCosign(key, passphrase, 1<<16)
}

// sealCosign is EncryptCosign with scrypt cost n, one of scryptCosts.
func sealCosign(key crypto.Signer, passphrase []byte, n int) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	var ck cosignKey
	ck.KDF.Name = "scrypt"
	ck.KDF.Params.N, ck.KDF.Params.R, ck.KDF.Params.P = n, 8, 1
	ck.KDF.Salt = make([]byte, 32)
	ck.Cipher.Name = "nacl/secretbox"
	ck.Cipher.Nonce = make([]byte, 24)
	rand.Read(ck.KDF.Salt)
	rand.Read(ck.Cipher.Nonce)
	k, err := boxKey(passphrase, ck)
	if err != nil {
		return nil, err
	}
	nonce := [24]byte(ck.Cipher.Nonce)
	ck.Ciphertext = secretbox.Seal(nil, der, &nonce, &k)
	body, err := json.Marshal(&ck)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: body}), nil
}
