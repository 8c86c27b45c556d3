"""The MCP Python SDK's StdioServerParameters for a server under cordon.

    from mcp import ClientSession
    from mcp.client.stdio import stdio_client
    import cordon.mcp

    params = cordon.mcp.stdio_server_parameters(
        "node", ["/opt/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", project],
        cwd=project, workspace=project, expose=[("/opt/mcp/node_modules", None, "ro")])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

The config is checked first (``cordon plan``): a refusal raises
CordonError, naming this package's option, before any connection. It
reaches cordon as a file in a private (0700) directory, removed when this
process exits (the SDK starts the server itself, so no descriptor can
carry it). The names in ``env`` are passed to the server as they are
(cordon's ``--pass-env``); the SDK adds its default environment (HOME,
PATH, ...), which cordon's policy filters.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import Expose, Limit, StrPath, _Config, _in_callers_terms, _read_record, _temporary, find_binary

__all__ = ["stdio_server_parameters", "stdio_server_config"]

_dirs: List[str] = []


def _remove_dirs() -> None:
    for d in _dirs:
        shutil.rmtree(d, ignore_errors=True)


def stdio_server_config(command: str, args: Sequence[str] = (), *, env: Optional[Mapping[str, str]] = None,
                        cwd: Optional[StrPath] = None, home: Optional[StrPath] = None,
                        workspace: Optional[StrPath] = None, expose: Sequence[Expose] = (),
                        network: Optional[str] = None, allow_net: Sequence[str] = (), profiles: Sequence[str] = (),
                        backend: Optional[str] = None, pass_env: Sequence[str] = (),
                        env_policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Limit]] = None,
                        die_with_parent: Optional[bool] = None) -> Dict[str, Any]:
    """{"command", "args", "env", "cwd"} that start the server under cordon,
    as an MCP client's config names a server; checked with ``cordon plan``
    (CordonError on a refusal). stdio_server_parameters wraps it. With
    die_with_parent (the default on Linux), cordon watches the process that
    starts it, as it finds it at its start."""
    binary = find_binary()
    cfg = _Config(home, workspace, expose, network, allow_net, profiles, backend, pass_env, env_policy, limits,
                  die_with_parent, env_names=list(env or {}))
    directory = tempfile.mkdtemp(prefix="cordon-mcp-")
    if not _dirs:
        atexit.register(_remove_dirs)
    _dirs.append(directory)
    path = os.path.join(directory, "config.json")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(cfg.data, f)
    flags = ["--config", path]
    if cfg.die_with_parent:  # the process that will start cordon: noted by cordon at its start
        flags.append("--die-with-parent")
    _check(binary, flags, command, args, cwd, env, cfg, path)
    out: Dict[str, Any] = {"command": binary, "args": ["run", *flags, "--", command, *args],
                           "env": dict(env) if env is not None else None,
                           "cwd": os.fspath(cwd) if cwd is not None else None}
    return out


def _check(binary: str, flags: List[str], command: str, args: Sequence[str], cwd: Optional[StrPath],
           env: Optional[Mapping[str, str]], cfg: _Config, path: str) -> None:
    """cordon plan for the server as it will start: its refusal, in this
    package's terms."""
    stats = _temporary()
    with stats:
        plan_flags = [f for f in flags if not f.startswith("--die-with-parent")]
        r = subprocess.run([binary, "plan", *plan_flags, "--stats-fd", str(stats.fileno()), "--", command, *args],
                           cwd=cwd, env={**os.environ, **(env or {})}, pass_fds=(stats.fileno(),),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 0:
            err = _in_callers_terms(_read_record(stats) or {}, cfg, path)
            if not err.record and r.stderr:
                line = r.stderr.decode(errors="replace").strip().splitlines()[-1]
                err.message = line[len("cordon: "):] if line.startswith("cordon: ") else line
            raise err


def stdio_server_parameters(command: str, args: Sequence[str] = (), *, env: Optional[Mapping[str, str]] = None,
                            cwd: Optional[StrPath] = None, **cordon_options: Any) -> Any:
    """mcp.client.stdio.StdioServerParameters that start the server under
    cordon (the options of cordon.run: home, workspace, expose, network,
    ...). Raises CordonError when cordon refuses the config, ImportError
    without the MCP SDK."""
    sdk = importlib.import_module("mcp.client.stdio")  # the SDK, when installed
    c = stdio_server_config(command, args, env=env, cwd=cwd, **cordon_options)
    # the SDK starts cordon from this process: cordon checks that at its start
    c["args"] = [f"--die-with-parent={os.getpid()}" if a == "--die-with-parent" else a for a in c["args"]]
    return sdk.StdioServerParameters(**{k: v for k, v in c.items() if v is not None})
