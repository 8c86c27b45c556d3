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
