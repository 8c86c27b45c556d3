// The cordon package against the real cordon ($CORDON_BIN) and probe
// ($CORDON_TEST_PROBE); the MCP test runs the real
// @modelcontextprotocol/server-filesystem ($CORDON_TEST_MCP_SERVER) with the
// official SDK client ($CORDON_TEST_MCP_MODULES). tests/integration/bindings.sh
// runs them as root and as an unprivileged user.
//
// What a caller relies on, with a negative control (plain child_process, or
// the SDK's own parameters) where the property is isolation's: an exposed
// file is readable, /etc/shadow is not there; OPENAI_API_KEY of the caller
// does not reach the command, HOME is the instance's; the command's status
// reaches 'exit'; a refusal is an 'error' CordonError and nothing ran; a
// missing binary throws and nothing ran; kill() and an AbortSignal take the
// whole tree; an MCP session under cordon, with the server's env passed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn as plainSpawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn, stdioServerParams, CordonError } from "../index.js";

const PROBE = process.env.CORDON_TEST_PROBE;
const MODS = process.env.CORDON_TEST_MCP_MODULES;
const SERVER = process.env.CORDON_TEST_MCP_SERVER;
assert.ok(PROBE && MODS && SERVER && process.env.CORDON_BIN,
  "set CORDON_BIN, CORDON_TEST_PROBE, CORDON_TEST_MCP_MODULES, CORDON_TEST_MCP_SERVER");

function layout() {
  const dir = mkdtempSync(path.join(tmpdir(), "cordon-node-test-"));
  const l = { dir, home: path.join(dir, "home"), ws: path.join(dir, "ws"), data: path.join(dir, "data") };
  for (const d of [l.home, l.ws, l.data]) mkdirSync(d);
  l.exposed = path.join(l.data, "exposed.txt");
  writeFileSync(l.exposed, "exposed content\n");
  l.marker = path.join(l.ws, "ran");
  l.cordon = { home: l.home, workspace: l.ws, expose: [{ source: l.data, mode: "ro" }] };
  return l;
}
const T = { timeout: 60000 }; // a hang fails the test
const cleanup = (l) => rmSync(l.dir, { recursive: true, force: true });

// the child's stdout, exit code and 'error' (if any) once it has closed
function collect(child) {
  return new Promise((resolve) => {
    let out = "", error = null, code = null;
    child.stdout?.on("data", (d) => (out += d));
    child.on("error", (e) => (error = e));
    child.on("exit", (c) => (code = c));
    child.on("close", () => resolve({ out, code, error }));
  });
}
const run = (l, command, args, options = {}) =>
  collect(spawn(command, args, { cwd: l.ws, stdio: ["ignore", "pipe", "inherit"], cordon: l.cordon, ...options }));

function processes(...argv) {
  const want = argv.join("\0") + "\0";
  return readdirSync("/proc").filter((n) => /^\d+$/.test(n)).filter((n) => {
    try { return readFileSync(`/proc/${n}/cmdline`, "latin1") === want; } catch { return false; }
  }).map(Number);
}
async function eventually(cond, ms = 5000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (cond()) return true;
  return cond();
}

test("the probe reads the exposed file, not /etc/shadow", T, async () => {
  const l = layout();
  if (process.getuid() === 0) {
    const control = await collect(plainSpawn(PROBE, ["read", "/etc/shadow"], { stdio: ["ignore", "pipe", "inherit"] }));
    assert.equal(control.code, 0, "control: unsandboxed root reads /etc/shadow");
  }
  assert.deepEqual(await run(l, PROBE, ["read", l.exposed]), { out: "exposed content\n", code: 0, error: null });
  assert.equal((await run(l, PROBE, ["read", "/etc/shadow"])).out, "ENOENT\n");
  // the config (fd 3) and the report (fd 4) stay outside: nothing to read or forge
  const control = await collect(plainSpawn(PROBE, ["fds"], { stdio: ["ignore", "pipe", "inherit", "ignore", 0] }));
  assert.match(control.out, /^4\n/, "control: an inherited descriptor is seen");
  assert.deepEqual(await run(l, PROBE, ["fds"]), { out: "", code: 0, error: null });
  cleanup(l);
});

