package remote

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddRemove(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	config := []byte(`{"version":1,"hash":"sha256","tools":{"x":{"argv":["a","<b>"],"n":1.50}},"trusted_keys":["k.pub"]}`)
	b, url, err := Add(config, "origin", "oci://ghcr.io/acme/runs/", base)
	if err != nil {
		t.Fatal(err)
	}
	if url != "oci://ghcr.io/acme/runs" {
		t.Errorf("url = %q, want the canonical form", url)
	}
	b, url, err = Add(b, "local", "oci-layout:./layouts/x/", base)
	if err != nil {
		t.Fatal(err)
	}
	if url != "oci-layout:layouts/x" {
		t.Errorf("url = %q, want oci-layout:layouts/x (relative to the store's directory)", url)
	}
	outside := filepath.Join(filepath.Dir(base), "elsewhere")
	b, url, err = Add(b, "far", "oci-layout:../elsewhere", base)
	if err != nil {
		t.Fatal(err)
	}
	if url != "oci-layout:"+outside {
		t.Errorf("url = %q, want oci-layout:%s", url, outside)
	}
	want := `{
  "hash": "sha256",
  "remotes": {
    "far": "oci-layout:` + outside + `",
    "local": "oci-layout:layouts/x",
    "origin": "oci://ghcr.io/acme/runs"
  },
  "tools": {
    "x": {
      "argv": [
        "a",
        "<b>"
      ],
      "n": 1.5
    }
  },
  "trusted_keys": [
    "k.pub"
  ],
  "version": 1
}
`
	if string(b) != want {
		t.Errorf("config after Add =\n%s\nwant\n%s", b, want)
	}
	r, err := Lookup("local", b, base)
	if err != nil || r.Dir != filepath.Join(base, "layouts/x") {
		t.Errorf("Lookup(local) = %+v, %v", r, err)
	}

	if _, _, err := Add(b, "origin", "oci://ghcr.io/acme/other", base); !errors.Is(err, ErrRemoteExists) {
		t.Errorf("Add of an existing name = %v, want ErrRemoteExists", err)
	}
	for _, tc := range []struct{ name, url, want string }{
		{"x", "https://example.com/x", "invalid remote"},
		{"x", "oci://ghcr.io/acme/runs:v1", "not a tag"},
		{"x", "oci-layout:", "want oci-layout:DIR"},
		{"oci://h/r", "oci://ghcr.io/acme/runs", "invalid remote name"},
		{"-x", "oci://ghcr.io/acme/runs", "invalid remote name"},
		{"", "oci://ghcr.io/acme/runs", "empty remote name"},
	} {
		if _, _, err := Add(b, tc.name, tc.url, base); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%q, %q) = %v, want %q", tc.name, tc.url, err, tc.want)
		}
	}

	b, url, err = Remove(b, "origin")
	if err != nil || url != "oci://ghcr.io/acme/runs" {
		t.Fatalf("Remove = %q, %v", url, err)
	}
	b, _, _ = Remove(b, "local")
	b, _, _ = Remove(b, "far")
	if want := "{\n  \"hash\": \"sha256\",\n  \"tools\""; !strings.HasPrefix(string(b), want) || strings.Contains(string(b), "remotes") {
		t.Errorf("config after removing every remote =\n%s", b)
	}
	if _, _, err := Remove(b, "origin"); !errors.Is(err, ErrNoRemote) {
		t.Errorf("Remove of a missing name = %v, want ErrNoRemote", err)
	}
}
