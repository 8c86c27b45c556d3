"""Run an agent's child processes under cordon (``cordon run``).

``cordon.run``, ``cordon.Popen`` and ``cordon.create_subprocess_exec`` are
``subprocess.run``, ``subprocess.Popen`` and
``asyncio.create_subprocess_exec`` with the command inside cordon's
sandbox. The binary is ``$CORDON_BIN``, else ``cordon`` on ``PATH``; when it
is missing, ``CordonNotFound`` is raised and nothing runs. The configuration
reaches cordon as a JSON config through an inherited descriptor (an unlinked
temporary file), never in argv; its usage report comes back the same way,
which tells cordon's refusals (``CordonError``) from the command's own exit
status 125.
"""

import asyncio
import asyncio.subprocess
import json
import os
import shutil
import subprocess
import tempfile

__all__ = ["run", "Popen", "create_subprocess_exec", "CordonError", "CordonNotFound", "find_binary", "config"]


class CordonError(Exception):
    """cordon refused to run the command (exit status 125): the command did
    not run. ``record`` is cordon's report (a dict, empty when it wrote none);
    ``code``, ``flag``, ``file``, ``line``, ``column``, ``key`` come from it."""

    def __init__(self, message, record=None):
        super().__init__(message)
        self.message = message
        self.record = record or {}
        err = self.record.get("error") or {}
        self.code = err.get("code", 125)
        for k in ("flag", "file", "line", "column", "key"):
            setattr(self, k, err.get(k))

    def __str__(self):
        return "cordon: " + self.message


class CordonNotFound(CordonError):
    """The cordon binary is not where $CORDON_BIN or PATH says."""


def find_binary():
    """The absolute path of cordon: $CORDON_BIN, else `cordon` on PATH."""
    name = os.environ.get("CORDON_BIN") or "cordon"
    where = "$CORDON_BIN" if os.environ.get("CORDON_BIN") else "PATH"
    path = shutil.which(name)
    if not path:
        raise CordonNotFound(f"binary not found ({where}: {name!r}): nothing runs unsandboxed")
    return os.path.abspath(path)


def config(home=None, workspace=None, expose=(), network=None, allow_net=(), profiles=(), pass_env=(), env_policy=None,
           limits=None):
    """cordon's JSON config layer for these options (a dict)."""
    iso = {"enabled": True}
    if home is not None:
        iso["home"] = os.fspath(home)
    if workspace is not None:
        iso["workspace"] = os.fspath(workspace)
    if network is not None:
        iso["network"] = network
    if allow_net:
        iso["network_allow"] = list(allow_net)
    if profiles:
        iso["profiles"] = list(profiles)
    if limits:
        iso["limits"] = dict(limits)
    rules = []
    for e in expose:
        source, target, mode = (e, None, "ro") if isinstance(e, (str, os.PathLike)) else e
        if mode not in ("ro", "rw"):
            raise ValueError(f"expose {e!r}: mode must be 'ro' or 'rw'")
        rule = {"source": os.fspath(source), "mode": mode}
        if target is not None:
            rule["target"] = os.fspath(target)
        rules.append(rule)
    if rules:
        iso["expose_paths"] = rules
    out = {"isolation": iso}
    env = dict(env_policy or {})
    if pass_env:
        env["pass"] = list(env.get("pass", ())) + list(pass_env)
    if env:
        out["shell_environment_policy"] = env
    return out


_OPTIONS = ("home", "workspace", "expose", "network", "allow_net", "profiles", "pass_env", "env_policy", "limits")


def _temporary(data=b""):
    """An unlinked temporary file holding data, at offset 0."""
    f = tempfile.TemporaryFile()
    f.write(data)
    f.flush()
    f.seek(0)
    return f


def _command(args, kwargs):
    if kwargs.pop("shell", False):
        args = ["/bin/sh", "-c", args] if isinstance(args, (str, bytes)) else ["/bin/sh", "-c", *args]
    elif isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    if kwargs.get("executable") is not None:
        raise ValueError("executable= is not supported under cordon: name the program in args")
    if kwargs.get("pass_fds"):
        raise ValueError("pass_fds= is not passed into the sandbox")
    kwargs.pop("pass_fds", None)
    return [os.fsdecode(a) for a in args]


