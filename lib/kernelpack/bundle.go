package kernelpack

import "strings"

// subViolation is a violation found by one of the kernel's file verifiers
// (verifyBundle, verifyPatch, verifyModelIO, verifyRunner). Inside a pack it
// becomes {rule_id: PK4/PK8, path: <file>, message: "<Rule>: <Message>"}; the
// file verifier's own JSON path is dropped, so it is not kept here.
type subViolation struct{ Rule, Message string }

// violations collects a file verifier's findings in the order found.
type violations []subViolation

func (vs *violations) add(rule, msg string) { *vs = append(*vs, subViolation{rule, msg}) }

// schemaVersion is the first check of the bundle, model I/O and patch
// specs, made only when v is an object: its field must be a non-empty
// string, and satisfy more (when non-nil), which returns a message for a
// string it rejects.
func (vs *violations) schemaVersion(v value, rule, field string, more func(s string) string) {
	o, ok := v.(*object)
	if !ok {
		return
	}
	sv := o.prop(field)
	switch s, isStr := sv.(string); {
	case isNullish(sv):
		vs.add(rule, field+" is missing")
	case !isStr:
		vs.add(rule, field+" must be string, got "+typeOf(sv))
	case s == "":
		vs.add(rule, field+" cannot be empty")
	case more != nil:
		if msg := more(s); msg != "" {
			vs.add(rule, msg)
		}
	}
}

// schema is the SCHEMA check that ends those specs' verification when it
// fails: v must be an object (what names it in the message) holding every
// field of required, and each field of arrays it holds must be an array.
func (vs *violations) schema(v value, what string, required []string, arrays ...string) (*object, bool) {
	o, ok := v.(*object)
	if !ok {
		got := typeOf(v)
		if isNull(v) {
			got = "null"
		}
		vs.add("SCHEMA", what+" must be object, got "+got)
		return nil, false
	}
	valid := true
	for _, f := range required {
		if !has(o, f) {
			vs.add("SCHEMA", "required field "+f+" is missing")
			valid = false
		}
	}
	for _, f := range arrays {
		if has(o, f) && !isArray(o.prop(f)) {
			vs.add("SCHEMA", f+" must be an array")
			valid = false
		}
	}
	return o, valid
}

// Every check below follows the reference verifier statement by statement,
// including its loose JavaScript comparisons and the property reads that
// throw on null elements (returned as a *jsError).

