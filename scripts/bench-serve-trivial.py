#!/usr/bin/env python3
"""For scripts/bench-serve.sh: a session of N turns, each running `echo K`
with Claude Code's Bash tool.

  bench-serve-trivial.py log N    the execution log, for ctx-pack
  bench-serve-trivial.py serve N  a trivial Anthropic endpoint that gives
                                  the same N answers by count, whatever
                                  is asked (prints its port, then serves)
"""
import http.server, json, sys

def turns(n):
    for k in range(n - 1):
        yield {"text": "Step %d." % k, "call": {"id": "toolu_bench%04d" % k, "name": "Bash",
               "input": {"command": "echo %d" % k, "description": "Print %d" % k}}, "output": "%d" % k}
    yield {"text": "Counted.", "call": None, "output": None}

def log(n):
    steps = []
    for t in turns(n):
        steps.append({"index": len(steps), "type": "llm_call", "output": t["text"], "deterministic": False})
        if t["call"]:
            steps.append({"index": len(steps), "type": "tool_call", "tool": "Bash", "parameters": t["call"]["input"],
                          "output": t["output"], "deterministic": False, "metadata": {"call_id": t["call"]["id"]}})
    return {"created": "2026-11-01T10:00:00Z", "model": {"identifier": "claude-opus-5-5"},
            "prompts": [{"role": "user", "content": "Count to fifty with echo."}], "steps": steps,
            "metadata": {"session": {"cwd": "/home/dev/proj"}}}

def serve(n):
    answers = list(turns(n))
    count = [0]
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            t = answers[min(count[0], len(answers) - 1)]
            count[0] += 1
            content = [{"type": "text", "text": t["text"]}]
            if t["call"]:
                content.append({"type": "tool_use", "id": t["call"]["id"], "name": "Bash", "input": t["call"]["input"]})
            ev = [("message_start", {"type": "message_start", "message": {"id": "msg_%d" % count[0], "type": "message", "role": "assistant",
                   "model": "claude-opus-5-5", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 0}}})]
            for i, b in enumerate(content):
                if b["type"] == "text":
                    ev += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})]
                else:
                    ev += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})]
                ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
            ev += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if t["call"] else "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                   ("message_stop", {"type": "message_stop"})]
            out = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in ev).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()

if __name__ == "__main__":
    what, n = sys.argv[1], int(sys.argv[2])
    if what == "log":
        json.dump(log(n), sys.stdout)
    else:
        serve(n)
