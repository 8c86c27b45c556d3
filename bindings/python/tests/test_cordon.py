"""The cordon package against the real cordon ($CORDON_BIN, else `cordon`
on PATH); the MCP test drives the real @modelcontextprotocol/server-filesystem
with the official SDK client ($CORDON_TEST_MCP_SERVER, $CORDON_TEST_MCP_MODULES,
$CORDON_TEST_MCP_CLIENT: tests/mcp; skipped without them, a failure under
CI=true). tests/integration/bindings.sh runs them with a cordon on PATH, as
root and as an unprivileged user.

What a caller relies on, with a negative control (the same command through
plain subprocess) where the property is isolation's: an exposed file is
readable and /etc/shadow is not there; OPENAI_API_KEY of the caller does not
reach the command, HOME is the instance's; the command's status (its own
125, a signal) reaches the caller and check=True keeps its meaning; cordon's
refusal is a CordonError and nothing ran; a missing binary is an error and
nothing ran; a timeout or kill() takes the whole tree; asyncio the same."""

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import cordon

SHELL = "/bin/sh"
EXISTS = [SHELL, "-c", 'if [ -e "$0" ]; then echo present; else echo absent; fi']
FDS = [SHELL, "-c", 'for n in "$@"; do [ -e /dev/fd/$n ] && echo $n; done; true', "sh"]
PLANT = ('git init -q new && printf "#!/bin/sh\\necho ran\\n" >new/.git/hooks/post-checkout && '
         'chmod +x new/.git/hooks/post-checkout && trap "" TERM && exec sleep 60')


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
        cordon.find_binary()  # $CORDON_BIN, else PATH
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
    def test_reads_the_exposed_file_not_shadow(self):
        control = subprocess.run([*EXISTS, "/etc/shadow"], capture_output=True, text=True)
        self.assertEqual(control.stdout, "present\n", "control: unsandboxed, /etc/shadow is there")
        r = self.run_sandboxed(["cat", self.exposed])
        self.assertEqual((r.returncode, r.stdout), (0, "exposed content\n"))
        self.assertEqual(self.run_sandboxed([*EXISTS, "/etc/shadow"]).stdout, "absent\n")

    def test_denied_names_what_was_refused(self):
        hidden = os.path.join(self.dir, "hidden.txt")
        with open(hidden, "w") as f:
            f.write("hidden\n")
        control = subprocess.run(["cat", hidden], capture_output=True, text=True)
        self.assertEqual(control.stdout, "hidden\n", "control: unsandboxed, the file is readable")
        r = self.run_sandboxed(["cat", hidden])
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.denied, [], "an ordinary run does not observe reads")
        r = self.run_sandboxed(["cat", hidden], explain=True)
        self.assertNotEqual(r.returncode, 0, "explain never allows it")
        self.assertIn({"kind": "read", "target": hidden, "rule": "not in the sandbox's view", "host_has": True,
                       "suggestion": f"--expose {hidden}", "seen_by": "explain"}, r.denied)
        self.assertTrue(cordon.config(explain=True)["isolation"]["explain"])

    def test_config_and_report_descriptors_stay_outside(self):
        with open("/dev/null") as f:
            control = subprocess.run([*FDS, str(f.fileno())], pass_fds=(f.fileno(),), capture_output=True, text=True)
            self.assertEqual(control.stdout, f"{f.fileno()}\n", "control: an inherited descriptor is seen")
        self.assertEqual(self.run_sandboxed([*FDS, *map(str, range(3, 12))]).stdout, "")

    def test_expose_at_a_target_and_read_write(self):
        r = self.run_sandboxed(["cat", "/opt/data/exposed.txt"], expose=[(self.data, "/opt/data", "ro")])
        self.assertEqual(r.stdout, "exposed content\n")
        new = os.path.join(self.data, "new")
        r = self.run_sandboxed(["touch", new], expose=[(self.data, None, "rw")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(new))
        r = self.run_sandboxed(["touch", new + "2"])
        self.assertIn("Read-only file system", r.stderr)

    def test_caller_secret_stays_out_and_home_is_the_instance(self):
        show = [SHELL, "-c", 'echo "key=${OPENAI_API_KEY-unset} home=$HOME"']
        os.environ["OPENAI_API_KEY"] = "sk-from-the-process"
        self.addCleanup(os.environ.pop, "OPENAI_API_KEY")
        env = {**os.environ, "FOO": "1"}
        control = subprocess.run(show, env=env, capture_output=True, text=True)
        self.assertIn("key=sk-from-the-process", control.stdout, "control: unsandboxed, the key is seen")
        home = os.path.join(self.home, "runtime-user-env", "home")
        self.assertEqual(self.run_sandboxed(show, env=env).stdout, f"key=unset home={home}\n")
        self.assertTrue(self.run_sandboxed(show).stdout.startswith("key=unset "))
        # one variable on purpose
        r = self.run_sandboxed(show, pass_env=["OPENAI_API_KEY"])
        self.assertTrue(r.stdout.startswith("key=sk-from-the-process "), r)

    def test_exit_status_reaches_the_caller(self):
        for script, want in (("exit 0", 0), ("exit 7", 7), ("exit 125", 125), ("exit 143", 143),
                             ("kill -TERM $$", -15), ("kill -KILL $$", -9)):
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
        self.assertTrue(cm.exception.message.startswith("network: "), cm.exception.message)
        self.assertEqual(cm.exception.key, "isolation.network")
        self.assertFalse(os.path.exists(self.marker), "the command ran")

    def test_missing_binary_is_an_error(self):
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ["CORDON_BIN"] = os.path.join(self.dir, "no-such-cordon")
        with self.assertRaises(cordon.CordonNotFound):
            self.run_sandboxed([SHELL, "-c", f"touch {self.marker}"])
        os.environ.pop("CORDON_BIN")
        os.environ["PATH"] = self.data
        with self.assertRaises(cordon.CordonNotFound):
            cordon.Popen([SHELL, "-c", f"touch {self.marker}"], **self.opts)
        os.environ["PATH"] = saved["PATH"]
        os.environ["CORDON_BIN"] = os.path.join(self.dir, "no-such-cordon")
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



def quarantined(git_dir):
    """(the planted hook is live, something was set aside)"""
    hook = os.path.join(git_dir, "hooks", "post-checkout")
    return os.access(hook, os.X_OK), any("cordon-quarantine" in n for n in os.listdir(git_dir))


class FailsClosed(Layout):
    def test_a_layer_cannot_turn_isolation_off(self):
        """No option runs a command unsandboxed: a profile (or any layer
        cordon finds) that says enabled: false is overridden by the
        package's own layer."""
        profiles = os.path.join(self.dir, "profiles")
        os.mkdir(profiles)
        with open(os.path.join(profiles, "off.json"), "w") as f:
            f.write('{"isolation": {"enabled": false}}')
        os.environ["CORDON_PROFILE_PATH"] = profiles
        self.addCleanup(os.environ.pop, "CORDON_PROFILE_PATH")
        control = subprocess.run([cordon.find_binary(), "run", "--profile", "off", "--", *EXISTS, "/etc/shadow"],
                                 cwd=self.ws, capture_output=True, text=True)
        self.assertEqual(control.stdout, "present\n", "control: the profile turns isolation off in cordon")
        r = self.run_sandboxed([*EXISTS, "/etc/shadow"], profiles=["off"])
        self.assertEqual((r.returncode, r.stdout), (0, "absent\n"), r.stderr)


class CallersTerms(Layout):
    def refusal(self, **options):
        with self.assertRaises(cordon.CordonError) as cm:
            self.run_sandboxed([SHELL, "-c", f"touch {self.marker}"], **options)
        self.assertNotIn("/dev/fd", cm.exception.message)
        self.assertFalse(os.path.exists(self.marker), "the command ran")
        return cm.exception

    def test_refusals_name_the_option(self):
        missing = os.path.join(self.dir, "missing")
        e = self.refusal(expose=[(self.data, None, "ro"), missing])
        self.assertTrue(e.message.startswith(f"expose[1].source: does not exist: {missing}"), e.message)
        self.assertEqual((e.option, e.key), ("expose[1].source", "isolation.expose_paths[1].source"))
        self.assertEqual(self.refusal(network="bogus").option, "network")
        self.assertTrue(self.refusal(limits={"pids": -1}).message.startswith("limits['pids']: "))
        self.assertTrue(self.refusal(workspace="/etc").message.startswith("workspace: "))
        self.assertTrue(self.refusal(env_policy={"inherit": "some"}).message.startswith("env_policy['inherit']: "))
        self.assertTrue(self.refusal(pass_env=["A=B"]).message.startswith("pass_env[0]: "))
        # the same through asyncio
        async def main():
            p = await cordon.create_subprocess_exec(SHELL, "-c", "true", **{**self.opts, "network": "bogus"},
                                                    stderr=subprocess.DEVNULL)
            with self.assertRaises(cordon.CordonError) as cm:
                await p.wait()
            return cm.exception
        self.assertEqual(asyncio.run(main()).option, "network")


class Environment(Layout):
    def test_env_is_the_commands(self):
        """env is the command's environment, as in subprocess: what the
        caller put there reaches it; what came from os.environ goes through
        cordon's policy (no secrets, core variables only)."""
        show = [SHELL, "-c", 'echo "foo=${FOO-unset} key=${OPENAI_API_KEY-unset} host=${SOME_HOST_VAR-unset} '
                             'tok=${MY_TOKEN-unset}"']
        os.environ.update(OPENAI_API_KEY="sk-from-the-process", SOME_HOST_VAR="host")
        self.addCleanup(lambda: [os.environ.pop(k) for k in ("OPENAI_API_KEY", "SOME_HOST_VAR")])
        r = self.run_sandboxed(show, env={**os.environ, "FOO": "1", "MY_TOKEN": "for-this-command"})
        self.assertEqual(r.stdout, "foo=1 key=unset host=unset tok=for-this-command\n", r.stderr)
        r = self.run_sandboxed(show, env={"FOO": "only"})
        self.assertEqual(r.stdout, "foo=only key=unset host=unset tok=unset\n", r.stderr)


# long enough for PLANT to plant on a loaded machine (under ASan), then the
# timeout stops its sleep
PLANT_S = 5


class Stopping(Layout):
    def test_timeout_leaves_the_git_check_done(self):
        control = os.path.join(self.dir, "control")
        os.mkdir(control)
        with self.assertRaises(subprocess.TimeoutExpired):
            subprocess.run([SHELL, "-c", PLANT], cwd=control, timeout=PLANT_S)
        self.assertTrue(quarantined(os.path.join(control, "new", ".git"))[0], "control: the hook is planted")
        t0 = time.monotonic()
        with self.assertRaises(subprocess.TimeoutExpired):
            cordon.run([SHELL, "-c", PLANT], timeout=PLANT_S, stderr=subprocess.DEVNULL, **self.opts)
        self.assertLess(time.monotonic() - t0, PLANT_S + cordon.STOP_GRACE)
        self.assertEqual(quarantined(os.path.join(self.ws, "new", ".git")), (False, True),
                         "after the timeout the planted hook is set aside")

    def test_kill_leaves_the_git_check_done(self):
        p = cordon.Popen([SHELL, "-c", PLANT], stderr=subprocess.DEVNULL, **self.opts)
        self.assertTrue(eventually(lambda: os.path.exists(os.path.join(self.ws, "new", ".git", "hooks",
                                                                       "post-checkout"))))
        time.sleep(0.3)
        p.kill()
        self.assertEqual(p.wait(timeout=cordon.STOP_GRACE + 2), -9)  # cordon killed what ignored SIGTERM
        self.assertEqual(quarantined(os.path.join(self.ws, "new", ".git")), (False, True))

    def test_agent_death_ends_the_sandbox(self):
        agent = ("import cordon, sys, time\n"
                 "p = cordon.Popen(['/bin/sh', '-c', \"trap '' TERM; sleep $0 & exec sleep $0\", sys.argv[1]],\n"
                 "                 home=sys.argv[2], workspace=sys.argv[3], cwd=sys.argv[3],\n"
                 "                 die_with_parent=sys.argv[4] == '1')\n"
                 "print('started', flush=True)\n"
                 "time.sleep(60)\n")
        for die in (False, True):
            marker = str(800000 + random.randrange(100000))
            a = subprocess.Popen([sys.executable, "-c", agent, marker, self.home, self.ws, "1" if die else "0"],
                                 stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
            self.assertTrue(eventually(lambda: len(processes("sleep", marker)) == 2, 10), "the sandbox started")
            a.kill()
            a.wait()
            if not die:
                time.sleep(1)
                left = processes("sleep", marker)
                for pid in left:
                    os.kill(pid, 9)
                self.assertEqual(len(left), 2, "control: die_with_parent=False, the sandbox outlives the agent")
            else:
                self.assertTrue(eventually(lambda: not processes("sleep", marker), 10),
                                "the SIGKILLed agent's sandbox lives on")


class MCP(Layout):
    def test_live_grant_lets_a_waiting_client_through(self):
        import http.server
        import threading
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Quiet)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        url = f"http://127.0.0.2:{server.server_address[1]}/"
        script = 'for i in 1 2 3; do curl -s -o /dev/null -w "%{http_code}\\n" "$0"; read x; done'
        p = cordon.Popen([SHELL, "-c", script, url], allow_net=["example.org"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         **{k: v for k, v in self.opts.items()})
        got = [p.stdout.readline().strip()]
        self.assertEqual(p.allow_net(f"127.0.0.2:{server.server_address[1]}"), f"127.0.0.2:{server.server_address[1]}")
        p.stdin.write("\n"); p.stdin.flush()
        got.append(p.stdout.readline().strip())
        p.remove_net(f"127.0.0.2:{server.server_address[1]}")
        with self.assertRaises(cordon.CordonError):
            p.remove_net("not-there.example")
        p.stdin.write("\n"); p.stdin.flush()
        got.append(p.stdout.readline().strip())
        p.stdin.write("\n"); p.stdin.flush()
        p.wait()
        p.stdin.close()
        p.stdout.close()
        self.assertEqual(got, ["403", "200", "403"], "denied, granted, removed: without a restart")
        q = cordon.Popen([SHELL, "-c", "true"], **self.opts)
        with self.assertRaises(cordon.CordonError):
            q.allow_net("example.org")  # no proxy: nothing to change
        q.wait()

    def test_stdio_server_parameters(self):
        import cordon.mcp
        mods, server = os.environ.get("CORDON_TEST_MCP_MODULES"), os.environ.get("CORDON_TEST_MCP_SERVER")
        client = os.environ.get("CORDON_TEST_MCP_CLIENT")
        if not (mods and server and client):
            if os.environ.get("CI") == "true":
                self.fail("set CORDON_TEST_MCP_MODULES, _SERVER and _CLIENT (tests/integration/bindings.sh does)")
            self.skipTest("set CORDON_TEST_MCP_MODULES, _SERVER and _CLIENT (tests/integration/bindings.sh does)")
        with open(os.path.join(self.ws, "hello.txt"), "w") as f:
            f.write("inside the workspace\n")
        # a refusal before any connection, in this package's terms
        with self.assertRaises(cordon.CordonError) as cm:
            cordon.mcp.stdio_server_config("node", [server, self.ws], cwd=self.ws, home=self.home, workspace=self.ws,
                                           expose=[os.path.join(self.dir, "missing")])
        self.assertTrue(cm.exception.message.startswith("expose[0].source: does not exist"), cm.exception.message)
        params = cordon.mcp.stdio_server_config("node", [server, self.ws], env={"MCP_TEST_TOKEN": "tok"}, cwd=self.ws,
                                                home=self.home, workspace=self.ws, expose=[mods])
        self.assertNotIn("tok", " ".join(params["args"]))
        try:
            import mcp.client.stdio  # noqa: F401  (the Python SDK, where installed)
        except ImportError:
            with self.assertRaises(ImportError):
                cordon.mcp.stdio_server_parameters("node", [server, self.ws], cwd=self.ws, workspace=self.ws)
        else:
            p = cordon.mcp.stdio_server_parameters("node", [server, self.ws], cwd=self.ws, home=self.home,
                                                   workspace=self.ws, expose=[mods])
            self.assertEqual((p.command, p.args), (params["command"], params["args"]))
        # the parameters, as a client's config names the server: a real session (the Node SDK's client)
        conf = os.path.join(self.dir, "mcp.json")
        with open(conf, "w") as f:
            json.dump({"mcpServers": {"fs": {k: v for k, v in params.items() if v is not None}}}, f)
        secret = os.path.join(self.dir, "secret.txt")
        with open(secret, "w") as f:
            f.write("host secret\n")
        r = subprocess.run(["node", client, "--config", conf, "--server", "fs", "--read",
                            os.path.join(self.ws, "hello.txt"), "--read", secret], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('server "secure-filesystem-server"', r.stdout)
        self.assertIn('ok "inside the workspace\\n"', r.stdout)
        self.assertNotIn("host secret", r.stdout)


if __name__ == "__main__":
    unittest.main()