// verifyBundle is BUNDLE_SPEC verification (bundle_verify.ts).
func verifyBundle(b value) ([]subViolation, error) {
	var vs violations
	add := vs.add
	vs.schemaVersion(b, "BS1", "schema_version", nil)
	// SCHEMA; any failure stops here.
	o, ok := vs.schema(b, "bundle", []string{"id", "schema_version", "kernel_version", "status", "root_node", "terminal_nodes", "outputs", "unresolved_questions", "stats"})
	if !ok {
		return vs, nil
	}

	// BS3: outputs sorted by path.
	outputs, _ := o.prop("outputs").(*array)
	if outputs != nil {
		sorted, err := isSortedBy(outputs, "path")
		if err != nil {
			return nil, err
		}
		if !sorted {
			paths := &array{}
			for _, out := range outputs.elems {
				p, err := get(out, "path")
				if err != nil {
					return nil, err
				}
				paths.elems = append(paths.elems, p)
			}
			list, err := join(paths, ", ")
			if err != nil {
				return nil, err
			}
			add("BS3", "outputs not sorted by path: ["+list+"]")
		}
	}

	// BS4: constraints sorted.
	if root := o.prop("root_node"); truthy(root) {
		unsorted, err := unsortedMember(root, "constraints")
		if err != nil {
			return nil, err
		}
		if unsorted {
			add("BS4", "root_node.constraints not sorted lexicographically")
		}
	}
	terminals, _ := o.prop("terminal_nodes").(*array)
	if terminals != nil {
		for i, node := range terminals.elems {
			unsorted, err := unsortedMember(node, "constraints")
			if err != nil {
				return nil, err
			}
			if unsorted {
				add("BS4", "terminal_nodes["+itoa(i)+"].constraints not sorted")
			}
		}
	}
	if outputs != nil {
		for i, out := range outputs.elems {
			unsorted, err := unsortedMember(out, "source_constraints")
			if err != nil {
				return nil, err
			}
			if unsorted {
				add("BS4", "outputs["+itoa(i)+"].source_constraints not sorted")
			}
		}
	}

	// BS5: questions sorted by priority desc, id asc.
	if qs, ok := o.prop("unresolved_questions").(*array); ok {
		sorted, err := questionsSorted(qs)
		if err != nil {
			return nil, err
		}
		if !sorted {
			add("BS5", "unresolved_questions not sorted by priority desc, id asc")
		}
	}
	if terminals != nil {
		for i, node := range terminals.elems {
			q, err := get(node, "unresolved_questions")
			if err != nil {
				return nil, err
			}
			if qs, ok := q.(*array); ok {
				sorted, err := questionsSorted(qs)
				if err != nil {
					return nil, err
				}
				if !sorted {
					add("BS5", "terminal_nodes["+itoa(i)+"].unresolved_questions not sorted")
				}
			}
		}
	}

	// BS6: terminal nodes sorted by id.
	if terminals != nil {
		sorted, err := isSortedBy(terminals, "id")
		if err != nil {
			return nil, err
		}
		if !sorted {
			add("BS6", "terminal_nodes not sorted by id")
		}
	}

	// BS7: no unsafe output paths.
	if outputs != nil {
		for _, out := range outputs.elems {
			p, err := get(out, "path")
			if err != nil {
				return nil, err
			}
			s, err := stringMethod(p, "path", "startsWith")
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(s, "/") || strings.Contains(s, "..") || strings.Contains(s, `\`) {
				add("BS7", "unsafe path: "+s)
			}
		}
	}

	// BS8: canonical form is idempotent.
	if ok, err := roundTrips(b); err != nil {
		add("BS8", "failed to canonicalize bundle")
	} else if !ok {
		add("BS8", "canonical serialization not idempotent")
	}
	return vs, nil
}

// isSortedBy is the kernel's isSortedBy(arr, keyFn) with keyFn reading the
// property key of each element, or the element itself when key is "".
// unsortedMember reports whether v's member key is an array whose elements
// are not in order; a member that is not an array is not checked. Errors
// come where the kernel's verifier would throw: reading the member, then
// comparing its elements.
func unsortedMember(v value, key string) (bool, error) {
	c, err := get(v, key)
	if err != nil {
		return false, err
	}
	a, ok := c.(*array)
	if !ok {
		return false, nil
	}
	sorted, err := isSortedBy(a, "")
	return err == nil && !sorted, err
}

func isSortedBy(a *array, key string) (bool, error) {
	keyOf := func(v value) (value, error) {
		if key == "" {
			return v, nil
		}
		return get(v, key)
	}
	for i := 1; i < len(a.elems); i++ {
		prev, err := keyOf(a.elems[i-1])
		if err != nil {
			return false, err
		}
		curr, err := keyOf(a.elems[i])
		if err != nil {
			return false, err
		}
		gt, err := greaterThan(prev, curr)
		if err != nil {
			return false, err
		}
		if gt {
			return false, nil
		}
	}
	return true, nil
}

// questionsSorted is isQuestionsSorted: priority descending, then id ascending.
func questionsSorted(a *array) (bool, error) {
	for i := 1; i < len(a.elems); i++ {
		prev, curr := a.elems[i-1], a.elems[i]
		pp, err := get(prev, "priority")
		if err != nil {
			return false, err
		}
		cp, err := get(curr, "priority")
		if err != nil {
			return false, err
		}
		lt, err := lessThan(pp, cp)
		if err != nil {
			return false, err
		}
		if lt {
			return false, nil
		}
		if strictEqual(pp, cp) {
			pid, _ := get(prev, "id")
			cid, _ := get(curr, "id")
			gt, err := greaterThan(pid, cid)
			if err != nil {
				return false, err
			}
			if gt {
				return false, nil
			}
		}
	}
	return true, nil
}

// roundTrips is canonicalize → JSON.parse → canonicalize, comparing the two
// canonical texts. An error means canonicalize threw.
func roundTrips(v value) (bool, error) {
	c1, err := canonicalize(v)
	if err != nil {
		return false, err
	}
	parsed, err := parseText(c1)
	if err != nil {
		return false, err
	}
	c2, err := canonicalize(parsed)
	if err != nil {
		return false, err
	}
	return c1 == c2, nil
}

// stringMethod checks that v can have the String method method called on it
// (v.method(...) with v named name in the reference source) and returns it.
func stringMethod(v value, name, method string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case undefinedValue:
		return "", typeError("Cannot read properties of undefined (reading '" + method + "')")
	case nullValue:
		return "", typeError("Cannot read properties of null (reading '" + method + "')")
	}
	return "", typeError(name + "." + method + " is not a function")
}

func itoa(i int) string { return numberToString(float64(i)) }
