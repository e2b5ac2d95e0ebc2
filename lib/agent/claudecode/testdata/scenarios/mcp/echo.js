// A tiny MCP server over stdio (JSON-RPC, one message a line) with one
// tool, "echo", which answers its text upper-cased: what the Claude Code
// scenarios call as an MCP tool.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return; // a notification
  switch (m.method) {
    case "initialize":
      send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1.0.0" } } });
      break;
    case "tools/list":
      send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "echo", description: "Echo a text back, upper-cased.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
      break;
    case "tools/call":
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: String(m.params.arguments.text).toUpperCase() }] } });
      break;
    default:
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found" } });
  }
});
