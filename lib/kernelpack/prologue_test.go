package kernelpack

import (
	"fmt"
	"slices"
	"testing"
)

// TestPrologues pins the checks the bundle, model I/O and patch verifiers
// share before their own rules: the schema version (on an object only) and
// SCHEMA, which stops verification.
func TestPrologues(t *testing.T) {
	t.Parallel()
	verifiers := map[string]func(value) ([]subViolation, error){
		"bundle": verifyBundle, "modelio": verifyModelIO, "patch": verifyPatch,
	}
	for _, tc := range []struct {
		verifier, input string
		want            []subViolation
	}{
		{"bundle", `null`, []subViolation{{"SCHEMA", "bundle must be object, got null"}}},
		{"bundle", `[1]`, []subViolation{{"SCHEMA", "bundle must be object, got object"}}},
		{"modelio", `"x"`, []subViolation{{"SCHEMA", "session must be object, got string"}}},
		{"patch", `3`, []subViolation{{"SCHEMA", "patch must be object, got number"}}},
		{"bundle", `{"schema_version":1,"id":"a"}`, []subViolation{
			{"BS1", "schema_version must be string, got number"},
			{"SCHEMA", "required field kernel_version is missing"}, {"SCHEMA", "required field status is missing"},
			{"SCHEMA", "required field root_node is missing"}, {"SCHEMA", "required field terminal_nodes is missing"},
			{"SCHEMA", "required field outputs is missing"}, {"SCHEMA", "required field unresolved_questions is missing"},
			{"SCHEMA", "required field stats is missing"},
		}},
		{"modelio", `{"model_io_schema_version":"1.x","adapter_id":"a","model_id":"m","mode":"record","interactions":{}}`, []subViolation{
			{"MI1", "model_io_schema_version must be semver format, got 1.x"},
			{"SCHEMA", "interactions must be an array"},
		}},
		{"modelio", `{"model_io_schema_version":""}`, []subViolation{
			{"MI1", "model_io_schema_version cannot be empty"},
			{"SCHEMA", "required field adapter_id is missing"}, {"SCHEMA", "required field model_id is missing"},
			{"SCHEMA", "required field mode is missing"}, {"SCHEMA", "required field interactions is missing"},
		}},
		{"patch", `{"patch_schema_version":null,"source_proposal_id":"p","source_proposal_hash":"h","operations":"no","total_bytes":0}`, []subViolation{
			{"PS1", "patch_schema_version is missing"},
			{"SCHEMA", "operations must be an array"},
		}},
		{"patch", `{"patch_schema_version":"","operations":[]}`, []subViolation{
			{"PS1", "patch_schema_version cannot be empty"},
			{"SCHEMA", "required field source_proposal_id is missing"}, {"SCHEMA", "required field source_proposal_hash is missing"},
			{"SCHEMA", "required field total_bytes is missing"},
		}},
	} {
		v, err := parseText(tc.input)
		if err != nil {
			t.Fatalf("%s: %v", tc.input, err)
		}
		got, err := verifiers[tc.verifier](v)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s(%s) =\n%s, %v\nwant\n%s", tc.verifier, tc.input, fmt.Sprint(got), err, fmt.Sprint(tc.want))
		}
	}
}
