package attest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/nacl/secretbox"
	"golang.org/x/crypto/scrypt"
	"golang.org/x/crypto/ssh"

	"github.com/ctx-tools/ctx/lib/found"
)

// Signer signs statements with an ed25519 or ECDSA P-256 private key.
type Signer struct {
	key crypto.Signer // ed25519.PrivateKey or *ecdsa.PrivateKey on P-256
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

// NewSigner returns a signer for key: an ed25519.PrivateKey or an
// *ecdsa.PrivateKey on P-256 (cosign's default).
func NewSigner(key crypto.Signer) (*Signer, error) {
	switch k := key.(type) {
	case ed25519.PrivateKey:
		if len(k) != ed25519.PrivateKeySize {
			return nil, errors.New("ed25519 private key has the wrong length")
		}
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("an ECDSA key on %s; ctx signs with ECDSA on P-256 only", k.Curve.Params().Name)
		}
	default:
		return nil, fmt.Errorf("a %s key; ctx signs with ed25519 and ECDSA P-256 keys", keyType(key))
	}
	pub, err := newPublicKey(key.Public(), "")
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, pub: pub}, nil
}

// Passphrase returns the passphrase of an encrypted private key; key
// names it (its file) for a prompt or a message. lib/cli's Passphrase
// takes it from $COSIGN_PASSWORD or asks on the terminal.
type Passphrase func(key string) ([]byte, error)

// MaxKeyFile bounds a key file: keys are a few hundred bytes, and a key
// file is read only if it is a regular file (lib/found), so that a named
// pipe or a device given as a key, or listed in trusted_keys, is refused
// rather than read forever.
const MaxKeyFile = 64 << 10

// LoadSigner reads a private key from a file, in any form ParseKey
// reads; pass gives the passphrase of an encrypted one (nil: encrypted
// keys are refused with ErrEncryptedKey).
func LoadSigner(path string, pass Passphrase) (*Signer, error) {
	b, err := found.ReadFile(path, found.Rule{What: "signing key", Max: MaxKeyFile})
	if err != nil {
		return nil, err
	}
	var ask func() ([]byte, error)
	if pass != nil {
		ask = func() ([]byte, error) { return pass(path) }
	}
	key, err := ParseKey(b, ask)
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

// signPAE signs a DSSE pre-authentication encoding: ed25519 over the bytes
// themselves (deterministic, RFC 8032), ECDSA over their SHA-256 in ASN.1
// form (randomised), as DSSE verifiers and cosign expect.
func (s *Signer) signPAE(msg []byte) ([]byte, error) {
	switch k := s.key.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, msg), nil
	case *ecdsa.PrivateKey:
		sum := sha256.Sum256(msg)
		return ecdsa.SignASN1(rand.Reader, k, sum[:])
	}
	return nil, fmt.Errorf("a %s key cannot sign", keyType(s.key))
}

// ErrEncryptedKey reports a passphrase-protected private key read
// without a way to ask for its passphrase.
var ErrEncryptedKey = errors.New("the key is encrypted with a passphrase")

// ErrPassphrase reports a passphrase that does not decrypt the key.
var ErrPassphrase = errors.New("wrong passphrase: the key does not decrypt with it")

