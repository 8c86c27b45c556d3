"""Run an agent's child processes under cordon (``cordon run``).

``cordon.run``, ``cordon.Popen`` and ``cordon.create_subprocess_exec`` are
``subprocess.run``, ``subprocess.Popen`` and
``asyncio.create_subprocess_exec`` with the command inside cordon's
sandbox; ``cordon.mcp.stdio_server_parameters`` gives the MCP Python SDK's
``StdioServerParameters`` of a server under cordon. The binary is
``$CORDON_BIN``, else ``cordon`` on ``PATH``; when it is missing,
``CordonNotFound`` is raised and nothing runs. The configuration reaches
cordon as a JSON config through an inherited descriptor (an unlinked
temporary file), never in argv; its usage report comes back the same way,
which tells cordon's refusals (``CordonError``, naming this package's
option at fault) from the command's own exit status 125.
"""

from __future__ import annotations

import asyncio
import asyncio.subprocess
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["run", "Popen", "Process", "create_subprocess_exec", "CordonError", "CordonNotFound", "find_binary",
           "config", "STOP_GRACE"]

StrPath = Union[str, "os.PathLike[str]"]
#: An exposure: a path (read-only at the same place) or (source, target or None, "ro" | "rw").
Expose = Union[StrPath, Tuple[StrPath, Optional[StrPath], str]]
Limit = Union[int, float, str]

#: Seconds a stopped command (kill(), terminate(), run's timeout) is given,
#: after cordon gets SIGTERM, to end the sandbox and finish its post-run
#: checks (the git check), before cordon is killed. cordon kills what still
#: runs in the sandbox limits["kill_after_s"] (default 2) after the SIGTERM.
STOP_GRACE = 5.0

class CordonError(Exception):
    """cordon refused to run the command (exit status 125): the command did
    not run. ``message`` names this package's option at fault
    (``expose[0].source: does not exist: ...``) when the error is in the
    config it generated; ``option`` is that name; ``record`` is cordon's
    report (a dict, empty when it wrote none); ``code``, ``flag``, ``file``,
    ``line``, ``column``, ``key`` are cordon's own, from it."""

    def __init__(self, message: str, record: Optional[Dict[str, Any]] = None, option: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.record: Dict[str, Any] = record or {}
        err = self.record.get("error") or {}
        self.code: int = err.get("code", 125)
        self.flag: Optional[str] = err.get("flag")
        self.file: Optional[str] = err.get("file")
        self.line: Optional[int] = err.get("line")
        self.column: Optional[int] = err.get("column")
        self.key: Optional[str] = err.get("key")
        self.option = option

    def __str__(self) -> str:
        return "cordon: " + self.message


class CordonNotFound(CordonError):
    """The cordon binary is not where $CORDON_BIN or PATH says."""


def find_binary() -> str:
    """The absolute path of cordon: $CORDON_BIN, else `cordon` on PATH."""
    name = os.environ.get("CORDON_BIN") or "cordon"
    where = "$CORDON_BIN" if os.environ.get("CORDON_BIN") else "PATH"
    path = shutil.which(name)
    if not path:
        raise CordonNotFound(f"binary not found ({where}: {name!r}): nothing runs unsandboxed")
    return os.path.abspath(path)


class _Config:
    """cordon's JSON config layer, and the name of this package's option
    behind each of its keys (for errors)."""

    def __init__(self, home: Optional[StrPath] = None, workspace: Optional[StrPath] = None,
                 expose: Sequence[Expose] = (), network: Optional[str] = None, allow_net: Sequence[str] = (),
                 profiles: Sequence[str] = (), backend: Optional[str] = None, pass_env: Sequence[str] = (),
                 env_policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Limit]] = None,
                 die_with_parent: Optional[bool] = None, env_names: Sequence[str] = (), explain: bool = False
                 ) -> None:
        self.names: Dict[str, str] = {}
        iso: Dict[str, Any] = {"enabled": True}
        for key, value in (("home", home), ("workspace", workspace)):
            if value is not None:
                iso[key] = os.fspath(value)
        for key, value in (("network", network), ("backend", backend)):
            if value is not None:
                iso[key] = value
        for key, name, seq in (("network_allow", "allow_net", allow_net), ("profiles", "profiles", profiles)):
            if seq:
                iso[key] = list(seq)
                self.names[f"isolation.{key}"] = name
        if limits:
            iso["limits"] = dict(limits)
            for k in limits:
                self.names[f"isolation.limits.{k}"] = f"limits[{k!r}]"
        self.die_with_parent = sys.platform.startswith("linux") if die_with_parent is None else die_with_parent
        iso["die_with_parent"] = self.die_with_parent
        if explain:
            iso["explain"] = True
        rules = []
        for i, e in enumerate(expose):
            source, target, mode = (e, None, "ro") if isinstance(e, (str, os.PathLike)) else e
            if mode not in ("ro", "rw"):
                raise ValueError(f"expose[{i}] {e!r}: mode must be 'ro' or 'rw'")
            rule = {"source": os.fspath(source), "mode": mode}
            if target is not None:
                rule["target"] = os.fspath(target)
            rules.append(rule)
            self.names[f"isolation.expose_paths[{i}]"] = f"expose[{i}]"
        if rules:
            iso["expose_paths"] = rules
        for key in ("home", "workspace", "network", "backend", "die_with_parent", "explain"):
            self.names.setdefault(f"isolation.{key}", key)
        self.data: Dict[str, Any] = {"isolation": iso}
        policy = dict(env_policy or {})
        for k in policy:
            self.names[f"shell_environment_policy.{k}"] = f"env_policy[{k!r}]"
        given = list(policy.get("pass", ()))
        passed = given + list(pass_env) + [n for n in env_names if n not in given and n not in pass_env]
        for i in range(len(given), len(given) + len(pass_env)):
            self.names[f"shell_environment_policy.pass[{i}]"] = f"pass_env[{i - len(given)}]"
        for i in range(len(given) + len(pass_env), len(passed)):
            self.names[f"shell_environment_policy.pass[{i}]"] = f"env[{passed[i]!r}]"
        if passed:
            policy["pass"] = passed
        if policy:
            self.data["shell_environment_policy"] = policy

    def option_of(self, key: str) -> Optional[str]:
        """This package's name for cordon's key, or None."""
        best = max((k for k in self.names if key == k or key.startswith(k + ".") or key.startswith(k + "[")),
                   key=len, default=None)
        return None if best is None else self.names[best] + key[len(best):]


