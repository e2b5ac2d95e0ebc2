package render

import (
	"reflect"
	"testing"
)

func TestSplitPipeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want [][]string
		err  string
	}{
		{"nl -ba a.go | sed -n '1,80p'", [][]string{{"nl", "-ba", "a.go"}, {"sed", "-n", "1,80p"}}, ""},
		{"cat 'a|b'", [][]string{{"cat", "a|b"}}, ""},
		{"a|b|c", [][]string{{"a"}, {"b"}, {"c"}}, ""},
		{"a || b", nil, `splitting "a || b": a pipeline with an empty command`},
		{"| a", nil, `splitting "| a": a pipeline with an empty command`},
		{"a |", nil, `splitting "a |": a pipeline with an empty command`},
		{"a | b > c", nil, `splitting "a | b > c": ">" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{"", nil, `splitting "": no command`},
	}
	for _, tt := range tests {
		got, err := SplitPipeline(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("SplitPipeline(%q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitPipeline(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
