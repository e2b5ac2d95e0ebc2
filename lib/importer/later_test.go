package importer

import (
	"encoding/json"
	"testing"
)

// doneLaterByLists is doneLater as first written, one list value at a
// time: the definition the one that writes each list once must match.
func doneLaterByLists(m *Msg) {
	var keys []string
	lists := map[string]List{}
	for _, l := range m.later {
		v := l.raw
		if v == nil {
			v = l.o.Raw()
		}
		if !l.list {
			m.Meta.Set(l.k, v)
			continue
		}
		if _, ok := lists[l.k]; !ok {
			keys = append(keys, l.k)
			lists[l.k] = ListOf(m.Meta.Get(l.k))
		}
		lists[l.k] = append(lists[l.k], v)
	}
	for _, k := range keys {
		m.Meta.Set(k, lists[k].Raw())
	}
	m.later = nil
}

func TestDoneLater(t *testing.T) {
	o := func(kv ...string) Obj {
		var r Obj
		for i := 0; i < len(kv); i += 2 {
			r = append(r, Member{kv[i], json.RawMessage(kv[i+1])})
		}
		return r
	}
	for name, c := range map[string]struct {
		meta  Obj
		later []laterMeta
	}{
		"none":      {o("a", "1"), nil},
		"one item":  {nil, []laterMeta{{k: "items", list: true, o: o("id", `"r1"`, "type", `"reasoning"`)}}},
		"raw items": {nil, []laterMeta{{k: "items", list: true, raw: json.RawMessage(`{"x":1}`)}, {k: "items", list: true, raw: json.RawMessage(`[2]`)}}},
		"to a list the metadata has": {o("items", `[1,{"a":2}]`, "z", "0"),
			[]laterMeta{{k: "items", list: true, o: o("b", "3")}}},
		"to an empty list": {o("items", `[]`), []laterMeta{{k: "items", list: true, o: o("b", "3")}}},
		"empty values": {nil, []laterMeta{{k: "items", list: true}, {k: "items", list: true, raw: json.RawMessage{}},
			{k: "items", list: true, o: Obj{}}, {k: "token_count"}}},
		"members and lists in order": {o("model", `"m"`), []laterMeta{
			{k: "token_count", o: o("input", "5")},
			{k: "more_token_counts", list: true, o: o("n", "1")},
			{k: "items", list: true, raw: json.RawMessage(`"u"`)},
			{k: "more_token_counts", list: true, o: o("n", "2")},
			{k: "token_count", o: o("input", "6")},
		}},
		"escaped names": {nil, []laterMeta{{k: "items", list: true, o: o("a\"b\\", `"\u00e9"`)}}},
	} {
		want := &Msg{Meta: append(Obj(nil), c.meta...), later: c.later}
		got := &Msg{Meta: append(Obj(nil), c.meta...), later: c.later}
		doneLaterByLists(want)
		got.doneLater()
		if string(got.Meta.Raw()) != string(want.Meta.Raw()) || got.later != nil {
			t.Errorf("%s: metadata %s, want %s", name, got.Meta.Raw(), want.Meta.Raw())
		}
	}
}

// TestSeen checks that the run's start is the earliest timestamp seen,
// the first of equal ones, whatever their forms and order: those that
// skip parsing (UTC, as long as the earliest, sorting after it) and
// those that do not.
func TestSeen(t *testing.T) {
	for _, c := range []struct {
		ts   []string
		want string
	}{
		{[]string{"2026-01-02T03:04:05.100Z", "2026-01-02T03:04:05.200Z", "2026-01-02T03:04:04.900Z"}, "2026-01-02T03:04:04.900Z"},
		{[]string{"2026-01-02T03:04:05.100Z", "2026-01-02T03:04:05.1Z", "2026-01-02T03:04:05Z"}, "2026-01-02T03:04:05Z"},
		{[]string{"2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"}, "2026-01-02T03:04:05Z"},
		{[]string{"2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05Z"}, "2026-01-02T03:04:05.000Z"},
		{[]string{"2026-01-02T03:04:05Z", "2026-01-02T04:04:05+02:00"}, "2026-01-02T04:04:05+02:00"},
		{[]string{"2026-01-02T03:04:05+02:00", "2026-01-02T02:04:05Z"}, "2026-01-02T03:04:05+02:00"},
		{[]string{"2026-01-02T03:04:05.5Z", "2026-01-02T03:04:05.9Z", "2026-01-02T03:04:05.0Z"}, "2026-01-02T03:04:05.0Z"},
		{[]string{"not a time", "2026-01-02T03:04:05Z", "2026-01-02T03:04:99Z", "2026-01-02T03:04:06Z"}, "2026-01-02T03:04:05Z"},
		{[]string{"2026-01-02T03:04:05Z", "2026-01-02T03:04:0xZ", "2025-13-02T03:04:05Z"}, "2026-01-02T03:04:05Z"},
	} {
		b := newBuilder(lookup(OpenAIResponses), Options{})
		for _, ts := range c.ts {
			b.Seen(ts)
		}
		if b.created != c.want {
			t.Errorf("%q: created %q, want %q", c.ts, b.created, c.want)
		}
	}
}
