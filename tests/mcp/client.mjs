// An MCP client, as an agent runs one: the official SDK's Client over a
// StdioClientTransport that launches the server, either the command given
// after "--" or the entry NAME of the "mcpServers" object of an MCP client
// config file (the format Claude Desktop, Claude Code, Cursor, ... read):
//
//   node client.mjs [STEPS] -- COMMAND [ARGS...]
//   node client.mjs [STEPS] --config FILE --server NAME
//   STEPS: [--cwd DIR] [--read PATH]... [--write PATH=TEXT]... [--wait-for FILE]
//
// For cordon the command is `cordon run ... -- node .../dist/index.js DIR`.
// It initialises, lists the tools, runs each --read / --write through the
// server's read_text_file / write_file tools in order (--wait-for pauses
// until FILE exists, so a test can look at the processes), then closes the
// transport. One line per step on stdout, each value JSON-encoded:
//
//   server "secure-filesystem-server"
//   tools ["create_directory", ..., "read_text_file", ...]
//   read "/path" ok "content"            or   read "/path" error "message"
//   write "/path" ok "message"           or   write "/path" error "message"
//   closed
//
// Exit status 0 when every step ran (a tool error is a result, not a
// failure), 1 on a protocol failure, 2 on bad usage, 3 on a hang (30 s).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const steps = [];
let cwd, configFile, serverName;
let i = 0;
for (; i < args.length && args[i] !== "--"; i++) {
  const [flag, value] = [args[i], args[i + 1]];
  if (flag === "--cwd") cwd = value;
  else if (flag === "--config") configFile = value;
  else if (flag === "--server") serverName = value;
  else if (flag === "--wait-for") steps.push({ op: "wait", path: value });
  else if (flag === "--read") steps.push({ op: "read", path: value });
  else if (flag === "--write") {
    const eq = value.indexOf("=");
    steps.push({ op: "write", path: value.slice(0, eq), content: value.slice(eq + 1) });
  } else {
    console.error(`client.mjs: unknown option ${flag}`);
    process.exit(2);
  }
  i++;
}
let server = { command: args[i + 1], args: args.slice(i + 2), cwd };
if (configFile) {
  const entry = JSON.parse(readFileSync(configFile, "utf8")).mcpServers?.[serverName];
  if (!entry) {
    console.error(`client.mjs: no mcpServers.${serverName} in ${configFile}`);
    process.exit(2);
  }
  server = { command: entry.command, args: entry.args || [], cwd: entry.cwd || cwd, env: entry.env };
}
if (!server.command) {
  console.error("usage: node client.mjs [STEPS] (-- COMMAND [ARGS...] | --config FILE --server NAME)");
  process.exit(2);
}

const hang = setTimeout(() => {
  console.log("hang");
  process.exit(3);
}, 30000);

const j = JSON.stringify;
const text = (result) => (result.content || []).map((c) => c.text || "").join("");

const transport = new StdioClientTransport({ ...server, stderr: "inherit" });
const client = new Client({ name: "cordon-mcp-test", version: "1.0.0" });
try {
  await client.connect(transport);
  console.log(`server ${j(client.getServerVersion()?.name)}`);
  const { tools } = await client.listTools();
  console.log(`tools ${j(tools.map((t) => t.name).sort())}`);
  for (const s of steps) {
    if (s.op === "wait") {
      while (!existsSync(s.path)) await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    const result =
      s.op === "read"
        ? await client.callTool({ name: "read_text_file", arguments: { path: s.path } })
        : await client.callTool({ name: "write_file", arguments: { path: s.path, content: s.content } });
    console.log(`${s.op} ${j(s.path)} ${result.isError ? "error" : "ok"} ${j(text(result))}`);
  }
  await client.close();
  console.log("closed");
  clearTimeout(hang);
} catch (e) {
  console.log(`failed ${j(String(e && e.stack ? e.stack : e))}`);
  process.exit(1);
}
