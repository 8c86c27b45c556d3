// The cordon package against the real cordon ($CORDON_BIN, else `cordon` on
// PATH); the MCP tests run the real @modelcontextprotocol/server-filesystem
// ($CORDON_TEST_MCP_SERVER) with the official SDK client
// ($CORDON_TEST_MCP_MODULES): tests/mcp (skipped without them, a failure
// under CI=true). tests/integration/bindings.sh runs them with a cordon on
// PATH, as root and as an unprivileged user.
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
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn, stdioServerParams, findBinary, CordonError, STOP_GRACE_MS } from "../index.js";

const MODS = process.env.CORDON_TEST_MCP_MODULES;
const SERVER = process.env.CORDON_TEST_MCP_SERVER;
findBinary(); // $CORDON_BIN, else PATH
const MCP = { ...T0(), skip: !(MODS && SERVER) && process.env.CI !== "true" && "set CORDON_TEST_MCP_MODULES and _SERVER" };
function T0() { return { timeout: 60000 }; }
const EXISTS = ["-c", 'if [ -e "$0" ]; then echo present; else echo absent; fi'];
const FDS = ["-c", "for n in 3 4; do [ -e /dev/fd/$n ] && echo $n; done; true"];
const PLANT = `git init -q new && printf '#!/bin/sh\\necho ran\\n' >new/.git/hooks/post-checkout &&
  chmod +x new/.git/hooks/post-checkout && trap '' TERM && exec sleep 60`;
// (the planted hook is live, something was set aside)
function quarantined(gitDir) {
  let live = false;
  try { accessSync(path.join(gitDir, "hooks", "post-checkout"), constants.X_OK); live = true; } catch {}
  return [live, readdirSync(gitDir).some((n) => n.includes("cordon-quarantine"))];
}

// process.env[name] = value, or deleted when value is undefined
function setEnv(name, value) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

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

test("the exposed file is there, /etc/shadow is not", T, async () => {
  const l = layout();
  const control = await collect(plainSpawn("/bin/sh", [...EXISTS, "/etc/shadow"], { stdio: ["ignore", "pipe", "inherit"] }));
  assert.equal(control.out, "present\n", "control: unsandboxed, /etc/shadow is there");
  assert.deepEqual(await run(l, "/bin/cat", [l.exposed]), { out: "exposed content\n", code: 0, error: null });
  assert.equal((await run(l, "/bin/sh", [...EXISTS, "/etc/shadow"])).out, "absent\n");
  // the config (fd 3) and the report (fd 4) stay outside: nothing to read or forge
  const control2 = await collect(plainSpawn("/bin/sh", FDS, { stdio: ["ignore", "pipe", "inherit", "ignore", 0] }));
  assert.match(control2.out, /^4\n/, "control: an inherited descriptor is seen");
  assert.deepEqual(await run(l, "/bin/sh", FDS), { out: "", code: 0, error: null });
  cleanup(l);
});

test("cordonDenied names what was refused: with explain, the hidden read and its --expose", T, async () => {
  const l = layout();
  const hidden = path.join(l.dir, "hidden.txt");
  writeFileSync(hidden, "hidden\n");
  const control = await collect(plainSpawn("/bin/cat", [hidden], { stdio: ["ignore", "pipe", "inherit"] }));
  assert.equal(control.out, "hidden\n", "control: unsandboxed, the file is readable");
  for (const explain of [false, true]) {
    const child = spawn("/bin/cat", [hidden], { cwd: l.ws, stdio: ["ignore", "pipe", "ignore"], cordon: { ...l.cordon, explain } });
    const r = await collect(child);
    assert.notEqual(r.code, 0, "refused either way");
    const found = child.cordonDenied.some((d) => d.kind === "read" && d.target === hidden &&
      d.suggestion === `--expose ${hidden}` && d.host_has === true && d.seen_by === "explain");
    assert.equal(found, explain, JSON.stringify(child.cordonDenied));
  }
  cleanup(l);
});

