"""The cordon package against the real cordon ($CORDON_BIN) and probe
($CORDON_TEST_PROBE, tests/helpers/probe.c); tests/integration/bindings.sh
runs them as root and as an unprivileged user.

What a caller relies on, with a negative control (the same command through
plain subprocess) where the property is isolation's: an exposed file is
readable and /etc/shadow is not there; OPENAI_API_KEY of the caller does not
reach the command, HOME is the instance's; the command's status (its own
125, a signal) reaches the caller and check=True keeps its meaning; cordon's
refusal is a CordonError and nothing ran; a missing binary is an error and
nothing ran; a timeout or kill() takes the whole tree; asyncio the same."""

import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import cordon

PROBE = os.environ.get("CORDON_TEST_PROBE", "")
SHELL = "/bin/sh"


def processes(*argv):
    """pids whose argv is exactly argv"""
    want = ("\0".join(argv) + "\0").encode()
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if f.read() == want:
                        pids.append(int(name))
            except OSError:
                pass
    return pids


def eventually(cond, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


class Layout(unittest.TestCase):
    def setUp(self):
        self.assertTrue(PROBE and os.environ.get("CORDON_BIN"), "set CORDON_BIN and CORDON_TEST_PROBE")
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.home, self.ws, self.data = (os.path.join(self.dir, n) for n in ("home", "ws", "data"))
        for d in (self.home, self.ws, self.data):
            os.mkdir(d)
        self.exposed = os.path.join(self.data, "exposed.txt")
        with open(self.exposed, "w") as f:
            f.write("exposed content\n")
        self.marker = os.path.join(self.ws, "ran")
        self.opts = dict(home=self.home, workspace=self.ws, expose=[(self.data, None, "ro")], cwd=self.ws)

    def run_sandboxed(self, args, **kw):
        return cordon.run(args, capture_output=True, text=True, **{**self.opts, **kw})


class Isolation(Layout):
    def test_probe_reads_the_exposed_file_not_shadow(self):
        if os.getuid() == 0:
            control = subprocess.run([PROBE, "read", "/etc/shadow"], capture_output=True, text=True)
            self.assertEqual(control.returncode, 0, "control: unsandboxed root reads /etc/shadow")
        r = self.run_sandboxed([PROBE, "read", self.exposed])
        self.assertEqual((r.returncode, r.stdout), (0, "exposed content\n"))
        r = self.run_sandboxed([PROBE, "read", "/etc/shadow"])
        self.assertEqual(r.stdout, "ENOENT\n")

    def test_config_and_report_descriptors_stay_outside(self):
        with open("/dev/null") as f:
            control = subprocess.run([PROBE, "fds"], pass_fds=(f.fileno(),), capture_output=True, text=True)
            self.assertEqual(control.stdout, f"{f.fileno()}\n", "control: an inherited descriptor is seen")
        self.assertEqual(self.run_sandboxed([PROBE, "fds"]).stdout, "")

    def test_expose_at_a_target_and_read_write(self):
        r = self.run_sandboxed([PROBE, "read", "/opt/data/exposed.txt"], expose=[(self.data, "/opt/data", "ro")])
        self.assertEqual(r.stdout, "exposed content\n")
        r = self.run_sandboxed([PROBE, "create", os.path.join(self.data, "new")], expose=[(self.data, None, "rw")])
        self.assertEqual(r.stdout, "OK\n")
        self.assertTrue(os.path.exists(os.path.join(self.data, "new")))
        r = self.run_sandboxed([PROBE, "create", os.path.join(self.data, "new2")])
        self.assertEqual(r.stdout, "EROFS\n")

    def test_caller_secret_stays_out_and_home_is_the_instance(self):
        show = [SHELL, "-c", 'echo "key=${OPENAI_API_KEY-unset} home=$HOME"']
        env = {**os.environ, "OPENAI_API_KEY": "sk-from-the-caller"}
        control = subprocess.run(show, env=env, capture_output=True, text=True)
        self.assertIn("key=sk-from-the-caller", control.stdout, "control: unsandboxed, the key is seen")
        home = os.path.join(self.home, "runtime-user-env", "home")
        self.assertEqual(self.run_sandboxed(show, env=env).stdout, f"key=unset home={home}\n")
        os.environ["OPENAI_API_KEY"] = "sk-from-the-process"
        self.addCleanup(os.environ.pop, "OPENAI_API_KEY")
        self.assertTrue(self.run_sandboxed(show).stdout.startswith("key=unset "))
        # one variable on purpose
        r = self.run_sandboxed(show, pass_env=["OPENAI_API_KEY"])
        self.assertTrue(r.stdout.startswith("key=sk-from-the-process "), r)

    def test_exit_status_reaches_the_caller(self):
        for script, want in (("exit 0", 0), ("exit 7", 7), ("exit 125", 125), ("kill -TERM $$", 143)):
            self.assertEqual(self.run_sandboxed([SHELL, "-c", script]).returncode, want, script)
        with self.assertRaises(subprocess.CalledProcessError) as cm:
            self.run_sandboxed([SHELL, "-c", "exit 7"], check=True)
        self.assertEqual(cm.exception.returncode, 7)
        self.assertEqual(self.run_sandboxed("echo shell", shell=True).stdout, "shell\n")
        # cordon's flags among the command's arguments are data
        r = self.run_sandboxed([SHELL, "-c", 'printf "%s|" "$@"', "sh", "--", "--network", "full", "--expose", "/"])
        self.assertEqual(r.stdout, "--|--network|full|--expose|/|")


class Failures(Layout):
    def test_refusal_is_a_cordon_error(self):
        with self.assertRaises(cordon.CordonError) as cm:
            self.run_sandboxed([SHELL, "-c", f"touch {self.marker}"], cwd="/tmp")
        e = cm.exception
        self.assertIn("working directory", e.message)
        self.assertEqual((e.code, e.record["error"]["code"]), (125, 125))
        self.assertFalse(os.path.exists(self.marker), "the command ran")
        p = cordon.Popen([SHELL, "-c", f"touch {self.marker}"], **{**self.opts, "cwd": "/tmp"},
                         stderr=subprocess.DEVNULL)
        self.assertRaises(cordon.CordonError, p.wait)
        self.assertEqual(p.wait(), 125)  # raised once
        with self.assertRaises(cordon.CordonError) as cm:
            self.run_sandboxed([SHELL, "-c", f"touch {self.marker}"], network="bogus")
        self.assertIn("isolation.network", cm.exception.message)
        self.assertEqual(cm.exception.key, "isolation.network")
        self.assertFalse(os.path.exists(self.marker), "the command ran")

    def test_missing_binary_is_an_error(self):
        saved = os.environ["CORDON_BIN"], os.environ["PATH"]
        self.addCleanup(os.environ.update, CORDON_BIN=saved[0], PATH=saved[1])
        os.environ["CORDON_BIN"] = os.path.join(self.dir, "no-such-cordon")
        with self.assertRaises(cordon.CordonNotFound):
            self.run_sandboxed([SHELL, "-c", f"touch {self.marker}"])
        del os.environ["CORDON_BIN"]
        os.environ["PATH"] = self.data
        with self.assertRaises(cordon.CordonNotFound):
            cordon.Popen([SHELL, "-c", f"touch {self.marker}"], **self.opts)
        os.environ["PATH"] = saved[1]
        with self.assertRaises(cordon.CordonNotFound):
            asyncio.run(cordon.create_subprocess_exec(SHELL, "-c", f"touch {self.marker}", **self.opts))
        self.assertFalse(os.path.exists(self.marker), "the command ran")

    def test_timeout_kills_the_tree(self):
        def tree(runner, **kw):
            marker = str(800000 + random.randrange(100000))
            with self.assertRaises(subprocess.TimeoutExpired):
                runner([SHELL, "-c", "sleep $0 & sleep $0; wait", marker], timeout=1.0, **kw)
            return marker

        marker = tree(subprocess.run, cwd=self.ws)
        left = processes("sleep", marker)
        for pid in left:
            os.kill(pid, 9)
        self.assertTrue(left, "control: unsandboxed, the killed shell's children live on")
        marker = tree(cordon.run, **self.opts)
        self.assertTrue(eventually(lambda: not processes("sleep", marker)), "the sandbox's processes live on")


class Asyncio(Layout):
    def test_create_subprocess_exec(self):
        async def main():
            p = await cordon.create_subprocess_exec(SHELL, "-c", "cat; echo $HOME; exit 3", stdin=subprocess.PIPE,
                                                    stdout=subprocess.PIPE, **self.opts)
            out, _ = await p.communicate(b"from stdin\n")
            home = os.path.join(self.home, "runtime-user-env", "home")
            self.assertEqual((out.decode(), p.returncode), (f"from stdin\n{home}\n", 3))
            p = await cordon.create_subprocess_exec(SHELL, "-c", f"touch {self.marker}", stderr=subprocess.DEVNULL,
                                                    **{**self.opts, "cwd": "/tmp"})
            with self.assertRaises(cordon.CordonError):
                await p.wait()
            marker = str(800000 + random.randrange(100000))
            p = await cordon.create_subprocess_exec(SHELL, "-c", "sleep $0 & sleep $0; wait", marker, **self.opts)
            self.assertTrue(eventually(lambda: len(processes("sleep", marker)) == 2))
            p.kill()
            await p.wait()
            return marker

        marker = asyncio.run(main())
        self.assertFalse(os.path.exists(self.marker), "the refused command ran")
        self.assertTrue(eventually(lambda: not processes("sleep", marker)), "after kill() the sandbox lives on")


if __name__ == "__main__":
    unittest.main()