def _launch(args, options, kwargs):
    """(argv of cordon, config file, stats file) for the command."""
    args = _command(args, kwargs)
    binary = find_binary()
    cfg = _temporary(json.dumps(config(**options)).encode())
    stats = _temporary()
    argv = [binary, "run", "--config", f"/dev/fd/{cfg.fileno()}", "--stats-fd", str(stats.fileno()), "--", *args]
    return argv, cfg, stats


def _refusal(returncode, stats):
    """The CordonError for a finished run, or None. A report with "exit_code"
    and no "error" is a run that started (its 125 is the command's); one with
    "error", or none (cordon failed before writing it), is cordon's refusal."""
    if stats is None or stats.closed:
        return None
    stats.seek(0)
    text = stats.read(1 << 20)
    stats.close()
    if returncode != 125:
        return None
    try:
        record = json.loads(text) if text else {}
    except ValueError:
        record = {}
    if not isinstance(record, dict):
        record = {}
    if "exit_code" in record and "error" not in record:
        return None
    message = (record.get("error") or {}).get("message") or \
        "refused to run the command (exit status 125; its message is on the command's stderr)"
    return CordonError(message, record)


class Popen(subprocess.Popen):
    """subprocess.Popen under cordon. ``wait()`` (so ``communicate()``) and
    ``poll()`` raise CordonError, once, when cordon refused to run the
    command; otherwise ``returncode`` is the command's (a signal N is
    128+N)."""

    def __init__(self, args, *, home=None, workspace=None, expose=(), network=None, allow_net=(), profiles=(),
                 pass_env=(), env_policy=None, limits=None, **kwargs):
        options = dict(home=home, workspace=workspace, expose=expose, network=network, allow_net=allow_net,
                       profiles=profiles, pass_env=pass_env, env_policy=env_policy, limits=limits)
        argv, cfg, self._cordon_stats = _launch(args, options, kwargs)
        try:
            super().__init__(argv, pass_fds=(cfg.fileno(), self._cordon_stats.fileno()), **kwargs)
        except BaseException:
            self._cordon_stats.close()
            raise
        finally:
            cfg.close()
        self.args = args

    def _cordon_check(self):
        err = _refusal(self.returncode, self._cordon_stats)
        if err:
            raise err

    def wait(self, timeout=None):
        rc = super().wait(timeout)
        self._cordon_check()
        return rc

    def poll(self):
        rc = super().poll()
        if rc is not None:
            self._cordon_check()
        return rc


def run(args, *, input=None, capture_output=False, timeout=None, check=False, **kwargs):
    """subprocess.run under cordon (the options of Popen). ``check=True``
    raises CalledProcessError for the command's non-zero status; a refusal
    of cordon's raises CordonError. On the timeout cordon is killed, and
    with it the whole sandbox."""
    if input is not None:
        if kwargs.get("stdin") is not None:
            raise ValueError("stdin and input arguments may not both be used.")
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        if kwargs.get("stdout") is not None or kwargs.get("stderr") is not None:
            raise ValueError("stdout and stderr arguments may not be used with capture_output.")
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with Popen(args, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            process.kill()
            exc.stdout, exc.stderr = process.communicate()
            raise
        except BaseException:
            process.kill()
            raise
        retcode = process.poll()
    if check and retcode:
        raise subprocess.CalledProcessError(retcode, process.args, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(process.args, retcode, stdout, stderr)


class _Process(asyncio.subprocess.Process):
    async def wait(self):
        rc = await super().wait()
        err = _refusal(rc, getattr(self, "_cordon_stats", None))
        if err:
            raise err
        return rc


async def create_subprocess_exec(program, *args, home=None, workspace=None, expose=(), network=None, allow_net=(),
                                 profiles=(), pass_env=(), env_policy=None, limits=None, **kwds):
    """asyncio.create_subprocess_exec under cordon. ``await proc.wait()``
    (so ``communicate()``) raises CordonError, once, on cordon's refusal."""
    options = dict(home=home, workspace=workspace, expose=expose, network=network, allow_net=allow_net,
                   profiles=profiles, pass_env=pass_env, env_policy=env_policy, limits=limits)
    argv, cfg, stats = _launch([program, *args], options, kwds)
    try:
        proc = await asyncio.create_subprocess_exec(*argv, pass_fds=(cfg.fileno(), stats.fileno()), **kwds)
    except BaseException:
        stats.close()
        raise
    finally:
        cfg.close()
    proc.__class__ = _Process
    proc._cordon_stats = stats
    return proc