test("the caller's OPENAI_API_KEY stays out, HOME is the instance's", T, async () => {
  const l = layout();
  const show = ["-c", 'echo "key=${OPENAI_API_KEY-unset} home=$HOME"'];
  process.env.OPENAI_API_KEY = "sk-from-the-process";
  try {
    const env = { ...process.env, FOO: "1" };
    const control = await collect(plainSpawn("/bin/sh", show, { env, stdio: ["ignore", "pipe", "inherit"] }));
    assert.match(control.out, /key=sk-from-the-process/, "control: unsandboxed, the key is seen");
    const home = path.join(l.home, "runtime-user-env", "home");
    assert.equal((await run(l, "/bin/sh", show, { env })).out, `key=unset home=${home}\n`);
    assert.match((await run(l, "/bin/sh", show)).out, /^key=unset /);
    const passed = await run(l, "/bin/sh", show, { cordon: { ...l.cordon, passEnv: ["OPENAI_API_KEY"] } });
    assert.match(passed.out, /^key=sk-from-the-process /, "one variable on purpose");
  } finally {
    delete process.env.OPENAI_API_KEY;
  }
  cleanup(l);
});

test("env is the command's environment: what the caller adds reaches it", T, async () => {
  const l = layout();
  const show = ["-c", 'echo "foo=${FOO-unset} key=${OPENAI_API_KEY-unset} host=${SOME_HOST_VAR-unset} tok=${MY_TOKEN-unset}"'];
  Object.assign(process.env, { OPENAI_API_KEY: "sk-from-the-process", SOME_HOST_VAR: "host" });
  try {
    const r = await run(l, "/bin/sh", show, { env: { ...process.env, FOO: "1", MY_TOKEN: "for-this-command" } });
    assert.equal(r.out, "foo=1 key=unset host=unset tok=for-this-command\n");
  } finally {
    delete process.env.OPENAI_API_KEY;
    delete process.env.SOME_HOST_VAR;
  }
  cleanup(l);
});

test("a refusal names the option, with no position", T, async () => {
  const l = layout();
  const missing = path.join(l.dir, "missing");
  const refused = async (cordon) => {
    const r = await run(l, "/bin/sh", ["-c", `touch ${l.marker}`], { cordon: { ...l.cordon, ...cordon }, stdio: ["ignore", "pipe", "ignore"] });
    assert.ok(r.error instanceof CordonError, String(r.error));
    assert.doesNotMatch(r.error.message, /\/dev\/fd/);
    return r.error;
  };
  let e = await refused({ expose: [l.data, missing] });
  assert.equal(e.option, "expose[1].source");
  assert.equal(e.key, "isolation.expose_paths[1].source");
  assert.ok(e.message.startsWith(`cordon: expose[1].source: does not exist: ${missing}`), e.message);
  assert.equal((await refused({ network: "bogus" })).option, "network");
  assert.ok((await refused({ limits: { pids: -1 } })).message.startsWith("cordon: limits.pids: "));
  assert.ok((await refused({ workspace: "/etc" })).message.startsWith("cordon: workspace: "));
  assert.ok((await refused({ envPolicy: { inherit: "some" } })).message.startsWith("cordon: envPolicy.inherit: "));
  assert.equal(existsSync(l.marker), false, "the command ran");
  // stdioServerParams: checked before any connection
  assert.throws(() => stdioServerParams({ command: "/bin/true", cwd: l.ws }, { ...l.cordon, expose: [missing] }),
    (err) => err instanceof CordonError && err.option === "expose[0].source" && /^cordon: expose\[0\]\.source: does not exist/.test(err.message));
  cleanup(l);
});

test("kill() and the timeout option leave cordon's git check done", T, async () => {
  for (const how of ["kill", "timeout"]) {
    const l = layout();
    const options = { cwd: l.ws, stdio: "ignore", cordon: l.cordon };
    // long enough for PLANT to plant on a loaded machine (under ASan)
    if (how === "timeout") options.timeout = 5000;
    const t0 = Date.now();
    const child = spawn("/bin/sh", ["-c", PLANT], options);
    const done = collect(child);
    if (how === "kill") {
      assert.ok(await eventually(() => existsSync(path.join(l.ws, "new", ".git", "hooks", "post-checkout"))));
      await new Promise((r) => setTimeout(r, 300));
      child.kill();
    }
    await done;
    assert.ok(Date.now() - t0 < 5000 + STOP_GRACE_MS + 2000, `${how}: the stop took ${Date.now() - t0} ms`);
    assert.deepEqual(quarantined(path.join(l.ws, "new", ".git")), [false, true], `${how}: the hook was set aside`);
    cleanup(l);
  }
});

