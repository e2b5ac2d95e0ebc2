package kernelpack

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
)

// MODEL_IO_SPEC limits (MI4, MI11).
const (
	modelIOMaxInteractions  = 10000
	modelIOMaxResponseBytes = 1_000_000
	modelIOMaxTotalBytes    = 100_000_000
)

var (
	contentHashPattern = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
	semverPattern      = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
)

func isContentHash(v value) bool {
	s, ok := v.(string)
	return ok && contentHashPattern.MatchString(s)
}

// verifyModelIO is MODEL_IO_SPEC verification (model_io_verify.ts).
func verifyModelIO(session value) ([]subViolation, error) {
	var vs violations
	add := vs.add
	vs.schemaVersion(session, "MI1", "model_io_schema_version", func(s string) string {
		if !semverPattern.MatchString(s) {
			return "model_io_schema_version must be semver format, got " + s
		}
		return ""
	})
	// SCHEMA; any failure stops here.
	o, ok := vs.schema(session, "session", []string{"model_io_schema_version", "adapter_id", "model_id", "mode", "interactions"}, "interactions")
	if !ok {
		return vs, nil
	}
	items := o.prop("interactions").(*array).elems

	// MI2
	if s, ok := o.prop("adapter_id").(string); !ok || s == "" {
		add("MI2", "adapter_id must be non-empty string")
	}
	if s, ok := o.prop("model_id").(string); !ok || s == "" {
		add("MI2", "model_id must be non-empty string")
	}

	// MI3
	mode := o.prop("mode")
	if !strictEqual(mode, "record") && !strictEqual(mode, "replay") {
		m, err := toString(mode)
		if err != nil {
			return nil, err
		}
		add("MI3", "mode must be one of [record, replay], got "+m)
	}

	// MI4
	if len(items) > modelIOMaxInteractions {
		add("MI4", "interactions length ("+itoa(len(items))+") exceeds limit ("+itoa(modelIOMaxInteractions)+")")
	}

	// MI5: indices 0, 1, 2, …
	for k, it := range items {
		iv, err := get(it, "i")
		if err != nil {
			return nil, err
		}
		if n, ok := iv.(float64); !ok {
			add("MI5", "index must be a number, got "+typeOf(iv))
		} else if n != float64(k) {
			add("MI5", "index must be "+itoa(k)+", got "+numberToString(n))
		}
	}

	// MI6
	for _, it := range items {
		ph, _ := get(it, "prompt_hash")
		if !isContentHash(ph) {
			s, err := toString(ph)
			if err != nil {
				return nil, err
			}
			add("MI6", "prompt_hash must be sha256:<64 hex chars>, got "+s)
		}
	}

	// MI7: response_hash is the SHA-256 of response_content.
	for _, it := range items {
		rh, _ := get(it, "response_hash")
		if !isContentHash(rh) {
			s, err := toString(rh)
			if err != nil {
				return nil, err
			}
			add("MI7", "response_hash must be sha256:<64 hex chars>, got "+s)
			continue
		}
		rc, _ := get(it, "response_content")
		content, ok := rc.(string)
		if !ok {
			add("MI7", "response_content must be a string, got "+typeOf(rc))
			continue
		}
		sum := sha256.Sum256(utf8Bytes(content))
		computed := "sha256:" + hex.EncodeToString(sum[:])
		if rh.(string) != computed {
			add("MI7", "response_hash mismatch: expected "+computed+", got "+rh.(string))
		}
	}

	// MI8: no duplicate (prompt_hash, i) pairs.
	seen := map[string]bool{}
	for k, it := range items {
		ph, _ := get(it, "prompt_hash")
		iv, _ := get(it, "i")
		a, err := toString(ph)
		if err != nil {
			return nil, err
		}
		b, err := toString(iv)
		if err != nil {
			return nil, err
		}
		key := a + "|" + b
		if seen[key] {
			add("MI8", "duplicate (prompt_hash, i) pair at index "+itoa(k))
		}
		seen[key] = true
	}

	// MI9: sorted by i.
	for k := 1; k < len(items); k++ {
		pi, _ := get(items[k-1], "i")
		ci, _ := get(items[k], "i")
		p, pok := pi.(float64)
		c, cok := ci.(float64)
		if pok && cok && p >= c {
			add("MI9", "interactions not sorted by i: "+numberToString(p)+" >= "+numberToString(c))
		}
	}

	// MI11: size limits.
	total := 0
	for _, it := range items {
		rc, _ := get(it, "response_content")
		if s, ok := rc.(string); ok {
			n := len(s)
			if n > modelIOMaxResponseBytes {
				add("MI11", "response_content size ("+itoa(n)+" bytes) exceeds limit ("+itoa(modelIOMaxResponseBytes)+")")
			}
			total += n
		}
	}
	if total > modelIOMaxTotalBytes {
		add("MI11", "total response bytes ("+itoa(total)+") exceeds limit ("+itoa(modelIOMaxTotalBytes)+")")
	}
	return vs, nil
}
