package attest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/found"
)

// Signer signs statements with an ed25519 private key.
type Signer struct {
	key ed25519.PrivateKey
	pub PublicKey
}

// PublicKey is a key signatures are checked against. ID is its OpenSSH
// SHA-256 fingerprint ("SHA256:<base64>", as ssh-keygen -l prints it),
// the key id ctx puts in DSSE signatures and bundle hints: it is also the
// id DSSE verifiers (go-securesystemslib, and so cosign) compute for a key
// that names none, and they skip a signature whose key id differs. Source
// says where the key came from (a file or a config), for messages.
type PublicKey struct {
	Key    crypto.PublicKey
	ID     string
	Source string
}

// NewSigner returns a signer for key.
func NewSigner(key ed25519.PrivateKey) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("ed25519 private key has the wrong length")
	}
	pub, err := newPublicKey(key.Public(), "")
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, pub: pub}, nil
}

// MaxKeyFile bounds a key file: keys are a few hundred bytes, and a key
// file is read only if it is a regular file (lib/found), so that a named
// pipe or a device given as a key, or listed in trusted_keys, is refused
// rather than read forever.
const MaxKeyFile = 64 << 10

// LoadSigner reads an ed25519 private key from a file: PKCS#8 PEM
// ("PRIVATE KEY", as openssl genpkey -algorithm ed25519 writes) or an
// unencrypted OpenSSH key ("OPENSSH PRIVATE KEY", as ssh-keygen -t ed25519
// writes).
func LoadSigner(path string) (*Signer, error) {
	b, err := found.ReadFile(path, found.Rule{What: "signing key", Max: MaxKeyFile})
	if err != nil {
		return nil, err
	}
	key, err := ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	s, err := NewSigner(key)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	s.pub.Source = path
	return s, nil
}

// Public returns the signer's public key.
func (s *Signer) Public() PublicKey { return s.pub }

// ErrEncryptedKey reports a passphrase-protected private key, which ctx
// cannot read.
var ErrEncryptedKey = errors.New("the key is encrypted with a passphrase")

// ParsePrivateKey decodes an ed25519 private key from PKCS#8 PEM or the
// OpenSSH private key format. Other key types and encrypted keys are
// errors that say so.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(b)
	if block == nil {
		return nil, errors.New("not a PEM private key (want PKCS#8 \"PRIVATE KEY\" or \"OPENSSH PRIVATE KEY\")")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, errors.New("more than one PEM block")
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing PKCS#8 key: %w", err)
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("a %s key; ctx signs with ed25519 keys only", keyType(k))
		}
		return ek, nil
	case "OPENSSH PRIVATE KEY":
		return parseOpenSSHPrivateKey(block.Bytes)
	case "ENCRYPTED PRIVATE KEY", "ENCRYPTED SIGSTORE PRIVATE KEY", "ENCRYPTED COSIGN PRIVATE KEY":
		return nil, ErrEncryptedKey
	case "PUBLIC KEY":
		return nil, errors.New("a public key; signing needs the private key")
	}
	return nil, fmt.Errorf("unsupported PEM block %q (want PKCS#8 \"PRIVATE KEY\" or \"OPENSSH PRIVATE KEY\")", block.Type)
}

// sshReader reads the SSH wire encoding (RFC 4251 §5).
type sshReader struct {
	b   []byte
	err error
}