def config(*, home: Optional[StrPath] = None, workspace: Optional[StrPath] = None, expose: Sequence[Expose] = (),
           network: Optional[str] = None, allow_net: Sequence[str] = (), profiles: Sequence[str] = (),
           backend: Optional[str] = None, pass_env: Sequence[str] = (),
           env_policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Limit]] = None,
           die_with_parent: Optional[bool] = None, explain: bool = False) -> Dict[str, Any]:
    """cordon's JSON config layer for these options (a dict)."""
    return _Config(home, workspace, expose, network, allow_net, profiles, backend, pass_env, env_policy, limits,
                   die_with_parent, explain=explain).data


def _temporary(data: bytes = b"") -> IO[bytes]:
    """An unlinked temporary file holding data, at offset 0."""
    f = tempfile.TemporaryFile()
    f.write(data)
    f.flush()
    f.seek(0)
    return f


_Args = Union[StrPath, bytes, Sequence[Union[StrPath, bytes]]]


def _command(args: _Args, kwargs: Dict[str, Any]) -> List[str]:
    if kwargs.pop("shell", False):
        if isinstance(args, (str, bytes)):
            args = ["/bin/sh", "-c", args]
        else:
            args = ["/bin/sh", "-c", *args]  # type: ignore[misc]
    elif isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    if kwargs.get("executable") is not None:
        raise ValueError("executable= is not supported under cordon: name the program in args")
    if kwargs.get("pass_fds"):
        raise ValueError("pass_fds= is not passed into the sandbox")
    kwargs.pop("pass_fds", None)
    return [os.fsdecode(a) for a in args]


def _added_env(env: Optional[Mapping[str, str]]) -> List[str]:
    """The names of env that os.environ lacks or has with another value."""
    if env is None:
        return []
    return [n for n, v in env.items() if os.environ.get(n) != v and n and "=" not in n]


def _launch(args: _Args, options: Dict[str, Any], kwargs: Dict[str, Any], control: Optional[int] = None
            ) -> Tuple[List[str], IO[bytes], IO[bytes], _Config]:
    """(argv of cordon, config file, stats file, the config) for the command;
    control: cordon's end of the live grants' socket (--control-fd)."""
    args = _command(args, kwargs)
    binary = find_binary()
    cfg = _Config(**options, env_names=_added_env(kwargs.get("env")))
    cfg_file = _temporary(json.dumps(cfg.data).encode())
    stats = _temporary()
    argv = [binary, "run", "--config", f"/dev/fd/{cfg_file.fileno()}", "--stats-fd", str(stats.fileno())]
    if cfg.die_with_parent:
        argv.append(f"--die-with-parent={os.getpid()}")
    if control is not None:
        argv += ["--control-fd", str(control)]
    return [*argv, "--", *args], cfg_file, stats, cfg


