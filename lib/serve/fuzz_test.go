package serve

import (
	"net/http/httptest"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzRequest sends arbitrary request bodies in every wire format: the
// matcher answers or misses, never panics, and a miss is an error the
// wire format's clients read.
func FuzzRequest(f *testing.F) {
	f.Add(anthropicRequest(false, firstUser, firstAnswer, toolResult("x")))
	f.Add(`{"model":"m","input":[{"type":"function_call","call_id":"c"},{"type":"function_call_output","call_id":"c","output":[{"text":"a"}]}]}`)
	f.Add(`{"messages":[{"role":"assistant","tool_calls":[{"id":"toolu_1"}]},{"role":"tool","tool_call_id":"toolu_1","content":"x"}]}`)
	f.Add(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"Write"}}]},{"role":"user","parts":[{"functionResponse":{"name":"Write","response":{"output":"x"}}}]}]}`)
	f.Add(`{"messages":"x","input":7,"contents":{}}`)
	r, _ := load(f, session)
	srv := New(r, Options{Workspace: "/tmp/ws"})
	paths := []string{"/v1/messages", "/v1/responses", "/v1/chat/completions", "/v1beta/models/m:streamGenerateContent"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range paths {
			code, answer := post(t, srv, p, "", body)
			if code != 200 && !gjson.ValidBytes(answer) {
				t.Errorf("%s: status %d with an answer that is not JSON: %q", p, code, answer)
			}
		}
	})
}

// FuzzStream writes answers of arbitrary text in every wire format's
// stream: the events, split as a client splits them and assembled, give
// back the text exactly (no content ends an event or starts one).
func FuzzStream(f *testing.F) {
	f.Add("hello", "thinking", `{"a":"b"}`)
	f.Add("line\n\ndata: {\"type\":\"message_stop\"}\n\n", "\r\n\r\nevent: x", `{"k":"\n\ndata: [DONE]\n\n"}`)
	f.Add("\u2028\u2029\x00", "", `{}`)
	wires := map[string]Wire{"anthropic": Anthropic{}, "openai-responses": Responses{}, "openai-chat": Chat{}, "gemini": Gemini{}}
	f.Fuzz(func(t *testing.T, text, reasoning, input string) {
		if !utf8.ValidString(text) || !utf8.ValidString(reasoning) || !utf8.ValidString(input) || !gjson.Valid(input) || !gjson.Parse(input).IsObject() {
			t.Skip()
		}
		a := &Answer{ID: "x", Model: "m", Text: text, Reasoning: reasoning, Calls: []AnswerCall{{ID: "c1", Name: "t", Input: []byte(input)}}}
		for name, w := range wires {
			rec := httptest.NewRecorder()
			if err := w.Write(rec, &Conv{Stream: true}, a); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := Assemble(name, rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s: assembling: %v\n%q", name, err, rec.Body.Bytes())
			}
			var gotText string
			switch name {
			case "anthropic":
				for _, b := range gjson.GetBytes(got, "content").Array() {
					if b.Get("type").String() == "text" {
						gotText = b.Get("text").String()
					}
				}
			case "openai-responses":
				gotText = gjson.GetBytes(got, `output.#(type=="message").content.0.text`).String()
			case "openai-chat":
				gotText = gjson.GetBytes(got, "choices.0.message.content").String()
			case "gemini":
				for _, p := range gjson.GetBytes(got, "candidates.0.content.parts").Array() {
					if !p.Get("thought").Bool() && p.Get("text").Exists() {
						gotText = p.Get("text").String()
					}
				}
			}
			if gotText != text {
				t.Errorf("%s: text %q came back as %q", name, text, gotText)
			}
		}
	})
}

// FuzzScan holds the scanner that finds a request's members and its
// conversation's elements to gjson's reading of the same JSON.
func FuzzScan(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"user","content":"a \"b\" \\"},{"role":"assistant","content":[{"t":"x]}"}]}],"stream":true}`)
	f.Add(`{ "messages" : [ 1 , "x" , [ ] , { } , null ] , "model" : "m\\\\" }`)
	f.Add(`{"messages":[],"model":{"a":["]"]}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if !gjson.Valid(doc) || !gjson.Parse(doc).IsObject() {
			t.Skip()
		}
		got := members([]byte(doc), "messages", "model")
		for _, name := range []string{"messages", "model"} {
			want := gjson.Get(doc, name)
			if g := string(got[name]); g != want.Raw {
				t.Errorf("member %s: %q, gjson %q", name, g, want.Raw)
			}
		}
		arr := gjson.Get(doc, "messages")
		if !arr.IsArray() {
			return
		}
		var want []string
		arr.ForEach(func(_, v gjson.Result) bool {
			want = append(want, v.Raw)
			return true
		})
		var gotElems []string
		for _, e := range elements(got["messages"]) {
			gotElems = append(gotElems, string(e))
		}
		if !slices.Equal(gotElems, want) {
			t.Errorf("elements %q, gjson %q", gotElems, want)
		}
	})
}
