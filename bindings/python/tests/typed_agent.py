"""A small agent on the package's types: tests/integration/bindings.sh runs
mypy --strict on it (and on typed_bad.py, which must fail)."""

import asyncio
import subprocess

import cordon
import cordon.mcp


def shell_tool(command: str, project: str) -> str:
    try:
        r = cordon.run(["sh", "-c", command], cwd=project, workspace=project, expose=["/opt/tool"],
                       network="loopback", limits={"wall_time_s": 120, "memory_bytes": "1G"},
                       capture_output=True, text=True, timeout=120)
    except cordon.CordonError as e:
        return f"refused: {e.option or e.key}: {e.message}"
    except subprocess.TimeoutExpired:
        return "timed out"
    out: str = r.stdout
    return out if r.returncode >= 0 else f"killed by signal {-r.returncode}"


async def server(project: str) -> int:
    p: cordon.Process = await cordon.create_subprocess_exec("node", "server.js", cwd=project, workspace=project,
                                                            stdin=asyncio.subprocess.PIPE, die_with_parent=True)
    p.terminate()
    return await p.wait()


params = cordon.mcp.stdio_server_config("node", ["server.js"], env={"TOKEN": "t"}, workspace="/tmp/project")
print(shell_tool("true", "/tmp"), params["command"], cordon.STOP_GRACE)