def _read_record(stats: IO[bytes]) -> Optional[Dict[str, Any]]:
    stats.seek(0)
    text = stats.read(1 << 20)
    try:
        record = json.loads(text) if text else None
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _in_callers_terms(record: Dict[str, Any], cfg: _Config, config_path: str) -> CordonError:
    """cordon's refusal, its message in this package's terms: an error in
    the generated config names the option ("expose[0].source: ..."), not a
    position in JSON the caller never wrote."""
    err = record.get("error") or {}
    message: str = err.get("message") or \
        "refused to run the command (exit status 125; its message is on the command's stderr)"
    key, reason = err.get("key"), message
    if message.startswith(config_path + ":"):
        parts = message[len(config_path) + 1:].split(": ", 2)
        if len(parts) == 3 and parts[0].count(":") == 1:
            key, reason = parts[1], parts[2]
    option = cfg.option_of(key) if key and (err.get("file") in (None, config_path)) else None
    if option is None and err.get("flag") == "--pass-env":
        option = "env"
    if option:
        message = f"{option}: {reason}"
    return CordonError(message, record, option)


Denied = List[Dict[str, Any]]


def _outcome(returncode: int, stats: IO[bytes], cfg: _Config, config_path: str
             ) -> Tuple[int, Optional[CordonError], Denied]:
    """The command's return code as subprocess reports it (a signal N is
    -N), and cordon's refusal if it refused. A report with "exit_code" and
    no "error" is a run that started (its 125 is the command's); one with
    "error", or none (cordon failed before writing it), is a refusal. Then
    what the sandbox refused (the record's "denied", [] without one)."""
    record = _read_record(stats)
    stats.close()
    denied: Denied = list((record or {}).get("denied") or [])
    if returncode < 0:  # cordon itself was killed
        return returncode, None, denied
    if record and "exit_code" in record and "error" not in record:
        sig = record.get("signal") or 0
        return (-sig if sig and returncode == 128 + sig else returncode), None, denied
    if returncode != 125:
        return returncode, None, denied
    return returncode, _in_callers_terms(record or {}, cfg, config_path), denied


