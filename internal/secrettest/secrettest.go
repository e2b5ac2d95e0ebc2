// Package secrettest makes fake secrets in the formats gitleaks' rules
// know, at test time, so that no string in the repository looks like a
// live key (and trips the scanners that watch repositories). The same
// seed gives the same secrets.
package secrettest

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	mrand "math/rand/v2"
	"strings"
)

// Secret is one fake secret: what it is, the gitleaks rule expected to
// find it, and its text.
type Secret struct {
	Name  string
	Rule  string
	Value string
	// Core is the part of Value that must not survive a redaction (the
	// password of a URL); empty means all of Value.
	Core string
}

// Parts returns the pieces of the secret that must appear nowhere after
// a redaction: its Core or Value, or, for a multi-line key, each of its
// lines long enough to identify it.
func (s Secret) Parts() []string {
	v := s.Value
	if s.Core != "" {
		v = s.Core
	}
	if !strings.Contains(v, "\n") {
		return []string{v}
	}
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if len(l) >= 40 {
			out = append(out, l)
		}
	}
	return out
}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
)

// gen draws random text from a seeded source.
type gen struct{ r *mrand.Rand }

func (g gen) pick(alphabet string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[g.r.IntN(len(alphabet))])
	}
	return b.String()
}

// Corpus returns one fake secret of each kind the tests plant, drawn
// from seed.
func Corpus(seed uint64) []Secret {
	g := gen{mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	jwtPart := func(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }
	jwt := jwtPart(`{"alg":"HS256","typ":"JWT"}`) + "." +
		jwtPart(`{"sub":"`+g.pick(digits, 10)+`","name":"`+g.pick(lower, 8)+`","iat":1516239022}`) + "." +
		g.pick(alnum+"_-", 43)
	pw := g.pick(alnum, 20)
	return []Secret{
		{"aws", "aws-access-token", "AK" + "IA" + g.pick(upper+"234567", 16), ""},
		{"github", "github-pat", "gh" + "p_" + g.pick(alnum, 36), ""},
		{"gitlab", "gitlab-pat", "gl" + "pat-" + g.pick(alnum, 20), ""},
		{"slack", "slack-bot-token", "xo" + "xb-" + g.pick(digits, 12) + "-" + g.pick(digits, 13) + "-" + g.pick(alnum, 24), ""},
		{"stripe", "stripe-access-token", "sk" + "_live_" + g.pick(alnum, 24), ""},
		{"openai", "openai-api-key", "sk-" + "proj-" + g.pick(alnum, 74) + "T3Blbk" + "FJ" + g.pick(alnum, 74), ""},
		{"anthropic", "anthropic-api-key", "sk-" + "ant-api03-" + g.pick(alnum, 93) + "AA", ""},
		{"jwt", "jwt", jwt, ""},
		{"pem", "private-key", rsaPEM(), ""},
		{"openssh", "private-key", opensshKey(), ""},
		{"postgres-url", "url-password", "postgres://app:" + pw + "@db.internal:5432/prod", pw},
	}
}

// rsaPEM returns a fresh PKCS#1 RSA private key in PEM.
func rsaPEM() string {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// opensshKey returns a fresh, unencrypted ed25519 private key in
// OpenSSH's own format (PROTOCOL.key: "openssh-key-v1").
func opensshKey() string {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	str := func(b []byte, s []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...)
	}
	pubBlob := str(str(nil, []byte("ssh-ed25519")), pub)
	var sec []byte
	check := make([]byte, 4)
	rand.Read(check)
	sec = append(sec, check...)
	sec = append(sec, check...)
	sec = str(sec, []byte("ssh-ed25519"))
	sec = str(sec, pub)
	sec = str(sec, priv)
	sec = str(sec, []byte("fake@ctx-test"))
	for i := byte(1); len(sec)%8 != 0; i++ {
		sec = append(sec, i)
	}
	b := []byte("openssh-key-v1\x00")
	b = str(b, []byte("none"))
	b = str(b, []byte("none"))
	b = str(b, nil)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = str(b, pubBlob)
	b = str(b, sec)
	return string(pem.EncodeToMemory(&pem.Block{Type: "OPENSSH PRIVATE KEY", Bytes: b}))
}