func (r *sshReader) uint32() uint32 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 4 {
		r.err = errors.New("truncated")
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *sshReader) bytes() []byte {
	n := r.uint32()
	if r.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(r.b)) {
		r.err = errors.New("truncated")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

const opensshMagic = "openssh-key-v1\x00"

// parseOpenSSHPrivateKey decodes the body of an "OPENSSH PRIVATE KEY"
// block (OpenSSH's PROTOCOL.key) holding one unencrypted ed25519 key.
func parseOpenSSHPrivateKey(b []byte) (ed25519.PrivateKey, error) {
	if !bytes.HasPrefix(b, []byte(opensshMagic)) {
		return nil, errors.New("not an OpenSSH private key (bad magic)")
	}
	r := &sshReader{b: b[len(opensshMagic):]}
	cipher, kdf := string(r.bytes()), string(r.bytes())
	r.bytes() // kdf options
	n := r.uint32()
	if r.err != nil {
		return nil, fmt.Errorf("OpenSSH private key: %w", r.err)
	}
	if cipher != "none" || kdf != "none" {
		return nil, ErrEncryptedKey
	}
	if n != 1 {
		return nil, fmt.Errorf("OpenSSH private key file holds %d keys, want 1", n)
	}
	pubBlob := r.bytes()
	priv := &sshReader{b: r.bytes()}
	if r.err != nil {
		return nil, fmt.Errorf("OpenSSH private key: %w", r.err)
	}
	if c1, c2 := priv.uint32(), priv.uint32(); c1 != c2 {
		return nil, errors.New("OpenSSH private key: check bytes differ")
	}
	typ := string(priv.bytes())
	if priv.err == nil && typ != "ssh-ed25519" {
		return nil, fmt.Errorf("a %s key; ctx signs with ed25519 keys only", typ)
	}
	pub, key := priv.bytes(), priv.bytes()
	priv.bytes() // comment
	if priv.err != nil {
		return nil, fmt.Errorf("OpenSSH private key: %w", priv.err)
	}
	for i, c := range priv.b {
		if c != byte(i+1) {
			return nil, errors.New("OpenSSH private key: bad padding")
		}
	}
	if len(pub) != ed25519.PublicKeySize || len(key) != ed25519.PrivateKeySize ||
		!bytes.Equal(key[32:], pub) {
		return nil, errors.New("OpenSSH private key: malformed ed25519 key")
	}
	k := ed25519.NewKeyFromSeed(key[:32])
	if !bytes.Equal(k[32:], pub) {
		return nil, errors.New("OpenSSH private key: public half does not match the private key")
	}
	if wire, err := parseSSHPublicBlob(pubBlob); err != nil || !bytes.Equal(wire, pub) {
		return nil, errors.New("OpenSSH private key: public key section does not match the private key")
	}
	return k, nil
}

// parseSSHPublicBlob decodes the wire form of an ssh-ed25519 public key.
func parseSSHPublicBlob(b []byte) (ed25519.PublicKey, error) {
	r := &sshReader{b: b}
	typ := string(r.bytes())
	key := r.bytes()
	switch {
	case r.err != nil:
		return nil, r.err
	case typ != "ssh-ed25519":
		return nil, fmt.Errorf("a %s key; ctx reads ed25519 OpenSSH keys only", typ)
	case len(key) != ed25519.PublicKeySize || len(r.b) != 0:
		return nil, errors.New("malformed ssh-ed25519 key")
	}
	return ed25519.PublicKey(key), nil
}

// ParsePublicKey decodes a public key: a PKIX PEM "PUBLIC KEY" block
// (ed25519, or ECDSA P-256 as cosign generate-key-pair writes), or one
// OpenSSH public key line "ssh-ed25519 AAAA… [comment]" (an id_ed25519.pub
// file). source names it in messages and in PublicKey.Source.
func ParsePublicKey(b []byte, source string) (PublicKey, error) {
	t := bytes.TrimSpace(b)
	if bytes.HasPrefix(t, []byte("ssh-")) || bytes.HasPrefix(t, []byte("ecdsa-")) {
		fields := strings.Fields(string(t))
		if len(fields) < 2 || strings.Contains(string(t), "\n") {
			return PublicKey{}, fmt.Errorf("%s: want one OpenSSH public key line", source)
		}
		blob, err := base64.StdEncoding.DecodeString(fields[1])
		if err != nil {
			return PublicKey{}, fmt.Errorf("%s: OpenSSH public key: %w", source, err)
		}
		k, err := parseSSHPublicBlob(blob)
		if err == nil && fields[0] != "ssh-ed25519" {
			err = errors.New("key type does not match its encoding")
		}
		if err != nil {
			return PublicKey{}, fmt.Errorf("%s: OpenSSH public key: %w", source, err)
		}
		return newPublicKey(k, source)
	}
	block, rest := pem.Decode(t)
	switch {
	case block == nil:
		return PublicKey{}, fmt.Errorf("%s: not a public key (want a PEM \"PUBLIC KEY\" or an ssh-ed25519 line)", source)
	case len(bytes.TrimSpace(rest)) > 0:
		return PublicKey{}, fmt.Errorf("%s: more than one PEM block", source)
	case strings.Contains(block.Type, "PRIVATE KEY"):
		return PublicKey{}, fmt.Errorf("%s: a private key; give the public key (ctx-attest --public-key KEY prints it)", source)
	case block.Type != "PUBLIC KEY":
		return PublicKey{}, fmt.Errorf("%s: unsupported PEM block %q (want \"PUBLIC KEY\")", source, block.Type)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return PublicKey{}, fmt.Errorf("%s: %w", source, err)
	}
	return newPublicKey(k, source)
}

// LoadPublicKey reads a public key file (see ParsePublicKey).
func LoadPublicKey(path string) (PublicKey, error) {
	b, err := found.ReadFile(path, found.Rule{What: "public key", Max: MaxKeyFile})
	if err != nil {
		return PublicKey{}, err
	}
	return ParsePublicKey(b, path)
}

func newPublicKey(k crypto.PublicKey, source string) (PublicKey, error) {
	var wire []byte
	switch k := k.(type) {
	case ed25519.PublicKey:
		wire = sshString(sshString(nil, []byte("ssh-ed25519")), k)
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return PublicKey{}, fmt.Errorf("%s: ECDSA keys are read on P-256 only", source)
		}
		point, err := k.Bytes()
		if err != nil {
			return PublicKey{}, fmt.Errorf("%s: %w", source, err)
		}
		wire = sshString(sshString(sshString(nil, []byte("ecdsa-sha2-nistp256")), []byte("nistp256")), point)
	default:
		return PublicKey{}, fmt.Errorf("%s: a %s key; ctx checks ed25519 and ECDSA P-256 keys", source, keyType(k))
	}
	sum := sha256.Sum256(wire)
	return PublicKey{Key: k, ID: "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:]), Source: source}, nil
}

// sshString appends s in the SSH wire encoding of a string.
func sshString(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// PEM returns the key as a PKIX PEM "PUBLIC KEY" block, the form cosign's
// --key reads.
func (k PublicKey) PEM() []byte {
	der, err := x509.MarshalPKIXPublicKey(k.Key)
	if err != nil {
		panic(err) // newPublicKey encoded it already
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// cosignHint is the public-key hint cosign writes into the bundles it
// signs: the standard base64 of the SHA-256 of the PKIX encoding.
func (k PublicKey) cosignHint() string {
	der, err := x509.MarshalPKIXPublicKey(k.Key)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// verify reports whether sig is k's signature of msg: ed25519 over msg
// itself, ECDSA (ASN.1) over its SHA-256, as DSSE and cosign use them.
func (k PublicKey) verify(msg, sig []byte) bool {
	switch pk := k.Key.(type) {
	case ed25519.PublicKey:
		return ed25519.Verify(pk, msg, sig)
	case *ecdsa.PublicKey:
		sum := sha256.Sum256(msg)
		return ecdsa.VerifyASN1(pk, sum[:], sig)
	}
	return false
}

func keyType(k any) string {
	switch k.(type) {
	case ed25519.PrivateKey, ed25519.PublicKey:
		return "ed25519"
	case *ecdsa.PrivateKey, *ecdsa.PublicKey:
		return "ECDSA"
	case *rsa.PrivateKey, *rsa.PublicKey:
		return "RSA"
	}
	return fmt.Sprintf("%T", k)
}

// CheckKeyOutside refuses a key file inside the store directory root: a
// store is copied and shared, and keys never belong in it.
func CheckKeyOutside(path, root string) error {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return p
	}
	k, r := resolve(path), resolve(root)
	if rel, err := filepath.Rel(r, k); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("the key %s is inside the store %s; keys never belong in a store, which is copied and shared: move it out", path, root)
	}
	return nil
}