test("the caller's OPENAI_API_KEY stays out, HOME is the instance's", T, async () => {
  const l = layout();
  const show = ["-c", 'echo "key=${OPENAI_API_KEY-unset} home=$HOME"'];
  const env = { ...process.env, OPENAI_API_KEY: "sk-from-the-caller" };
  const control = await collect(plainSpawn("/bin/sh", show, { env, stdio: ["ignore", "pipe", "inherit"] }));
  assert.match(control.out, /key=sk-from-the-caller/, "control: unsandboxed, the key is seen");
  const home = path.join(l.home, "runtime-user-env", "home");
  assert.equal((await run(l, "/bin/sh", show, { env })).out, `key=unset home=${home}\n`);
  process.env.OPENAI_API_KEY = "sk-from-the-process";
  try {
    assert.match((await run(l, "/bin/sh", show)).out, /^key=unset /);
    const passed = await run(l, "/bin/sh", show, { cordon: { ...l.cordon, passEnv: ["OPENAI_API_KEY"] } });
    assert.match(passed.out, /^key=sk-from-the-process /, "one variable on purpose");
  } finally {
    delete process.env.OPENAI_API_KEY;
  }
  cleanup(l);
});

test("the exit status reaches the caller", T, async () => {
  const l = layout();
  for (const [script, want] of [["exit 0", 0], ["exit 7", 7], ["exit 125", 125], ["kill -TERM $$", 143]]) {
    const r = await run(l, "/bin/sh", ["-c", script]);
    assert.deepEqual([r.code, r.error], [want, null], script);
  }
  assert.equal((await run(l, "echo", ["through", "a shell"], { shell: true })).out, "through a shell\n");
  cleanup(l);
});

test("a refusal is an 'error' event with a CordonError, and nothing ran", T, async () => {
  const l = layout();
  let r = await run(l, "/bin/sh", ["-c", `touch ${l.marker}`], { cwd: "/tmp", stdio: ["ignore", "pipe", "ignore"] });
  assert.ok(r.error instanceof CordonError, String(r.error));
  assert.equal(r.error.code, "CORDON_REFUSED");
  assert.match(r.error.message, /working directory/);
  assert.equal(r.error.record.error.code, 125);
  assert.equal(r.code, 125);
  r = await run(l, "/bin/sh", ["-c", `touch ${l.marker}`], { cordon: { ...l.cordon, network: "bogus" }, stdio: ["ignore", "pipe", "ignore"] });
  assert.equal(r.error?.key, "isolation.network");
  assert.equal(existsSync(l.marker), false, "the command ran");
  cleanup(l);
});

test("a missing binary throws, and nothing ran", T, () => {
  const l = layout();
  const saved = { bin: process.env.CORDON_BIN, path: process.env.PATH };
  try {
    process.env.CORDON_BIN = path.join(l.dir, "no-such-cordon");
    assert.throws(() => spawn("/bin/sh", ["-c", `touch ${l.marker}`], { cwd: l.ws, cordon: l.cordon }),
      (e) => e instanceof CordonError && e.code === "CORDON_NOT_FOUND");
    delete process.env.CORDON_BIN;
    process.env.PATH = l.data;
    assert.throws(() => spawn("/bin/sh", ["-c", `touch ${l.marker}`], { cwd: l.ws, cordon: l.cordon }), CordonError);
    assert.throws(() => stdioServerParams({ command: "/bin/sh", args: ["-c", `touch ${l.marker}`] }), CordonError);
  } finally {
    process.env.CORDON_BIN = saved.bin;
    process.env.PATH = saved.path;
  }
  assert.equal(existsSync(l.marker), false, "the command ran");
  cleanup(l);
});

test("kill() and an AbortSignal take the whole tree", T, async () => {
  const l = layout();
  const tree = async (spawner, options) => {
    const marker = String(800000 + Math.floor(Math.random() * 100000));
    const child = spawner("/bin/sh", ["-c", "sleep $0 & sleep $0; wait", marker], { cwd: l.ws, stdio: "ignore", ...options });
    const done = collect(child);
    child.on("error", () => {});
    assert.ok(await eventually(() => processes("sleep", marker).length === 2), "the tree started");
    return { child, marker, done };
  };
  let t = await tree(plainSpawn, {});
  t.child.kill("SIGKILL");
  await t.done;
  await new Promise((r) => setTimeout(r, 300));
  const left = processes("sleep", t.marker);
  for (const pid of left) process.kill(pid, "SIGKILL");
  assert.ok(left.length > 0, "control: unsandboxed, the killed shell's children live on");

  t = await tree(spawn, { cordon: l.cordon });
  t.child.kill("SIGKILL");
  await t.done;
  assert.ok(await eventually(() => processes("sleep", t.marker).length === 0), "after kill() the sandbox lives on");

  const abort = new AbortController();
  t = await tree(spawn, { cordon: l.cordon, signal: abort.signal });
  abort.abort();
  await t.done;
  assert.ok(await eventually(() => processes("sleep", t.marker).length === 0), "after abort() the sandbox lives on");
  cleanup(l);
});