test("the agent's death ends the sandbox (dieWithParent)", T, async () => {
  const l = layout();
  const agent = `import { spawn } from ${JSON.stringify(new URL("../index.js", import.meta.url).href)};
    const [mark, home, ws, die] = process.argv.slice(1);
    spawn("/bin/sh", ["-c", "trap '' TERM; sleep $0 & exec sleep $0", mark], { cwd: ws, stdio: "ignore",
      cordon: { home, workspace: ws, dieWithParent: die === "1" } });
    setTimeout(() => {}, 60000);`;
  for (const die of [false, true]) {
    const mark = String(800000 + Math.floor(Math.random() * 100000));
    const a = plainSpawn(process.execPath, ["--input-type=module", "-e", agent, mark, l.home, l.ws, die ? "1" : "0"], { stdio: "ignore" });
    assert.ok(await eventually(() => processes("sleep", mark).length === 2, 10000), "the sandbox started");
    a.kill("SIGKILL");
    if (!die) {
      await new Promise((r) => setTimeout(r, 1000));
      const left = processes("sleep", mark);
      for (const pid of left) process.kill(pid, "SIGKILL");
      assert.equal(left.length, 2, "control: dieWithParent false, the sandbox outlives the agent");
    } else {
      assert.ok(await eventually(() => processes("sleep", mark).length === 0, 10000), "the SIGKILLed agent's sandbox lives on");
    }
  }
  cleanup(l);
});

test("no option runs a command unsandboxed: a layer's enabled: false is overridden", T, async () => {
  const l = layout();
  const profiles = path.join(l.dir, "profiles");
  mkdirSync(profiles);
  writeFileSync(path.join(profiles, "off.json"), '{"isolation": {"enabled": false}}');
  process.env.CORDON_PROFILE_PATH = profiles;
  try {
    const control = await collect(plainSpawn(findBinary(), ["run", "--profile", "off", "--", "/bin/sh", ...EXISTS, "/etc/shadow"],
      { cwd: l.ws, stdio: ["ignore", "pipe", "ignore"] }));
    assert.equal(control.out, "present\n", "control: the profile turns isolation off in cordon");
    const r = await run(l, "/bin/sh", [...EXISTS, "/etc/shadow"], { cordon: { ...l.cordon, profiles: ["off"] } });
    assert.deepEqual([r.code, r.out], [0, "absent\n"]);
  } finally {
    delete process.env.CORDON_PROFILE_PATH;
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
    setEnv("CORDON_BIN", saved.bin);
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

test("an MCP session with the SDK client and stdioServerParams", MCP, async () => {
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
    setEnv("CORDON_BIN", saved);
  }
  assert.equal(existsSync(l.marker), false, "the command ran");
  cleanup(l);
});

test("a live grant lets a waiting client through, a removal shuts it out (allowNet, removeNet)", T, async () => {
  const http = await import("node:http");
  const server = http.createServer((q, r) => r.end("hi")).listen(0, "127.0.0.2");
  await new Promise((r) => server.once("listening", r));
  const url = `http://127.0.0.2:${server.address().port}/`;
  const entry = `127.0.0.2:${server.address().port}`;
  const l = layout();
  const child = spawn("/bin/sh", ["-c", 'for i in 1 2 3; do curl -s -o /dev/null -w "%{http_code}\\n" "$0"; read x; done', url],
    { cwd: l.ws, stdio: ["pipe", "pipe", "ignore"], cordon: { ...l.cordon, allowNet: ["example.org"] } });
  const lines = [];
  let more;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => { lines.push(...d.split("\n").filter(Boolean)); more?.(); });
  const line = async (n) => { while (lines.length < n) await new Promise((r) => (more = r)); return lines[n - 1]; };
  const got = [await line(1)];
  assert.equal(await child.allowNet(entry), entry);
  child.stdin.write("\n");
  got.push(await line(2));
  await child.removeNet(entry);
  await assert.rejects(child.removeNet("not-there.example"), CordonError);
  child.stdin.write("\n");
  got.push(await line(3));
  child.stdin.end("\n");
  await new Promise((r) => child.on("close", r));
  server.close();
  assert.deepEqual(got, ["403", "200", "403"], "denied, granted, removed: without a restart");
  assert.deepEqual(child.cordonRecord.network_grants.map((g) => g.op), ["allow", "remove"]);
  const plain = spawn("/bin/true", [], { cwd: l.ws, stdio: "ignore", cordon: l.cordon });
  await assert.rejects(plain.allowNet("example.org"), CordonError);
  await new Promise((r) => plain.on("close", r));
  cleanup(l);
});
