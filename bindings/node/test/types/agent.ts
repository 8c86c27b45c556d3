// A small agent on the package's types: tests/integration/bindings.sh runs
// tsc --strict on it (and on bad.ts, which must fail).
import { spawn, stdioServerParams, CordonError, STOP_GRACE_MS, type CordonOptions } from "../../index.js";

const opts: CordonOptions = {
  workspace: "/tmp/project",
  expose: ["/opt/tool", { source: "/opt/mcp/node_modules", mode: "ro" }],
  network: "loopback",
  passEnv: ["GITHUB_TOKEN"],
  limits: { wall_time_s: 120, memory_bytes: "1G" },
  dieWithParent: true,
};
const child = spawn("sh", ["-c", "make test"], { cwd: "/tmp/project", timeout: 120_000, cordon: opts });
child.on("error", (e: Error) => {
  if (e instanceof CordonError) console.error(e.option ?? e.key, e.record.error?.message);
});
child.on("exit", (code: number | null) => console.log(code, child.cordonRecord?.status, STOP_GRACE_MS));
const params = stdioServerParams({ command: "node", args: ["server.js"], env: { TOKEN: "t" }, cwd: "/tmp/project" }, opts);
const argv: string[] = params.args;
console.log(params.command, argv, params.env?.TOKEN);
