// Package kernelpack verifies context-engine-kernel Run Export Packs: the
// directories of run.json, bundle.json and optional files that the kernel
// exports for outside review (PACK_SPEC 1.0.0, invariants PK1–PK12). It is
// the library behind ctx-verify --kernel-pack.
//
// The verdict is byte-for-byte the kernel's reference verifier
// (src/consumer/pack_verify.ts and the bundle, patch, model I/O and runner
// verifiers it calls), except that pack_path echoes the path as given rather
// than an absolute one. That reference is JavaScript, so this package
// reproduces JavaScript semantics where they show through:
//
//   - Files are read as Node does (invalid UTF-8 becomes U+FFFD) and parsed
//     as JSON.parse does: duplicate keys keep the last value, numbers are
//     float64 (1e400 is Infinity), and strings may hold lone surrogates.
//   - canonicalize() sorts keys by UTF-16 code units and writes strings and
//     numbers as JSON.stringify does; canonicalHash() hashes that text plus
//     "\n". See Canonicalize and CanonicalHash.
//   - Checks compare values of any type with JavaScript's loose operators,
//     and where the reference would throw (reading a property of a null
//     array element, say) verification aborts: Result.Err is set, and the
//     CLI prints no JSON and exits 2.
//   - Violations sort by UTF-16 code units, so "PK12" sorts before "PK2".
//   - The reference's recursive canonicalize and Array.prototype.join run
//     out of V8 stack on values nested thousands of levels deep; the limits
//     of Node 20 are reproduced for plainly nested arrays and objects, and
//     approximated for mixed nesting. Parsing has no depth limit.
//
// Messages that the reference takes from its JavaScript engine (JSON syntax
// errors, file-system errors) are our own wording here, naming the file and,
// for syntax errors, the line and column.
//
// Usage, as ctx-verify --kernel-pack DIR [--no-deep] [--no-refs] does it:
//
//	r := kernelpack.Verify(dir, kernelpack.Options{Deep: !noDeep, Refs: !noRefs})
//	if r.Err != nil {
//		// report r.Err on stderr
//	} else if human {
//		io.WriteString(stdout, r.Human())
//	} else {
//		stdout.Write(r.JSON())
//	}
//	return r.ExitCode()
package kernelpack