// ParseKey decodes an ed25519 or ECDSA P-256 private key in the forms
// people have them:
//
//   - PKCS#8 PEM "PRIVATE KEY" (openssl genpkey), SEC 1 "EC PRIVATE KEY"
//     (openssl ecparam -genkey);
//   - OpenSSH "OPENSSH PRIVATE KEY" (ssh-keygen -t ed25519 or -t ecdsa),
//     plain or passphrase-protected (bcrypt-pbkdf with aes256-ctr or
//     aes256-cbc);
//   - cosign's "ENCRYPTED SIGSTORE PRIVATE KEY" (and the older "ENCRYPTED
//     COSIGN PRIVATE KEY"): PKCS#8 sealed with scrypt and NaCl secretbox,
//     as cosign generate-key-pair writes.
//
// pass is called only for an encrypted key; nil refuses those with
// ErrEncryptedKey. Other key types are errors that say so.
func ParseKey(b []byte, pass func() ([]byte, error)) (crypto.Signer, error) {
	block, rest := pem.Decode(b)
	if block == nil {
		return nil, errors.New("not a PEM private key (want PKCS#8 \"PRIVATE KEY\", \"EC PRIVATE KEY\", \"OPENSSH PRIVATE KEY\" or cosign's \"ENCRYPTED SIGSTORE PRIVATE KEY\")")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, errors.New("more than one PEM block")
	}
	var k any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		if k, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
			return nil, fmt.Errorf("parsing PKCS#8 key: %w", err)
		}
	case "EC PRIVATE KEY":
		if len(block.Headers) > 0 {
			return nil, errors.New("an EC key encrypted the legacy OpenSSL way (Proc-Type header), which ctx does not read; convert it: openssl pkey -in KEY -out PLAIN, then cosign import-key-pair")
		}
		if k, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			return nil, fmt.Errorf("parsing EC key: %w", err)
		}
	case "OPENSSH PRIVATE KEY":
		if k, err = parseOpenSSH(b, pass); err != nil {
			return nil, err
		}
	case "ENCRYPTED SIGSTORE PRIVATE KEY", "ENCRYPTED COSIGN PRIVATE KEY":
		if pass == nil {
			return nil, ErrEncryptedKey
		}
		p, err := pass()
		if err != nil {
			return nil, err
		}
		der, err := decryptCosign(block.Bytes, p)
		if err != nil {
			return nil, err
		}
		if k, err = x509.ParsePKCS8PrivateKey(der); err != nil {
			return nil, fmt.Errorf("parsing the decrypted PKCS#8 key: %w", err)
		}
	case "ENCRYPTED PRIVATE KEY":
		return nil, errors.New("a PKCS#8 key encrypted by OpenSSL, which ctx does not read; use a cosign key (cosign generate-key-pair, or cosign import-key-pair to convert this one) or an OpenSSH key with a passphrase")
	case "PUBLIC KEY":
		return nil, errors.New("a public key; signing needs the private key")
	default:
		return nil, fmt.Errorf("unsupported PEM block %q (want PKCS#8 \"PRIVATE KEY\", \"EC PRIVATE KEY\", \"OPENSSH PRIVATE KEY\" or cosign's \"ENCRYPTED SIGSTORE PRIVATE KEY\")", block.Type)
	}
	switch k := k.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *ed25519.PrivateKey: // x/crypto/ssh's OpenSSH parser
		return *k, nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("an ECDSA key on %s; ctx signs with ed25519 and ECDSA P-256 keys", k.Curve.Params().Name)
		}
		return k, nil
	}
	return nil, fmt.Errorf("a %s key; ctx signs with ed25519 and ECDSA P-256 keys", keyType(k))
}

// parseOpenSSH decodes an OpenSSH private key with golang.org/x/crypto/ssh
// (OpenSSH's PROTOCOL.key; bcrypt-pbkdf for a passphrase), then checks
// that an ed25519 key's public half is its own, which that parser takes
// on trust.
func parseOpenSSH(b []byte, pass func() ([]byte, error)) (any, error) {
	k, err := ssh.ParseRawPrivateKey(b)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if pass == nil {
			return nil, ErrEncryptedKey
		}
		p, perr := pass()
		if perr != nil {
			return nil, perr
		}
		k, err = ssh.ParseRawPrivateKeyWithPassphrase(b, p)
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, ErrPassphrase
		}
	}
	if err != nil {
		return nil, fmt.Errorf("OpenSSH private key: %s", strings.TrimPrefix(err.Error(), "ssh: "))
	}
	if ek, ok := k.(*ed25519.PrivateKey); ok {
		if len(*ek) != ed25519.PrivateKeySize || !bytes.Equal(ed25519.NewKeyFromSeed(ek.Seed()), *ek) {
			return nil, errors.New("OpenSSH private key: public half does not match the private key")
		}
	}
	return k, nil
}

// cosignKey is the JSON inside cosign's encrypted key PEM block
// (go-securesystemslib's encrypted package): scrypt derives a 32-byte
// key from the passphrase, which opens a NaCl secretbox holding the
// PKCS#8 DER of the private key. Byte fields are standard base64.
type cosignKey struct {
	KDF struct {
		Name   string `json:"name"`
		Params struct {
			N int `json:"N"`
			R int `json:"r"`
			P int `json:"p"`
		} `json:"params"`
		Salt []byte `json:"salt"`
	} `json:"kdf"`
	Cipher struct {
		Name  string `json:"name"`
		Nonce []byte `json:"nonce"`
	} `json:"cipher"`
	Ciphertext []byte `json:"ciphertext"`
}

