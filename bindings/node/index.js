// Run an agent's child processes under cordon (`cordon run`).
//
// spawn(command, args, options) is child_process.spawn with the command
// inside cordon's sandbox (options.cordon says what it sees);
// stdioServerParams(server, opts) gives the parameters of an MCP SDK
// StdioClientTransport whose server runs under cordon. The binary is
// $CORDON_BIN, else `cordon` on PATH; when it is missing both throw a
// CordonError and nothing runs. The configuration reaches cordon as a JSON
// config: through an inherited descriptor for spawn, a file in a private
// (0700) temporary directory for stdioServerParams; never in argv.
import { spawn as spawnChild } from "node:child_process";
import {
  accessSync, closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync,
  writeFileSync, writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export class CordonError extends Error {
  // code: "CORDON_REFUSED" (cordon's exit status 125, the command did not
  // run) or "CORDON_NOT_FOUND"; record: cordon's report ({} if none);
  // flag, file, line, column, key: from the report.
  constructor(message, code, record) {
    super(`cordon: ${message}`);
    this.name = "CordonError";
    this.code = code;
    this.record = record || {};
    const e = this.record.error || {};
    for (const k of ["flag", "file", "line", "column", "key"]) this[k] = e[k];
  }
}

function executable(p) {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

// The absolute path of cordon: $CORDON_BIN, else `cordon` on PATH.
export function findBinary() {
  const name = process.env.CORDON_BIN || "cordon";
  const where = process.env.CORDON_BIN ? "$CORDON_BIN" : "PATH";
  const candidates = name.includes("/")
    ? [name]
    : (process.env.PATH || "").split(":").filter(Boolean).map((d) => path.join(d, name));
  const found = candidates.find(executable);
  if (!found)
    throw new CordonError(`binary not found (${where}: ${JSON.stringify(name)}): nothing runs unsandboxed`,
      "CORDON_NOT_FOUND");
  return path.resolve(found);
}

// cordon's JSON config layer for {home, workspace, expose: [{source, target?,
// mode}], network, allowNet, profiles, passEnv, envPolicy, limits}.
export function config(opts = {}) {
  const iso = { enabled: true };
  if (opts.home != null) iso.home = String(opts.home);
  if (opts.workspace != null) iso.workspace = String(opts.workspace);
  if (opts.network != null) iso.network = opts.network;
  if (opts.allowNet?.length) iso.network_allow = [...opts.allowNet];
  if (opts.profiles?.length) iso.profiles = [...opts.profiles];
  if (opts.limits) iso.limits = { ...opts.limits };
  const rules = (opts.expose || []).map((e) => {
    const { source, target, mode = "ro" } = typeof e === "string" ? { source: e } : e;
    if (mode !== "ro" && mode !== "rw") throw new TypeError(`expose ${JSON.stringify(e)}: mode must be "ro" or "rw"`);
    return target == null ? { source: String(source), mode } : { source: String(source), target: String(target), mode };
  });
  if (rules.length) iso.expose_paths = rules;
  const out = { isolation: iso };
  const env = { ...(opts.envPolicy || {}) };
  if (opts.passEnv?.length) env.pass = [...(env.pass || []), ...opts.passEnv];
  if (Object.keys(env).length) out.shell_environment_policy = env;
  return out;
}

// A descriptor of an unlinked file holding text, made in a 0700 directory.
function unlinkedFile(text) {
  const dir = mkdtempSync(path.join(tmpdir(), "cordon-node-"));
  const file = path.join(dir, "f");
  try {
    const fd = openSync(file, "wx+", 0o600);
    if (text) writeSync(fd, text, 0);
    return fd;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readRecord(fd) {
  const size = Math.min(fstatSync(fd).size, 1 << 20);
  const buf = Buffer.alloc(size);
  const n = size ? readSync(fd, buf, 0, size, 0) : 0;
  try {
    const r = JSON.parse(buf.subarray(0, n).toString("utf8"));
    return r && typeof r === "object" ? r : null;
  } catch {
    return null;
  }
}

// A report with "exit_code" and no "error" is a run that started (its 125
// is the command's); one with "error", or none, is cordon's refusal.
function refusal(record) {
  if (record && "exit_code" in record && !("error" in record)) return null;
  const message = record?.error?.message ||
    "refused to run the command (exit status 125; its message is on the command's stderr)";
  return new CordonError(message, "CORDON_REFUSED", record);
}

function stdioOf(stdio) {
  const s = Array.isArray(stdio) ? [...stdio] : [stdio, stdio, stdio];
  if (s.length > 3 || s.includes("ipc"))
    throw new TypeError("cordon: descriptors beyond stdin, stdout and stderr (and ipc) are not passed into the sandbox");
  while (s.length < 3) s.push(undefined);
  return s;
}

function commandOf(command, args, shell) {
  if (!shell) return [command, ...args];
  return [typeof shell === "string" ? shell : "/bin/sh", "-c", [command, ...args].join(" ")];
}

// child_process.spawn under cordon: options.cordon is what the sandbox
// shows (see config()), the rest are spawn's options (env is cordon's
// environment, filtered by the environment policy). A refusal of cordon's
// is an 'error' event with a CordonError, before 'exit' (code 125); the
// command's own status is 'exit' as usual (a signal N is code 128+N).
// child.kill() kills cordon, and cordon the whole sandbox.
export function spawn(command, args, options) {
  if (!Array.isArray(args)) [options, args] = [args, []];
  const { cordon: opts = {}, shell, ...rest } = options || {};
  const stdio = stdioOf(rest.stdio);
  const binary = findBinary();
  const cfg = unlinkedFile(JSON.stringify(config(opts)));
  let stats;
  let child;
  try {
    stats = unlinkedFile("");
    const argv = ["run", "--config", "/dev/fd/3", "--stats-fd", "4", "--", ...commandOf(command, args, shell)];
    child = spawnChild(binary, argv, { ...rest, stdio: [...stdio, cfg, stats] });
  } catch (e) {
    if (stats !== undefined) closeSync(stats);
    throw e;
  } finally {
    closeSync(cfg);
  }
  let open = true;
  const done = () => {
    if (!open) return null;
    open = false;
    const record = readRecord(stats);
    closeSync(stats);
    return record;
  };
  child.once("exit", (code) => {
    const record = done();
    child.cordonRecord = record;
    const err = code === 125 ? refusal(record) : null;
    if (err) child.emit("error", err);
  });
  // a spawn that failed (cordon vanished) has no pid and no 'exit'; no
  // 'error' listener of ours, which would hide a refusal from a caller
  // without one (Node throws then, as it should)
  if (child.pid === undefined) done();
  return child;
}

const serverDirs = new Set();
function removeServerDirs() {
  for (const d of serverDirs) rmSync(d, { recursive: true, force: true });
}

// The parameters of an MCP SDK StdioClientTransport ({command, args, env,
// cwd, stderr, ...}) that start the server under cordon. The variables of
// server.env are passed to the server as they are (cordon's --pass-env);
// the SDK adds its default environment (HOME, PATH, ...), which cordon's
// policy filters. The config file lives in a private directory that is
// removed when this process exits.
export function stdioServerParams(server, opts = {}) {
  const { command, args = [], env, ...rest } = server;
  const binary = findBinary();
  const passEnv = [...(opts.passEnv || []), ...Object.keys(env || {})];
  const dir = mkdtempSync(path.join(tmpdir(), "cordon-mcp-"));
  if (!serverDirs.size) process.once("exit", removeServerDirs);
  serverDirs.add(dir);
  const file = path.join(dir, "config.json");
  writeFileSync(file, JSON.stringify(config({ ...opts, passEnv })), { mode: 0o600, flag: "wx" });
  const params = { ...rest, command: binary, args: ["run", "--config", file, "--", command, ...args] };
  if (env) params.env = { ...env };
  return params;
}
