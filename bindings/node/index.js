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
import { execFileSync, spawn as spawnChild } from "node:child_process";
import {
  accessSync, closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync,
  writeFileSync, writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// How long a stopped command (kill(), the timeout and signal options) is
// given, after cordon gets SIGTERM, to end the sandbox and finish its
// post-run checks (the git check), before cordon is killed (ms). cordon
// kills what still runs in the sandbox limits.kill_after_s (default 2 s)
// after the SIGTERM.
export const STOP_GRACE_MS = 5000;

export class CordonError extends Error {
  // code: "CORDON_REFUSED" (cordon's exit status 125, the command did not
  // run) or "CORDON_NOT_FOUND"; option: this package's option at fault
  // ("expose[0].source"), named by the message too, for an error in the
  // config it generated; record: cordon's report ({} if none); flag, file,
  // line, column, key: cordon's own, from the report.
  constructor(message, code, record, option) {
    super(`cordon: ${message}`);
    this.name = "CordonError";
    this.code = code;
    this.record = record || {};
    this.option = option;
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
// mode}], network, allowNet, profiles, backend, passEnv, envPolicy, limits,
// dieWithParent, explain}, and the option behind each of its keys (configNames).
function build(opts = {}, envNames = []) {
  const names = {};
  const iso = { enabled: true };
  for (const k of ["home", "workspace"]) if (opts[k] != null) iso[k] = String(opts[k]);
  for (const k of ["network", "backend"]) if (opts[k] != null) iso[k] = opts[k];
  for (const k of ["home", "workspace", "network", "backend"]) names[`isolation.${k}`] = k;
  if (opts.allowNet?.length) iso.network_allow = [...opts.allowNet];
  names["isolation.network_allow"] = "allowNet";
  if (opts.profiles?.length) iso.profiles = [...opts.profiles];
  names["isolation.profiles"] = "profiles";
  if (opts.limits) iso.limits = { ...opts.limits };
  names["isolation.limits"] = "limits";
  iso.die_with_parent = opts.dieWithParent ?? process.platform === "linux";
  names["isolation.die_with_parent"] = "dieWithParent";
  if (opts.explain) iso.explain = true;
  names["isolation.explain"] = "explain";
  const rules = (opts.expose || []).map((e, i) => {
    const { source, target, mode = "ro" } = typeof e === "string" ? { source: e } : e;
    if (mode !== "ro" && mode !== "rw") throw new TypeError(`expose[${i}] ${JSON.stringify(e)}: mode must be "ro" or "rw"`);
    names[`isolation.expose_paths[${i}]`] = `expose[${i}]`;
    return target == null ? { source: String(source), mode } : { source: String(source), target: String(target), mode };
  });
  if (rules.length) iso.expose_paths = rules;
  const out = { isolation: iso };
  const env = { ...(opts.envPolicy || {}) };
  for (const k of Object.keys(env)) names[`shell_environment_policy.${k}`] = `envPolicy.${k}`;
  const given = [...(env.pass || [])], passEnv = [...(opts.passEnv || [])];
  const added = envNames.filter((n) => !given.includes(n) && !passEnv.includes(n));
  passEnv.forEach((_, i) => (names[`shell_environment_policy.pass[${given.length + i}]`] = `passEnv[${i}]`));
  added.forEach((n, i) => (names[`shell_environment_policy.pass[${given.length + passEnv.length + i}]`] = `env.${n}`));
  const pass = [...given, ...passEnv, ...added];
  if (pass.length) env.pass = pass;
  if (Object.keys(env).length) out.shell_environment_policy = env;
  return { data: out, names, dieWithParent: iso.die_with_parent };
}

export function config(opts = {}) {
  return build(opts).data;
}

// This package's name for cordon's key, or undefined.
function optionOf(names, key) {
  let best;
  for (const k of Object.keys(names))
    if ((key === k || key.startsWith(k + ".") || key.startsWith(k + "[")) && (!best || k.length > best.length)) best = k;
  return best && names[best] + key.slice(best.length);
}

// cordon's refusal in this package's terms: an error in the generated config
// (FILE) names the option ("expose[0].source: ..."), not a position in JSON
// the caller never wrote.
function refusalOf(record, names, file) {
  const e = record?.error || {};
  let message = e.message || "refused to run the command (exit status 125; its message is on the command's stderr)";
  let key = e.key, reason = message;
  if (message.startsWith(file + ":")) {
    const parts = message.slice(file.length + 1).split(": ");
    if (parts.length >= 3 && parts[0].split(":").length === 2) [key, reason] = [parts[1], parts.slice(2).join(": ")];
  }
  let option = key && (e.file == null || e.file === file) ? optionOf(names, key) : undefined;
  if (!option && e.flag === "--pass-env") option = "env";
  if (option) message = `${option}: ${reason}`;
  return new CordonError(message, "CORDON_REFUSED", record, option);
}

// The names of env that process.env lacks or has with another value.
function addedEnv(env) {
  if (!env) return [];
  return Object.keys(env).filter((n) => n && !n.includes("=") && process.env[n] !== String(env[n]));
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
  const built = build(opts, addedEnv(rest.env));
  const cfg = unlinkedFile(JSON.stringify(built.data));
  let stats;
  let child;
  try {
    stats = unlinkedFile("");
    const argv = ["run", "--config", "/dev/fd/3", "--stats-fd", "4"];
    if (built.dieWithParent) argv.push(`--die-with-parent=${process.pid}`);
    // live grants (child.allowNet, child.removeNet): a socket to cordon's
    // --control-fd, where the network is the proxy
    const control = Boolean(opts.allowNet?.length || opts.network === "proxy");
    if (control) argv.push("--control-fd", "5");
    argv.push("--", ...commandOf(command, args, shell));
    child = spawnChild(binary, argv, { ...rest, stdio: [...stdio, cfg, stats, ...(control ? ["pipe"] : [])] });
    stopGracefully(child);
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
    child.cordonDenied = Array.isArray(record?.denied) ? record.denied : [];
    const started = record && "exit_code" in record && !("error" in record);
    const err = code === 125 && !started ? refusalOf(record, built.names, "/dev/fd/3") : null;
    if (err) child.emit("error", err);
  });
  liveGrants(child, child.stdio[5]);
  // a spawn that failed (cordon vanished) has no pid and no 'exit'; no
  // 'error' listener of ours, which would hide a refusal from a caller
  // without one (Node throws then, as it should)
  if (child.pid === undefined) done();
  return child;
}

// child.allowNet(entry) and child.removeNet(entry): one JSON line each on
// cordon's --control-fd, answered in order with one line; a Promise of the
// entry, rejected with a CordonError when cordon refuses the change (or the
// network is not the proxy, or the sandbox ended).
function liveGrants(child, sock) {
  const waiting = [];
  let buf = "";
  const settle = (reply) => {
    const w = waiting.shift();
    if (!w) return;
    if (reply.ok) w.resolve(reply[w.op]);
    else w.reject(new CordonError(`${w.op}: ${reply.error}`, "CORDON_REFUSED", {}));
  };
  if (sock) {
    sock.setEncoding("utf8");
    sock.on("data", (d) => {
      buf += d;
      for (let nl; (nl = buf.indexOf("\n")) >= 0; buf = buf.slice(nl + 1)) {
        let reply;
        try { reply = JSON.parse(buf.slice(0, nl)); } catch { reply = { ok: false, error: "cordon's answer is not JSON" }; }
        settle(reply);
      }
    });
    const ended = () => { while (waiting.length) settle({ ok: false, error: "the sandbox has ended" }); };
    sock.on("close", ended);
    sock.on("error", ended);
  }
  const change = (op, entry) => new Promise((resolve, reject) => {
    if (!sock || sock.destroyed)
      return reject(new CordonError(`${op}: ${sock ? "the sandbox has ended" : "the network is not \"proxy\": start the command with allowNet (or network \"proxy\") to change its allowlist"}`, "CORDON_REFUSED", {}));
    waiting.push({ op, resolve, reject });
    sock.write(JSON.stringify({ [op]: String(entry) }) + "\n");
  });
  child.allowNet = (entry) => change("allow_net", entry);
  child.removeNet = (entry) => change("remove_net", entry);
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
  const built = build(opts, Object.keys(env || {}));
  const dir = mkdtempSync(path.join(tmpdir(), "cordon-mcp-"));
  if (!serverDirs.size) process.once("exit", removeServerDirs);
  serverDirs.add(dir);
  const file = path.join(dir, "config.json");
  writeFileSync(file, JSON.stringify(built.data), { mode: 0o600, flag: "wx" });
  checkWithPlan(binary, file, built.names, [command, ...args], rest.cwd, env);
  const flags = ["--config", file];
  if (built.dieWithParent) flags.push(`--die-with-parent=${process.pid}`);
  const params = { ...rest, command: binary, args: ["run", ...flags, "--", command, ...args] };
  if (env) params.env = { ...env };
  return params;
}

// cordon plan for the server as it will start: a refusal throws, in this
// package's terms, before any connection.
function checkWithPlan(binary, file, names, argv, cwd, env) {
  const stats = unlinkedFile("");
  try {
    execFileSync(binary, ["plan", "--config", file, "--stats-fd", "3", "--", ...argv],
      { cwd, env: { ...process.env, ...(env || {}) }, stdio: ["ignore", "ignore", "pipe", stats] });
  } catch (e) {
    if (e.status == null) throw e;
    const record = readRecord(stats);
    const err = refusalOf(record, names, file);
    if (!record && e.stderr?.length) err.message = `cordon: ${String(e.stderr).trim().split("\n").pop().replace(/^cordon: /, "")}`;
    throw err;
  } finally {
    closeSync(stats);
  }
}

// child.kill() (any of SIGTERM, SIGKILL or none, also from the timeout and
// signal options) stops cordon gracefully: SIGTERM, then SIGKILL if it
// still runs STOP_GRACE_MS later. Other signals go to the command.
function stopGracefully(child) {
  const kill = child.kill.bind(child);
  child.kill = (sig = "SIGTERM") => {
    if (![undefined, "SIGTERM", "SIGKILL", 15, 9].includes(sig)) return kill(sig);
    const sent = kill("SIGTERM");
    if (sent) {
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) kill("SIGKILL");
      }, STOP_GRACE_MS);
      timer.unref();
      child.once("exit", () => clearTimeout(timer));
    }
    return sent;
  };
}
