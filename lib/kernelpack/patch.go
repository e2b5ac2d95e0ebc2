package kernelpack

import (
	"regexp"
	"strings"
)

// patchMaxBytes is the default policy's limit on a patch's total_bytes (50 MiB).
const patchMaxBytes = 50 * 1024 * 1024

var driveLetter = regexp.MustCompile(`^[A-Za-z]:`)

// verifyPatch is PATCH_SPEC verification (patch_verify.ts).
func verifyPatch(p value) ([]subViolation, error) {
	var vs violations
	add := vs.add
	vs.schemaVersion(p, "PS1", "patch_schema_version", nil)
	// SCHEMA; any failure stops here.
	o, ok := vs.schema(p, "patch", []string{"patch_schema_version", "source_proposal_id", "source_proposal_hash", "operations", "total_bytes"}, "operations")
	if !ok {
		return vs, nil
	}
	ops := o.prop("operations").(*array).elems

	// PS2: op is one of create, modify, delete.
	for _, op := range ops {
		kind, err := get(op, "op")
		if err != nil {
			return nil, err
		}
		if s, ok := kind.(string); !ok || (s != "create" && s != "modify" && s != "delete") {
			k, err := toString(kind)
			if err != nil {
				return nil, err
			}
			add("PS2", "invalid operation type: "+k)
		}
	}

	// PS3: relative paths only. From here on every op is an object with a
	// string path: anything else has thrown.
	paths := make([]string, len(ops))
	for i, op := range ops {
		pv, err := get(op, "path")
		if err != nil {
			return nil, err
		}
		s, err := stringMethod(pv, "path", "startsWith")
		if err != nil {
			return nil, err
		}
		paths[i] = s
		if strings.HasPrefix(s, "/") || driveLetter.MatchString(s) {
			add("PS3", "absolute path not allowed: "+s)
		}
	}

	// PS4: no traversal, forbidden characters or unnormalised paths.
	for _, s := range paths {
		if strings.Contains(s, "..") || strings.Contains(s, `\`) {
			add("PS4", "path traversal or backslash not allowed: "+s)
		}
		if forbiddenPathChars(s) {
			add("PS4", "forbidden characters in path: "+s)
		}
		if strings.HasPrefix(s, "./") || strings.Contains(s, "//") || strings.HasSuffix(s, "/") || s == "." || s == "" {
			add("PS4", "path not normalized: "+s)
		}
	}

	// PS5: no duplicate targets.
	seen := map[string]int{}
	for i, s := range paths {
		if j, dup := seen[s]; dup {
			add("PS5", "duplicate target path: "+s+" (also at index "+itoa(j)+")")
		} else {
			seen[s] = i
		}
	}

	// PS6: text content only, and content where the op needs it.
	for _, op := range ops {
		content := op.(*object).prop("content")
		kind := op.(*object).prop("op")
		if !isUndefined(content) {
			ok, err := validUTF8Content(content)
			if err != nil {
				return nil, err
			}
			if !ok {
				add("PS6", "content is not valid UTF-8 or contains null bytes")
			}
		}
		if strictEqual(kind, "delete") && !isUndefined(content) {
			add("PS6", "delete operation must not have content")
		}
		if (strictEqual(kind, "create") || strictEqual(kind, "modify")) && isUndefined(content) {
			add("PS6", kind.(string)+" operation must have content")
		}
	}

	// PS7: total_bytes present, within the limit and equal to the content size.
	if total, ok := o.prop("total_bytes").(float64); !ok {
		add("PS7", "total_bytes is missing or not a number")
	} else {
		if total > patchMaxBytes {
			add("PS7", "total_bytes ("+numberToString(total)+") exceeds limit ("+itoa(patchMaxBytes)+")")
		}
		actual := 0.0
		for _, op := range ops {
			content := op.(*object).prop("content")
			if isUndefined(content) {
				continue
			}
			s, ok := content.(string)
			if !ok {
				// Buffer.byteLength rejects anything but a string here.
				return nil, typeError(`The "string" argument must be of type string or an instance of Buffer or ArrayBuffer. Received ` + received(content))
			}
			actual += float64(len(s))
		}
		if actual != total {
			add("PS7", "total_bytes ("+numberToString(total)+") does not match actual content size ("+numberToString(actual)+")")
		}
	}

	// PS8: sorted by order (default 0), then path.
	for i := 1; i < len(ops); i++ {
		prev, curr := ops[i-1].(*object), ops[i].(*object)
		po, co := prev.prop("order"), curr.prop("order")
		if isNullish(po) {
			po = 0.0
		}
		if isNullish(co) {
			co = 0.0
		}
		gt, err := greaterThan(po, co)
		if err != nil {
			return nil, err
		}
		if gt {
			a, err := toString(po)
			if err != nil {
				return nil, err
			}
			b, err := toString(co)
			if err != nil {
				return nil, err
			}
			add("PS8", "operations not sorted by order: "+a+" > "+b)
		} else if strictEqual(po, co) && compareUTF16(paths[i-1], paths[i]) > 0 {
			add("PS8", "operations not sorted by path: "+paths[i-1]+" > "+paths[i])
		}
	}

	// PS9: no symlink operations.
	for _, op := range ops {
		if strictEqual(op.(*object).prop("op"), "symlink") {
			add("PS9", "symlink operations are not allowed")
		}
	}
	return vs, nil
}

// forbiddenPathChars is hasForbiddenPathChars: control characters other than
// tab and newline, or leading/trailing whitespace.
func forbiddenPathChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' {
			return true
		}
	}
	return s != jsTrim(s)
}

// validUTF8Content is isValidUtf8Content(content): no NUL and no lone
// surrogate. It is called as content.includes(...) and then indexed with
// charCodeAt, so an array passes when empty, and other types throw.
func validUTF8Content(content value) (bool, error) {
	switch x := content.(type) {
	case string:
		return !strings.Contains(x, "\x00") && !badSurrogate(x), nil
	case *array:
		for _, e := range x.elems {
			if strictEqual(e, "\x00") {
				return false, nil
			}
		}
		if len(x.elems) > 0 {
			return false, typeError("content.charCodeAt is not a function")
		}
		return true, nil
	}
	_, err := stringMethod(content, "content", "includes")
	return false, err
}

// badSurrogate is the reference's unpaired-surrogate scan: a high surrogate
// followed by anything but a low one, or a lone low surrogate. A high
// surrogate that ends the string passes, since charCodeAt past the end is
// NaN and NaN fails both range tests.
func badSurrogate(s string) bool {
	it := unitIter{s: s}
	for {
		u, ok := it.next()
		if !ok {
			return false
		}
		switch {
		case u >= 0xD800 && u <= 0xDBFF:
			next, ok := it.next()
			if ok && (next < 0xDC00 || next > 0xDFFF) {
				return true
			}
		case u >= 0xDC00 && u <= 0xDFFF:
			return true
		}
	}
}

// received names a value's type the way Node's ERR_INVALID_ARG_TYPE does.
func received(v value) string {
	switch v.(type) {
	case nullValue:
		return "null"
	case *array:
		return "an instance of Array"
	case *object:
		return "an instance of Object"
	}
	s, _ := toString(v)
	return "type " + typeOf(v) + " (" + s + ")"
}