class Popen(subprocess.Popen):  # type: ignore[type-arg]
    """subprocess.Popen under cordon. ``wait()`` (so ``communicate()``) and
    ``poll()`` raise CordonError, once, when cordon refused to run the
    command; otherwise ``returncode`` is the command's (a signal N is -N).
    ``terminate()`` and ``kill()`` stop cordon gracefully: SIGTERM, then
    SIGKILL if it still runs STOP_GRACE seconds later.

    The cordon options are keyword-only: ``home``, ``workspace``,
    ``expose``, ``network``, ``allow_net``, ``profiles``, ``backend``,
    ``pass_env``, ``env_policy``, ``limits``, ``die_with_parent``,
    ``explain`` (see the README); ``env`` is the command's environment, as
    in subprocess. ``denied``: what the sandbox refused, once waited for
    (the --stats record's entries)."""

    denied: Denied = []

    def __init__(self, args: _Args, *, home: Optional[StrPath] = None, workspace: Optional[StrPath] = None,
                 expose: Sequence[Expose] = (), network: Optional[str] = None, allow_net: Sequence[str] = (),
                 profiles: Sequence[str] = (), backend: Optional[str] = None, pass_env: Sequence[str] = (),
                 env_policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Limit]] = None,
                 die_with_parent: Optional[bool] = None, explain: bool = False, **kwargs: Any) -> None:
        options: Dict[str, Any] = dict(home=home, workspace=workspace, expose=expose, network=network, allow_net=allow_net,
                       profiles=profiles, backend=backend, pass_env=pass_env, env_policy=env_policy, limits=limits,
                       die_with_parent=die_with_parent, explain=explain)
        # live grants (allow_net(), remove_net()): a socket to cordon's
        # --control-fd, where the network is the proxy
        ours: Optional[socket.socket] = None
        theirs: Optional[socket.socket] = None
        if allow_net or network == "proxy":
            ours, theirs = socket.socketpair()
        argv, cfg, self._cordon_stats, self._cordon_cfg = _launch(args, options, kwargs,
                                                                  theirs.fileno() if theirs else None)
        self._cordon_config_path = f"/dev/fd/{cfg.fileno()}"
        self._cordon_checked = False
        self._cordon_lock = threading.Lock()
        self._cordon_control = ours
        self._cordon_control_lock = threading.Lock()
        fds = (cfg.fileno(), self._cordon_stats.fileno(), *((theirs.fileno(),) if theirs else ()))
        try:
            super().__init__(argv, pass_fds=fds, **kwargs)
        except BaseException:
            self._cordon_stats.close()
            if ours:
                ours.close()
            raise
        finally:
            cfg.close()
            if theirs:
                theirs.close()
        self.args = args

    def _cordon_change(self, op: str, entry: str) -> str:
        if self._cordon_control is None:
            raise CordonError(f"{op}: the network is not \"proxy\": start the command with allow_net= "
                              "(or network=\"proxy\") to change its allowlist")
        line = (json.dumps({op: entry}) + "\n").encode()
        with self._cordon_control_lock:
            try:
                self._cordon_control.sendall(line)
                answer = b""
                while not answer.endswith(b"\n"):
                    got = self._cordon_control.recv(4096)
                    if not got:
                        break
                    answer += got
            except OSError as e:
                raise CordonError(f"{op}: the sandbox has ended ({e.strerror})") from None
        try:
            reply = json.loads(answer) if answer else {"ok": False, "error": "the sandbox has ended"}
        except ValueError:
            reply = {"ok": False, "error": "cordon's answer is not JSON"}
        if not reply.get("ok"):
            raise CordonError(f"{op}: {reply.get('error')}")
        return str(reply.get(op, entry))

    def allow_net(self, entry: str) -> str:
        """Allow entry (HOST[:PORT], as allow_net= takes it) to the running
        command, at once for every new connection: the approval loop
        (denied, ask, grant, retry) without a restart. Raises CordonError
        when cordon refuses it. Listed in the report's network_grants."""
        return self._cordon_change("allow_net", entry)

    def remove_net(self, entry: str) -> str:
        """Remove an entry of the running command's allowlist (given at start
        or granted). Raises CordonError when it is not there."""
        return self._cordon_change("remove_net", entry)

    def _cordon_check(self) -> None:
        with self._cordon_lock:
            if self._cordon_checked or self.returncode is None:
                return
            self._cordon_checked = True
            if self._cordon_control is not None:
                self._cordon_control.close()  # no change after the end
            self.returncode, err, self.denied = _outcome(self.returncode, self._cordon_stats, self._cordon_cfg,
                                                         self._cordon_config_path)
        if err:
            raise err

    def wait(self, timeout: Optional[float] = None) -> int:
        super().wait(timeout)
        self._cordon_check()
        return self.returncode

    def poll(self) -> Optional[int]:
        if super().poll() is not None:
            self._cordon_check()
        return self.returncode

    def terminate(self) -> None:
        """SIGTERM to cordon (it ends the sandbox and runs its checks), then
        SIGKILL if it still runs STOP_GRACE seconds later."""
        self.send_signal(signal.SIGTERM)
        if self.returncode is None:
            timer = threading.Timer(STOP_GRACE, self._cordon_hard_kill)
            timer.daemon = True
            timer.start()

    kill = terminate

    def _cordon_hard_kill(self) -> None:
        subprocess.Popen.send_signal(self, signal.SIGKILL)  # nothing once reaped