test("an MCP session with the SDK client and stdioServerParams", T, async () => {
  const { Client } = await import(`${MODS}/@modelcontextprotocol/sdk/dist/esm/client/index.js`);
  const { StdioClientTransport } = await import(`${MODS}/@modelcontextprotocol/sdk/dist/esm/client/stdio.js`);
  const l = layout();
  writeFileSync(path.join(l.ws, "hello.txt"), "inside the workspace\n");
  const secrets = path.join(l.dir, "secrets");
  mkdirSync(secrets);
  writeFileSync(path.join(secrets, "secret.txt"), "host secret\n");
  // the server, as an MCP client config names it: its env holds its token
  const server = {
    command: "/bin/sh",
    args: ["-c", 'echo "token=${MCP_TEST_TOKEN-unset} openai=${OPENAI_API_KEY-unset}" >&2; exec node "$@"', "sh",
      SERVER, l.ws, secrets],
    env: { MCP_TEST_TOKEN: "tok-for-the-server" },
    cwd: l.ws,
    stderr: "pipe",
  };
  const session = async (params) => {
    const transport = new StdioClientTransport(params);
    let stderr = "";
    transport.stderr.on("data", (d) => (stderr += d));
    const client = new Client({ name: "cordon-node-test", version: "1.0.0" });
    await client.connect(transport);
    const read = async (p) => {
      const r = await client.callTool({ name: "read_text_file", arguments: { path: p } });
      return (r.content || []).map((c) => c.text || "").join("");
    };
    const result = { name: client.getServerVersion()?.name, hello: await read(path.join(l.ws, "hello.txt")),
      secret: await read(path.join(secrets, "secret.txt")), pid: transport.pid };
    await client.close();
    return { ...result, stderr };
  };
  process.env.OPENAI_API_KEY = "sk-from-the-agent";
  try {
    const control = await session(server);
    assert.equal(control.secret, "host secret\n", "control: without cordon the server reads the secret");
    const params = stdioServerParams(server, { home: l.home, workspace: l.ws, expose: [{ source: MODS, mode: "ro" }] });
    assert.ok(!params.args.some((a) => a.includes("tok-for-the-server")), "the token is not in argv");
    const file = params.args[params.args.indexOf("--config") + 1];
    assert.doesNotMatch(readFileSync(file, "utf8"), /tok-for-the-server/, "nor in the config file");
    const r = await session(params);
    assert.equal(r.name, "secure-filesystem-server");
    assert.equal(r.hello, "inside the workspace\n");
    assert.doesNotMatch(r.secret, /host secret/);
    assert.match(r.stderr, /token=tok-for-the-server openai=unset/);
    assert.ok(await eventually(() => processes("node", SERVER, l.ws, secrets).length === 0), "the server is gone after close");
  } finally {
    delete process.env.OPENAI_API_KEY;
  }
  cleanup(l);
});

test("a binary that cannot be executed: an 'error' event, and nothing ran", T, async () => {
  const l = layout();
  const saved = process.env.CORDON_BIN;
  const bin = path.join(l.dir, "cordon");
  writeFileSync(bin, "#!/nonexistent/interpreter\n", { mode: 0o755 }); // found, but execve fails
  process.env.CORDON_BIN = bin;
  try {
    const r = await collect(spawn("/bin/sh", ["-c", `touch ${l.marker}`], { cwd: l.ws, cordon: l.cordon }));
    assert.equal(r.error?.code, "ENOENT", String(r.error));
  } finally {
    process.env.CORDON_BIN = saved;
  }
  assert.equal(existsSync(l.marker), false, "the command ran");
  cleanup(l);
});
