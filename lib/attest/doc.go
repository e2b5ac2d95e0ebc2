// Package attest makes a pack's provenance checkable by the supply-chain
// tools people already run: an in-toto Statement v1 per pack output (and
// one for the pack itself) with ctx's own predicate, signed as a DSSE
// envelope with an ed25519 or ECDSA P-256 key (cosign's own encrypted
// keys, OpenSSH keys with or without a passphrase, PEM) and carried in a
// Sigstore bundle v0.3 with a public-key hint and no transparency log.
//
//	<output>.sigstore.json
//	{"dsseEnvelope":{"payload":"<base64 statement>","payloadType":"application/vnd.in-toto+json",
//	  "signatures":[{"keyid":"<hex>","sig":"<base64>"}]},
//	 "mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json",
//	 "verificationMaterial":{"publicKey":{"hint":"<hex>"}}}
//
// Everything is built with the standard library, and golang.org/x/crypto
// to read encrypted keys (scrypt and NaCl secretbox for cosign's, bcrypt-
// pbkdf for OpenSSH's). Statements are canonical JSON and ed25519
// signatures are deterministic (RFC 8032), so the same pack and ed25519
// key always give the same bundle bytes. cosign checks such a
// bundle offline:
//
//	cosign verify-blob-attestation --key ctx.pub --insecure-ignore-tlog \
//	  --type https://ctx-tools.github.io/attestation/context-pack/v0.1 \
//	  --bundle result.md.sigstore.json result.md
//
// The predicate is specified in docs/attestation.md. Verify checks an
// artifact's bundle against trusted keys, the artifact's bytes and the
// pack the statement names; Trusted says where trusted keys may come from
// (never from a store, which can be received from anyone).
package attest