def _stop(process: Popen) -> Tuple[Any, Any]:
    """Stop process gracefully and collect its output."""
    process.terminate()
    try:
        return process.communicate(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        subprocess.Popen.send_signal(process, signal.SIGKILL)
        return process.communicate()


def run(args: _Args, *, input: Any = None, capture_output: bool = False, timeout: Optional[float] = None,
        check: bool = False, home: Optional[StrPath] = None, workspace: Optional[StrPath] = None,
        expose: Sequence[Expose] = (), network: Optional[str] = None, allow_net: Sequence[str] = (),
        profiles: Sequence[str] = (), backend: Optional[str] = None, pass_env: Sequence[str] = (),
        env_policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Limit]] = None,
        die_with_parent: Optional[bool] = None, explain: bool = False,
        **kwargs: Any) -> "subprocess.CompletedProcess[Any]":
    """subprocess.run under cordon (the options of Popen). ``check=True``
    raises CalledProcessError for the command's non-zero status; a refusal
    of cordon's raises CordonError. On the timeout cordon gets SIGTERM: it
    ends the whole sandbox and runs its post-run checks; SIGKILL follows
    STOP_GRACE seconds later if it still runs. Then TimeoutExpired. The
    result's ``denied``: what the sandbox refused (Popen.denied)."""
    if input is not None:
        if kwargs.get("stdin") is not None:
            raise ValueError("stdin and input arguments may not both be used.")
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        if kwargs.get("stdout") is not None or kwargs.get("stderr") is not None:
            raise ValueError("stdout and stderr arguments may not be used with capture_output.")
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    options: Dict[str, Any] = dict(home=home, workspace=workspace, expose=expose, network=network, allow_net=allow_net,
                   profiles=profiles, backend=backend, pass_env=pass_env, env_policy=env_policy, limits=limits,
                   die_with_parent=die_with_parent, explain=explain)
    with Popen(args, **options, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            exc.stdout, exc.stderr = _stop(process)
            raise
        except BaseException:
            _stop(process)
            raise
        retcode = process.poll()
    assert retcode is not None
    if check and retcode:
        raise subprocess.CalledProcessError(retcode, process.args, output=stdout, stderr=stderr)
    done: "subprocess.CompletedProcess[Any]" = subprocess.CompletedProcess(process.args, retcode, stdout, stderr)
    done.denied = process.denied  # type: ignore[attr-defined]
    return done


class Process(asyncio.subprocess.Process):
    """An asyncio Process under cordon: ``await wait()`` (so
    ``communicate()``) raises CordonError, once, on cordon's refusal;
    ``returncode`` is the command's (a signal N is -N); ``terminate()`` and
    ``kill()`` stop cordon gracefully, as Popen's do."""

    _cordon_stats: Optional[IO[bytes]]
    _cordon_cfg: _Config
    _cordon_config_path: str
    _cordon_code: Optional[int] = None
    denied: Denied = []

    async def wait(self) -> int:
        rc = await super().wait()
        if self._cordon_stats is not None:
            stats, self._cordon_stats = self._cordon_stats, None
            self._cordon_code, err, self.denied = _outcome(rc, stats, self._cordon_cfg, self._cordon_config_path)
            if err:
                raise err
        return self._cordon_code if self._cordon_code is not None else rc

    @property
    def returncode(self) -> Optional[int]:
        if self._cordon_code is not None:
            return self._cordon_code
        return self._transport.get_returncode()  # type: ignore[attr-defined, no-any-return]

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)
        asyncio.get_running_loop().call_later(STOP_GRACE, self._cordon_hard_kill)

    kill = terminate

    def _cordon_hard_kill(self) -> None:
        if self._transport.get_returncode() is None:  # type: ignore[attr-defined]
            self.send_signal(signal.SIGKILL)


async def create_subprocess_exec(program: StrPath, *args: Union[StrPath, bytes], home: Optional[StrPath] = None,
                                 workspace: Optional[StrPath] = None, expose: Sequence[Expose] = (),
                                 network: Optional[str] = None, allow_net: Sequence[str] = (),
                                 profiles: Sequence[str] = (), backend: Optional[str] = None,
                                 pass_env: Sequence[str] = (), env_policy: Optional[Mapping[str, Any]] = None,
                                 limits: Optional[Mapping[str, Limit]] = None,
                                 die_with_parent: Optional[bool] = None, explain: bool = False,
                                 **kwds: Any) -> Process:
    """asyncio.create_subprocess_exec under cordon (a Process)."""
    options: Dict[str, Any] = dict(home=home, workspace=workspace, expose=expose, network=network, allow_net=allow_net,
                   profiles=profiles, backend=backend, pass_env=pass_env, env_policy=env_policy, limits=limits,
                   die_with_parent=die_with_parent, explain=explain)
    argv, cfg, stats, c = _launch([program, *args], options, kwds)
    try:
        proc = await asyncio.create_subprocess_exec(*argv, pass_fds=(cfg.fileno(), stats.fileno()), **kwds)
    except BaseException:
        stats.close()
        raise
    finally:
        path = f"/dev/fd/{cfg.fileno()}"
        cfg.close()
    proc.__class__ = Process
    p: Process = proc  # type: ignore[assignment]
    p._cordon_stats, p._cordon_cfg, p._cordon_config_path = stats, c, path
    return p
