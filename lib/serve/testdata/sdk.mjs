// Drives the vendors' own SDKs against a ctx-serve at $BASE (the session
// of serve_test.go), printing one JSON line per case for sdk_test.go.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";

const base = process.env.BASE;
const out = (name, v) => console.log(JSON.stringify({ name, ...v }));
const prompt = "Create hello.txt.";
const fail = async (name, f) => {
  try {
    await f();
    out(name, { error: null });
  } catch (e) {
    out(name, { error: String(e.status ?? e.code ?? e.message) });
  }
};

const anthropic = new Anthropic({ baseURL: base, apiKey: "k", maxRetries: 0 });
const msg = { model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: prompt }] };
{
  const m = await anthropic.messages.create(msg);
  out("anthropic", { content: m.content, stop: m.stop_reason, usage: m.usage, id: m.id });
  const s = anthropic.messages.stream(msg);
  const f = await s.finalMessage();
  out("anthropic-stream", { content: f.content, stop: f.stop_reason, usage: f.usage, id: f.id });
  await fail("anthropic-miss", () => anthropic.messages.create({ ...msg, messages: [{ role: "user", content: "Something else." }] }));
}

const openai = new OpenAI({ baseURL: base + "/v1", apiKey: "k", maxRetries: 0 });
{
  const input = [{ role: "user", content: [{ type: "input_text", text: prompt }] }];
  const r = await openai.responses.create({ model: "m", input });
  out("responses", { output: r.output, usage: r.usage, text: r.output_text });
  const st = openai.responses.stream({ model: "m", input });
  const fr = await st.finalResponse();
  out("responses-stream", { output: fr.output, usage: fr.usage, text: fr.output_text });
  const c = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: prompt }] });
  out("chat", { message: c.choices[0].message, finish: c.choices[0].finish_reason, usage: c.usage });
  const cs = openai.chat.completions.stream({ model: "m", messages: [{ role: "user", content: prompt }], stream_options: { include_usage: true } });
  const fc = await cs.finalChatCompletion();
  out("chat-stream", { message: fc.choices[0].message, finish: fc.choices[0].finish_reason, usage: fc.usage });
  await fail("chat-miss", () => openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Something else." }] }));
}

const genai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: base } });
{
  const contents = [{ role: "user", parts: [{ text: prompt }] }];
  const g = await genai.models.generateContent({ model: "m", contents });
  out("gemini", { parts: g.candidates[0].content.parts, usage: g.usageMetadata, calls: g.functionCalls });
  const parts = [];
  for await (const ch of await genai.models.generateContentStream({ model: "m", contents })) {
    parts.push(...(ch.candidates?.[0]?.content?.parts ?? []));
  }
  out("gemini-stream", { parts });
  await fail("gemini-miss", () => genai.models.generateContent({ model: "m", contents: [{ role: "user", parts: [{ text: "Something else." }] }] }));
}
