// Types of the cordon package (index.js).
import type { ChildProcess, SpawnOptions } from "node:child_process";

/** An exposure: a path (read-only at the same place) or a rule. */
export type Expose = string | { source: string; target?: string; mode?: "ro" | "rw" };

/** cordon's isolation.limits; 0 = none. Sizes may be strings ("512M"). */
export interface Limits {
  wall_time_s?: number;
  cpu_time_s?: number;
  memory_bytes?: number | string;
  pids?: number;
  open_files?: number;
  file_size_bytes?: number | string;
  tmp_size_bytes?: number | string;
  cpu_quota?: number;
  kill_after_s?: number;
}

/** cordon's shell_environment_policy. */
export interface EnvPolicy {
  inherit?: "core" | "all" | "none";
  ignore_default_excludes?: boolean;
  exclude?: string[];
  set?: Record<string, string>;
  include_only?: string[];
  pass?: string[];
}

/** What the sandbox shows (the same options as the Python package's). */
export interface CordonOptions {
  home?: string;
  workspace?: string;
  expose?: Expose[];
  network?: "none" | "loopback" | "full" | "proxy";
  allowNet?: string[];
  profiles?: string[];
  backend?: "auto" | "linux" | "landlock" | "seatbelt" | "windows";
  /** Names of this process's variables passed as they are (one secret on purpose). */
  passEnv?: string[];
  envPolicy?: EnvPolicy;
  limits?: Limits;
  /** When this process dies, cordon ends the sandbox as on SIGTERM (default: true on Linux). */
  dieWithParent?: boolean;
  /** Also observe the command's path calls, so that cordonDenied names the reads, writes and executions the view refused and the system calls the seccomp filter refused (costs time per call; never allows more). */
  explain?: boolean;
}

/** One refusal of the sandbox's (the record's "denied"). */
export interface CordonDenial {
  kind: "read" | "write" | "exec" | "connect" | "resolve" | "syscall";
  /** the path, HOST:PORT or call */
  target: string;
  rule: string;
  /** for a path, whether the host has it; null for the other kinds */
  host_has: boolean | null;
  /** the flag that would allow it ("--expose /path", "--allow-net host:443"), or "cannot be allowed" */
  suggestion: string;
  seen_by: "proxy" | "supervisor" | "exit-status" | "explain";
}

export interface CordonSpawnOptions extends SpawnOptions {
  cordon?: CordonOptions;
}

/** cordon's report (--stats): a run's, or a refusal's `error`. */
export interface CordonRecord {
  exit_code?: number;
  signal?: number;
  status?: number;
  timed_out?: boolean;
  error?: { message: string; code: number; flag?: string; file?: string; line?: number; column?: number; key?: string };
  [key: string]: unknown;
}

export interface CordonChildProcess extends ChildProcess {
  /** cordon's report, once the child exited (null when it wrote none). */
  cordonRecord?: CordonRecord | null;
  /** What the sandbox refused, once the child exited ([] when nothing, or no record). */
  cordonDenied?: CordonDenial[];
  /** Allow HOST[:PORT] to the running command at once (the approval loop, no restart): the entry,
   * or a CordonError when cordon refuses it (or the network is not "proxy"). */
  allowNet(entry: string): Promise<string>;
  /** Remove an entry of the running command's allowlist (given at start or granted). */
  removeNet(entry: string): Promise<string>;
}

export class CordonError extends Error {
  code: "CORDON_REFUSED" | "CORDON_NOT_FOUND";
  /** This package's option at fault ("expose[0].source"), when the error is in the config it generated. */
  option?: string;
  record: CordonRecord;
  flag?: string;
  file?: string;
  line?: number;
  column?: number;
  key?: string;
}

/** ms a stopped command gets for cordon's teardown and checks before SIGKILL. */
export const STOP_GRACE_MS: number;

/** The absolute path of cordon: $CORDON_BIN, else `cordon` on PATH. */
export function findBinary(): string;

/** cordon's JSON config layer for these options. */
export function config(opts?: CordonOptions): Record<string, unknown>;

/** child_process.spawn with the command inside cordon's sandbox. */
export function spawn(command: string, options?: CordonSpawnOptions): CordonChildProcess;
export function spawn(command: string, args: readonly string[], options?: CordonSpawnOptions): CordonChildProcess;

/** An MCP client's description of a stdio server (the SDK's StdioServerParameters). */
export interface StdioServer {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  stderr?: unknown;
  [key: string]: unknown;
}

/** The parameters of an MCP SDK StdioClientTransport whose server runs under cordon; checked with `cordon plan` (a CordonError on a refusal). */
export function stdioServerParams<S extends StdioServer>(server: S, opts?: CordonOptions): S & { command: string; args: string[] };