// scryptCosts are the scrypt costs go-securesystemslib writes and
// accepts (legacy 2^15, standard 2^16, OWASP 2^17; always r 8, p 1): any
// other is refused before work a hostile file could make arbitrarily
// costly.
var scryptCosts = []int{1 << 15, 1 << 16, 1 << 17}

func decryptCosign(body, passphrase []byte) ([]byte, error) {
	var ck cosignKey
	if err := json.Unmarshal(body, &ck); err != nil {
		return nil, fmt.Errorf("cosign encrypted key: %w", err)
	}
	switch {
	case ck.KDF.Name != "scrypt":
		return nil, fmt.Errorf("cosign encrypted key: unknown kdf %q (want scrypt)", clip(ck.KDF.Name))
	case ck.Cipher.Name != "nacl/secretbox":
		return nil, fmt.Errorf("cosign encrypted key: unknown cipher %q (want nacl/secretbox)", clip(ck.Cipher.Name))
	case !slices.Contains(scryptCosts, ck.KDF.Params.N) || ck.KDF.Params.R != 8 || ck.KDF.Params.P != 1:
		return nil, fmt.Errorf("cosign encrypted key: unsupported scrypt parameters N=%d r=%d p=%d", ck.KDF.Params.N, ck.KDF.Params.R, ck.KDF.Params.P)
	case len(ck.Cipher.Nonce) != 24:
		return nil, fmt.Errorf("cosign encrypted key: nonce of %d bytes, want 24", len(ck.Cipher.Nonce))
	}
	k, err := boxKey(passphrase, ck)
	if err != nil {
		return nil, err
	}
	nonce := [24]byte(ck.Cipher.Nonce)
	der, ok := secretbox.Open(nil, ck.Ciphertext, &nonce, &k)
	if !ok {
		return nil, ErrPassphrase
	}
	return der, nil
}

func boxKey(passphrase []byte, ck cosignKey) ([32]byte, error) {
	p := ck.KDF.Params
	k, err := scrypt.Key(passphrase, ck.KDF.Salt, p.N, p.R, p.P, 32)
	if err != nil {
		return [32]byte{}, fmt.Errorf("cosign encrypted key: %w", err)
	}
	return [32]byte(k), nil
}

// ParsePublicKey decodes a public key: a PKIX PEM "PUBLIC KEY" block
// (ed25519, or ECDSA P-256 as cosign generate-key-pair writes), or one
// OpenSSH public key line, "ssh-ed25519 AAAA… [comment]" or
// "ecdsa-sha2-nistp256 AAAA… [comment]" (an id_ed25519.pub or
// id_ecdsa.pub file). source names it in messages and in
// PublicKey.Source.
func ParsePublicKey(b []byte, source string) (PublicKey, error) {
	t := bytes.TrimSpace(b)
	if bytes.HasPrefix(t, []byte("ssh-")) || bytes.HasPrefix(t, []byte("ecdsa-")) {
		if bytes.ContainsAny(t, "\r\n") {
			return PublicKey{}, fmt.Errorf("%s: want one OpenSSH public key line", source)
		}
		k, _, _, rest, err := ssh.ParseAuthorizedKey(t)
		if err == nil && len(rest) > 0 {
			err = errors.New("trailing data")
		}
		if err != nil {
			return PublicKey{}, fmt.Errorf("%s: OpenSSH public key: %s", source, strings.TrimPrefix(err.Error(), "ssh: "))
		}
		ck, ok := k.(ssh.CryptoPublicKey)
		if !ok {
			return PublicKey{}, fmt.Errorf("%s: OpenSSH public key: a %s key; ctx checks ed25519 and ECDSA P-256 keys", source, k.Type())
		}
		return newPublicKey(ck.CryptoPublicKey(), source)
	}
	block, rest := pem.Decode(t)
	switch {
	case block == nil:
		return PublicKey{}, fmt.Errorf("%s: not a public key (want a PEM \"PUBLIC KEY\" or an OpenSSH public key line)", source)
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
