#!/usr/bin/python3
"""gitgen: plants what git 2.39 would run, inside cordon, then runs the host's git.

For each case of a grammar (WHERE x WHAT x HOW; tests/escape/git-generator.md
derives it from git's source, with the lines each part follows) the plant runs three times on a fresh copy of
the user's state: by plain sh as the test user (the CONTROL), and inside
`cordon run --backend linux|landlock --workspace WS -C WS -- sh -c PLANT`.
Then the host's git runs as the test user on a terminal (status, log, diff,
commit, fetch, push, checkout, submodule update, rebase --continue, worktree
list, as the case needs) with GIT_TRACE2_EVENT recording every child process.
The control must run the planted program (it touches a marker); a cordon
run passes when the marker stays absent and git started nothing but git's
own programs. TAP on stdout.

Environment (set by tests/escape/git-generator.sh):
  GG_CORDON GG_SCRATCH GG_HOME GG_PROJ TEST_AS   the cordon binary, scratch dir, HOME, cwd
  GITGEN_FULL=1     every (where, item) pair and (where, class, how) triple; =all every valid case
  GITGEN_ONLY=RE    only cases whose name matches RE
  GITGEN_JOBS=N     cases run at once (default 4)
  GITGEN_BACKENDS   "linux landlock" (default)
  GITGEN_LIST=1     print the cases and exit
  GITGEN_KEEP=1     keep the directories of failing cases
  GITGEN_VERBOSE=1  a failure's diagnostics add the plant and the terminal (GITGEN_DIAG=N lines,
                    GITGEN_DIAG_ALL=1 for passing lines too)
  GITGEN_DIR=DIR    where the cases' directories are made (the wrapper: a tmpfs at $T/gg)
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CORDON = os.environ.get("GG_CORDON", "")
SCRATCH = os.environ.get("GG_SCRATCH", "")
HOME = os.environ.get("GG_HOME", "")
PROJ = os.environ.get("GG_PROJ", "")
AS_USER = os.environ.get("TEST_AS", "root") == "user"
UID = GID = 65534
FULL = os.environ.get("GITGEN_FULL", "")
ONLY = os.environ.get("GITGEN_ONLY", "")
JOBS = int(os.environ.get("GITGEN_JOBS", "4"))
BACKENDS = os.environ.get("GITGEN_BACKENDS", "linux landlock").split()
KEEP = os.environ.get("GITGEN_KEEP", "")
SYSPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DETACH_DELAY = 0.2   # the detached planter's sleep
DETACH_WAIT = 0.5    # the host's git waits at least this long after the run ended, and twice as
                     # long as the control's detached planter took (it touches mk/done: not
                     # writable inside)

# ---------------------------------------------------------------------------------------------
# The grammar.  WHERE: a place git reads from (location x shape); WHAT: a kind of file and an
# item (a key that runs a program, a hook, an exec line); HOW: the way it gets there.

# Locations: the user's state before the runs (a template), the workspace, and where the
# host's git runs.  For new shapes `loc` is the directory the command makes a repository of.
LOCATIONS = {
    # name: (template, workspace rel to V, own dirs or None)
    "root": ("root", "ws", dict(G=".git", CG=".git", wt=".", origin="origin.git", branch="main")),
    "nested": ("nested", "ws", dict(G="sub/.git", CG="sub/.git", wt="sub", origin="origin.git", branch="main")),
    "deepnested": ("deepnested", "ws", dict(G="x/y/z/w/sub/.git", CG="x/y/z/w/sub/.git", wt="x/y/z/w/sub",
                                            origin="origin.git", branch="main")),
    "gitfile": ("gitfile", "ws", dict(G=".gitdirs/gf", CG=".gitdirs/gf", wt="gf", origin="origin.git", branch="main")),
    "module-m": ("mods", "ws", dict(G=".git/modules/m", CG=".git/modules/m", wt="m", origin="subsrc",
                                    branch=None, name="m")),
    "module-pq": ("mods", "ws", dict(G=".git/modules/p/q", CG=".git/modules/p/q", wt="mods/pq", origin="subsrc",
                                     branch=None, name="p/q")),
    "module-6": ("mods", "ws", dict(G=".git/modules/a/b/c/d/e/f", CG=".git/modules/a/b/c/d/e/f", wt="mods/six",
                                    origin="subsrc", branch=None, name="a/b/c/d/e/f")),
    "module-8": ("mods", "ws", dict(G=".git/modules/s/t/u/v/w/x/y/z", CG=".git/modules/s/t/u/v/w/x/y/z",
                                    wt="mods/eight", origin="subsrc", branch=None, name="s/t/u/v/w/x/y/z")),
    "worktree": ("worktrees", "ws", dict(G=".git/worktrees/wt", CG=".git", wt="wt", origin="origin.git",
                                         branch="wtb")),
    "worktree-out": ("worktrees", "ws", dict(G=".git/worktrees/wo", CG=".git", wt="../wo", origin="origin.git",
                                             branch="wob")),
    # where the command makes a repository of its own
    "inparent": ("inparent", "R/ws", None),
    "subdir": ("root", "ws", None),
    "deepdir": ("root", "ws", None),
    "adopt-1": ("root", "ws", None),
    "adopt-6": ("root", "ws", None),
}
NEW_LOC = {"inparent": ".", "subdir": "src", "deepdir": "src/d1/d2/d3/d4/d5/d6/d7"}
ADOPT = {"adopt-1": ("n", "sm"), "adopt-6": ("x/y/z/u/v/w", "deep/sm")}

WHERES = []  # (name, location, shape)
for _l in ("root", "nested", "deepnested", "gitfile", "module-m", "module-pq", "module-6", "module-8",
           "worktree", "worktree-out"):
    WHERES.append((_l + "/own", _l, "own"))
for _l in ("root", "nested", "module-pq", "worktree"):
    WHERES.append((_l + "/commondir", _l, "commondir"))
for _l, _shapes in (("inparent", ("dotgit", "gitfile", "symlink", "bare", "headcommon")),
                    ("subdir", ("dotgit", "gitfile", "symlink", "bare", "headcommon")),
                    ("deepdir", ("dotgit", "bare", "headcommon"))):
    for _s in _shapes:
        WHERES.append((_l + "/" + _s, _l, _s))
for _l in ADOPT:
    WHERES.append((_l + "/new", _l, "adopt"))
WHERE_BY_NAME = {w[0]: w for w in WHERES}

CONFIG_KINDS = ["config", "config.worktree", "inc-abs", "inc-rel", "if-gitdir", "if-gitdir-i",
                "if-onbranch", "if-hasconfig"]
KINDS = CONFIG_KINDS + ["hooks", "husky", "sequencer"]

# Keys that make git run a program: config text (P: the program), a url the remote gets
# (insteadOf), the host's commands that run it, whether they need a work tree.  The drivers
# (diff "gg", filter "gg") are selected by .gitattributes in the work tree (by
# core.attributesFile where there is none in the workspace).
KEYS = {
    "fsmonitor": ("[core]\n\tfsmonitor = {P}\n", None, ["status"], True),
    "pager": ("[core]\n\tpager = {P}\n", None, ["log"], False),
    "pager.log": ("[pager]\n\tlog = {P}\n", None, ["log"], False),
    "alias": ("[alias]\n\tst = !{P}\n", None, ["st"], False),
    "editor": ("[core]\n\teditor = {P}\n", None, ["commit-e"], True),
    "sshCommand": ("[core]\n\tsshCommand = {P}\n", "ssh://gg.invalid/x", ["fetch"], False),
    "gitProxy": ("[core]\n\tgitProxy = {P}\n", "git://gg.invalid/x", ["fetch"], False),
    "uploadpack": ("[remote \"origin\"]\n\tuploadpack = {P}\n", None, ["fetch"], False),
    "receivepack": ("[remote \"origin\"]\n\treceivepack = {P}\n", None, ["push"], False),
    "ext-url": ("[protocol \"ext\"]\n\tallow = always\n", "ext::{P}", ["fetch"], False),
    "diff.external": ("[diff]\n\texternal = {P}\n", None, ["diff2"], False),
    "textconv": ("[diff \"gg\"]\n\ttextconv = {P}\n", None, ["diff2"], False),
    "diff.command": ("[diff \"gg\"]\n\tcommand = {P}\n", None, ["diff2"], False),
    "filter.clean": ("[filter \"gg\"]\n\tclean = {P}\n", None, ["status"], True),
    "filter.smudge": ("[filter \"gg\"]\n\tsmudge = {P}\n", None,
                      ["checkout-path"], True),
    "filter.process": ("[filter \"gg\"]\n\tprocess = {P}\n", None,
                       ["status", "checkout-path"], True),
    "credential.helper": ("[credential]\n\thelper = !{P}\n", "{HTTP}", ["fetch"], False),
    "askPass": ("[core]\n\taskPass = {P}\n", "{HTTP}", ["fetch"], False),
    "gpg.program": ("[gpg]\n\tprogram = {P}\n[commit]\n\tgpgSign = true\n", None, ["commit"], True),
    "hooksPath": ("[core]\n\thooksPath = {HP}\n", None, ["commit"], True),
    "submodule.update": ("[submodule \"{SM}\"]\n\tupdate = !{P}\n", None, ["subupdate"], True),
}
ATTRS = {"textconv": "diff", "diff.command": "diff", "filter.clean": "filter", "filter.smudge": "filter",
         "filter.process": "filter"}
# Hooks: the host's commands that run each (with a work tree, without one)
HOOKS = {
    "pre-commit": (["commit"], None),
    "prepare-commit-msg": (["commit"], None),
    "commit-msg": (["commit"], None),
    "post-commit": (["commit"], None),
    "post-checkout": (["checkout-b"], None),
    "reference-transaction": (["commit"], ["fetch"]),
    "pre-push": (["push"], ["push"]),
    "post-index-change": (["status"], None),
    "post-rewrite": (["amend"], None),
}
HOWS = ["fresh", "inplace", "renamed", "dirrenamed", "rodir", "rofile", "qnames", "detached", "tworun", "killed",
        "killed-next"]
KILLED = ("killed", "killed-next")

TRIGGERS = {
    "status": "git status",
    "log": "git log -1",
    "st": "git st",
    "commit": "git commit -q --allow-empty -m host",
    "commit-e": "git commit -q --allow-empty",
    "fetch": "git fetch -q origin",
    "push": "git push -q origin HEAD:refs/heads/ggpush",
    "diff2": "git diff HEAD~1 HEAD --",
    "checkout-b": "git checkout -q -b ggb",
    "checkout-path": "git checkout -q HEAD~1 -- :/{TRACKED}",
    "amend": "git commit -q --amend --allow-empty -m amend",
    "rebase": "git rebase --continue",
    "subupdate": "git -C {WS} submodule update",
    "wtlist": "git worktree list",
}


# the host's commands that must write into the git directory before they run anything
WRITERS = {"commit", "commit-e", "amend", "checkout-b", "checkout-path", "rebase", "subupdate", "fetch"}


def items_of(kind):
    if kind in CONFIG_KINDS:
        return list(KEYS)
    if kind in ("hooks", "husky"):
        return list(HOOKS)
    return ["exec"]


class Where:
    """The resolved WHERE: paths relative to the workspace (WS) after the plant."""

    def __init__(self, name):
        self.name, self.location, self.shape = WHERE_BY_NAME[name]
        self.tpl, self.ws, own = LOCATIONS[self.location]
        self.own = self.shape == "own"
        self.sm = None
        if own:  # the user's repository (the command may add a commondir)
            self.G, self.CG, self.wt = own["G"], own["CG"], own["wt"]
            self.origin_rel, self.branch = own["origin"], own["branch"]
            self.sm = own.get("name")
            self.tracked = "f"
            if self.shape == "commondir":
                self.CG = ".ggcache/C"
            self.cwd = self.wt
            self.has_wt = True
        elif self.shape == "adopt":
            name, path = ADOPT[self.location]
            self.adopt = (name, path)
            self.G = self.CG = ".git/modules/" + name
            self.wt, self.cwd = path, "."
            self.tracked = "ggf"
            self.has_wt = True
        else:
            loc = NEW_LOC[self.location]
            self.loc = loc
            self.wt = self.cwd = loc
            self.tracked = "ggf"
            self.has_wt = self.shape != "headcommon"
            if self.shape == "dotgit":
                self.G = self.CG = jn(loc, ".git")
            elif self.shape in ("gitfile", "symlink"):
                self.G = self.CG = ".ggstore/g"
            elif self.shape == "bare":
                self.G = self.CG = loc
            elif self.shape == "headcommon":
                self.G, self.CG = loc, ".ggcache/E"
        if not own:
            self.origin_rel, self.branch = "origin.git", "main"
        self.husky_ok = self.own and not self.wt.startswith("..")


def jn(a, b):
    return os.path.normpath(os.path.join(a, b))


def needs_wt(kind, item):
    if kind in ("husky", "sequencer"):
        return True
    if kind == "hooks":
        return HOOKS[item][1] is None
    return KEYS[item][3]


def valid(w, kind, item, how):
    wh = WHERE_OBJ[w]
    if item not in items_of(kind):
        return False
    if needs_wt(kind, item) and not wh.has_wt:
        return False
    if kind == "husky" and not wh.husky_ok:
        return False
    if item == "submodule.update" and not (wh.own and wh.sm and kind == "config"):
        return False
    if item == "alias" and kind in ("config.worktree", "if-onbranch"):
        return False  # aliases are read before setup: no config.worktree, no branch yet
    if how in ("dirrenamed", "rodir"):
        c = Case((w, kind, item, how))
        p = c.paths("/V")
        D = os.path.dirname(c.target(p)[0])
        if how == "dirrenamed" and D == p["WS"]:  # the directory holding F is renamed: never the workspace
            return False
        # a git directory made read-only: a user's git cannot write it (commit, checkout, rebase, fetch and
        # submodule update --init, which writes the submodule's config, fail before they run
        # anything; root's can, but the cases are the same for both)
        if how == "rodir" and D in (p["G"], p["CG"], jn(p["G"], "rebase-merge")) and \
                (set(c.trigger_names()) & WRITERS or wh.shape == "adopt"):
            return False
    if kind == "if-onbranch" and wh.shape == "adopt":
        return False  # a submodule update leaves HEAD detached

    return True


WHERE_OBJ = {w[0]: Where(w[0]) for w in WHERES}


# the host's commands by family (the default selection pairs every WHERE with every family)
FAMILY = {"commit": "commit", "commit-e": "commit", "amend": "commit", "checkout-b": "checkout",
          "checkout-path": "checkout", "fetch": "remote", "push": "remote", "status": "status", "log": "log",
          "st": "log", "diff2": "diff", "subupdate": "subupdate", "rebase": "rebase"}


def item_class(kind, item):
    """An item's class: hook or key, and the family of the host's command that runs it."""
    if kind == "sequencer":
        return "seq"
    if kind in ("hooks", "husky"):
        return "hook:" + FAMILY[HOOKS[item][0][0]]
    return "key:" + FAMILY[KEYS[item][2][0]]


def all_valid():
    for w, _, _ in WHERES:
        for k in KINDS:
            for i in items_of(k):
                for h in HOWS:
                    if valid(w, k, i, h):
                        yield (w, k, i, h)


def select_cases():
    """Deterministic covering selection: every valid pair of (where, kind), (where, trigger
    class), (where, how), (kind, item), (kind, how), (item, how) in some case (GITGEN_FULL=1:
    every (where, item) pair and (where, class, how) triple; GITGEN_FULL=all: every case)."""
    pool = list(all_valid())
    if FULL == "all":
        return pool

    def feats(t):
        w, k, i, h = t
        c = item_class(k, i)
        f = [("wk", w, k), ("wc", w, c), ("wh", w, h), ("ki", k, i), ("kh", k, h), ("ih", i, h)]
        if FULL:
            f += [("wi", w, i), ("wch", w, c, h)]
        return f

    index = {}
    for t in pool:
        for f in feats(t):
            index.setdefault(f, []).append(t)
    uncovered = set(index)
    chosen = []
    for f in sorted(index):
        if f not in uncovered:
            continue
        best = max(index[f], key=lambda t: sum(1 for g in feats(t) if g in uncovered))
        chosen.append(best)
        uncovered.difference_update(feats(best))
    order = {t: n for n, t in enumerate(pool)}
    return sorted(set(chosen), key=order.get)


def case_name(t):
    w, k, i, h = t
    return "%s %s:%s %s" % (w, k, i, h)


# ---------------------------------------------------------------------------------------------
# Running things as the test user.

def user_kw():
    return dict(user=UID, group=GID, extra_groups=[]) if AS_USER else {}


def host_env(extra=None):
    e = {"HOME": HOME, "PATH": SYSPATH, "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C", "TERM": "xterm"}
    if extra:
        e.update(extra)
    return e


def run_user(args, cwd, env=None, timeout=60, stdin=subprocess.DEVNULL):
    try:
        return subprocess.run(args, cwd=cwd, env=env or host_env(), stdin=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, **user_kw())
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, 124, (e.output or b"") + b"\n(timed out)")


def chown_tree(path):
    if not AS_USER:
        return
    for dirpath, dirnames, filenames in os.walk(path):
        os.lchown(dirpath, UID, GID)
        for n in filenames + dirnames:
            os.lchown(os.path.join(dirpath, n), UID, GID)


def sq(s):
    """A shell single-quoted word."""
    return "'" + s.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------------------------------------
# Templates: the user's state, made once by the host's git, copied for every variant.

TPL_SETUP = r'''
set -e
mkrepo() { # DIR: two commits of f (1, then 2) and a tracked src/ tree
    git init -q "$1"
    ( cd "$1" && echo 1 >f && mkdir -p src/d1/d2/d3/d4/d5/d6/d7 && echo a >src/a &&
      echo b >src/d1/d2/d3/d4/d5/d6/d7/b && git add -A && git commit -qm one && echo 2 >f && git commit -qam two )
}
remote() { git -C "$1" remote add origin "$V/origin.git" && git -C "$1" fetch -q origin; }
V=$PWD
case $1 in
root)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws ;;
nested)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws; mkrepo ws/sub; remote ws/sub ;;
deepnested)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws; mkdir -p ws/x/y/z/w; mkrepo ws/x/y/z/w/sub
    remote ws/x/y/z/w/sub ;;
gitfile)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws
    mkdir -p ws/.gitdirs; git init -q --separate-git-dir="$V/ws/.gitdirs/gf" ws/gf
    echo "gitdir: ../.gitdirs/gf" >ws/gf/.git
    ( cd ws/gf && echo 1 >f && git add f && git commit -qm one && echo 2 >f && git commit -qam two )
    remote ws/gf ;;
mods)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws; mkrepo subsrc
    git -C ws submodule add -q "$V/subsrc" m
    git -C ws submodule add -q --name p/q "$V/subsrc" mods/pq
    git -C ws submodule add -q --name a/b/c/d/e/f "$V/subsrc" mods/six
    git -C ws submodule add -q --name s/t/u/v/w/x/y/z "$V/subsrc" mods/eight
    git -C ws commit -qm subs ;;
worktrees)
    mkrepo ws; git clone -q --bare ws origin.git; remote ws
    git -C ws worktree add -q wt -b wtb; git -C ws worktree add -q "$V/wo" -b wob ;;
inparent)
    mkrepo R; mkdir -p R/ws/src; echo 1 >R/ws/f; echo a >R/ws/src/a
    git -C R add -A; git -C R commit -qm ws; git clone -q --bare R origin.git; remote R ;;
esac
mkdir -p out mk home elsewhere
'''


def make_template(root, name):
    d = os.path.join(root, "tpl-" + name)
    os.mkdir(d)
    chown_tree(d)
    r = run_user(["sh", "-c", TPL_SETUP, "sh", name], cwd=d)
    if r.returncode != 0:
        raise RuntimeError("template %s: %s" % (name, r.stdout.decode(errors="replace")))
    return d


FIXUP_NAMES = {"config", "gitdir", ".git", ".gitmodules"}  # where the host's git wrote absolute paths
FIXUP_SKIP = {"objects", "hooks", "logs", "refs", "info"}


def copy_template(tpl, dst):
    """cp -a, then the template's absolute paths made the copy's."""
    subprocess.run(["cp", "-a", tpl, dst], check=True)
    old, new = tpl.encode(), dst.encode()
    for dirpath, dirnames, filenames in os.walk(dst):
        dirnames[:] = [d for d in dirnames if d not in FIXUP_SKIP]
        for n in filenames:
            if n not in FIXUP_NAMES:
                continue
            p = os.path.join(dirpath, n)
            if os.path.islink(p):
                continue
            with open(p, "rb") as f:
                data = f.read()
            if old in data:
                with open(p, "r+b") as f:  # in place: mode and owner stay
                    f.write(data.replace(old, new))
                    f.truncate()


def git_out(args, cwd):
    r = run_user(["git"] + args, cwd=cwd)
    return r.stdout.decode().strip()


# ---------------------------------------------------------------------------------------------
# A case: its files, the plant's runs, the host's commands.

BENIGN_HOOK = "#!/bin/sh\nexit 0\n"
BENIGN_INC = "[gg]\n\tbenign = true\n"


class Case:
    def __init__(self, t):
        self.t = t
        self.w, self.kind, self.item, self.how = t
        self.wh = WHERE_OBJ[self.w]
        self.name = case_name(t)

    # -- the paths of one variant -----------------------------------------------------------
    def paths(self, V):
        wh = self.wh
        WS = os.path.join(V, wh.ws)
        p = dict(V=V, WS=WS, P=jn(WS, ".ggp/prog"), A=jn(WS, ".ggp/attrs"), HP=jn(WS, ".gghooks"),
                 M=jn(V, "mk/fired"), O=jn(V, wh.origin_rel), HTTP=HTTP_URL, SM=wh.sm or "")
        p["G"], p["CG"] = jn(WS, wh.G), jn(WS, wh.CG)
        p["wt"] = jn(WS, wh.wt)
        p["cwd"] = jn(WS, wh.cwd)
        p["INC"] = jn(WS, ".ggconf/inc")
        return p

    def target(self, p):
        """F: the file the plant writes; its mode (append to a config, or replace)."""
        k, i = self.kind, self.item
        if k == "config":
            if i == "submodule.update":
                return jn(p["WS"], ".git/config"), "append"
            return jn(p["CG"], "config"), "append"
        if k == "config.worktree":
            return jn(p["G"], "config.worktree"), "append"
        if k in CONFIG_KINDS:
            return p["INC"], "append"
        if k == "hooks":
            return jn(p["CG"], "hooks/" + i), "replace"
        if k == "husky":
            return jn(p["wt"], ".husky/_/" + i), "replace"
        return jn(p["G"], "rebase-merge/git-rebase-todo"), "replace"

    def directive(self, p):
        """The config text that makes git read F (include kinds), or the extension."""
        k = self.kind
        cfg = jn(p["CG"], "config")
        if k == "config.worktree":
            return cfg, "[extensions]\n\tworktreeConfig = true\n"
        if k == "inc-abs":
            return cfg, "[include]\n\tpath = %s\n" % p["INC"]
        if k == "inc-rel":
            return cfg, "[include]\n\tpath = %s\n" % os.path.relpath(p["INC"], p["CG"])
        if k == "if-gitdir":
            return cfg, "[includeIf \"gitdir:%s/\"]\n\tpath = %s\n" % (p["V"], p["INC"])
        if k == "if-gitdir-i":
            return cfg, "[includeIf \"gitdir/i:%s/\"]\n\tpath = %s\n" % (p["V"].upper(), p["INC"])
        if k == "if-onbranch":
            return cfg, "[includeIf \"onbranch:**\"]\n\tpath = %s\n" % p["INC"]
        if k == "if-hasconfig":
            return cfg, "[includeIf \"hasconfig:remote.*.url:**\"]\n\tpath = %s\n" % p["INC"]
        if k == "husky":
            return cfg, "[core]\n\thooksPath = .husky/_\n"
        return None

    def payload(self, p):
        """The text planted into F."""
        prog = "#!/bin/sh\ntouch %s\nexit 0\n" % p["M"]
        if self.kind in ("hooks", "husky"):
            return prog
        if self.kind == "sequencer":
            return "exec %s\n" % p["P"]
        text, url, _, _ = KEYS[self.item]
        fill = dict(P=p["P"], A=p["A"], HP=p["HP"], SM=p["SM"], HTTP=p["HTTP"])
        text = text.format(**fill)
        if self.item in ATTRS and not self.attrs_in_worktree(p):
            text += "[core]\n\tattributesFile = %s\n" % p["A"]
        if url:
            text += "[url \"%s\"]\n\tinsteadOf = %s\n" % (url.format(**fill), p["O"])
        return text

    def trigger_names(self):
        k, i, wh = self.kind, self.item, self.wh
        if k == "sequencer":
            return ["rebase"]
        if k in ("hooks", "husky"):
            return HOOKS[i][0] if wh.has_wt else HOOKS[i][1]
        return KEYS[i][2]

    def triggers(self, p):
        wh = self.wh
        names = list(self.trigger_names())
        if wh.location.startswith("worktree"):
            names.append("wtlist")
        cmds = [TRIGGERS[n].format(TRACKED=wh.tracked, WS=p["WS"]) for n in names]
        if wh.shape == "adopt":  # the host's git makes the submodule's work tree first
            cmds[:0] = ["git submodule update --init -q", "cd %s" % sq(p["wt"])]
        return cmds

    # -- the user's state, before any run ----------------------------------------------------
    def user_setup(self, p):
        """What the user has (own shapes): the include directive, the extension, husky, and
        for HOW=inplace the existing file the command rewrites.  Returns the user's hooks."""
        wh = self.wh
        hooks = []
        if not wh.own:
            return hooks
        d = self.directive(p)
        if d:
            append_file(d[0], d[1])
        if self.kind == "husky":
            write_file(jn(p["wt"], ".husky/_/.gitignore"), "*\n")
        if self.how == "inplace":
            F, mode = self.target(p)
            if self.kind in ("hooks", "husky"):
                write_file(F, BENIGN_HOOK, 0o755)
                hooks.append(os.path.basename(F))
            elif self.kind == "sequencer":
                seq_state_user(p, wh)
            elif self.kind != "config":
                write_file(F, BENIGN_INC)
        return hooks

    # -- the plant ---------------------------------------------------------------------------
    def runs(self, p):
        """The plant: one or two shell scripts (each run with sh -c SCRIPT sh MARKER)."""
        wh, how = self.wh, self.how
        F, mode = self.target(p)
        D = os.path.dirname(F)
        text = self.payload(p)
        exe = mode == "replace" and self.kind != "sequencer"
        pre, post = self.prelude(p)
        side = self.plant_side_setup(p)
        aux = self.aux(p)
        prog = ["mkdir -p %s" % sq(os.path.dirname(p["P"])),
                "printf '%%s' %s >%s && chmod 755 %s" % (sq("#!/bin/sh\ntouch %s\nexit 0\n" % p["M"]),
                                                        sq(p["P"]), sq(p["P"]))]
        if self.item == "hooksPath":
            hp = jn(p["HP"], "pre-commit")
            prog += ["mkdir -p %s" % sq(p["HP"]),
                     "printf '%%s' %s >%s && chmod 755 %s" % (sq("#!/bin/sh\ntouch %s\nexit 0\n" % p["M"]),
                                                             sq(hp), sq(hp))]
        if self.kind in ("hooks", "husky"):
            prog = []
        stage = jn(p["WS"], ".ggstage")
        S = jn(stage, "f")
        mk = "mkdir -p %s" % sq(D)

        def put(path, executable=exe):
            if mode == "append":
                return "{ cat %s 2>/dev/null; printf '%%s' %s; } >%s.ggnew && mv -f %s.ggnew %s" % (
                    sq(path), sq(text), sq(path), sq(path), sq(path))
            x = " && chmod 755 %s.ggnew" % sq(path) if executable else ""
            return "printf '%%s' %s >%s.ggnew%s && mv -f %s.ggnew %s" % (sq(text), sq(path), x, sq(path), sq(path))

        def in_place():
            if mode == "append":
                return "printf '%%s' %s >>%s" % (sq(text), sq(F))
            return "printf '%%s' %s >%s" % (sq(text), sq(F))

        head = pre + side + aux
        run1, run2 = None, None
        if how == "fresh":
            run1 = head + prog + [mk, put(F)] + post
        elif how == "inplace":
            if wh.own:
                run1 = head + prog + [in_place()] + post
            else:  # the command's own repository: made with a benign file, rewritten in the next run
                run1 = head + prog + [mk, self.benign(F, mode)] + post
                run2 = [in_place()]
        elif how == "renamed":
            run1 = head + prog + ["mkdir -p %s" % sq(stage), put_to(S, F, mode, text, exe)] + post
            run2 = [mk, "mv -f %s %s" % (sq(S), sq(F))]
        elif how == "dirrenamed":
            SD = jn(stage, "d")
            run1 = head + prog + post + [
                "mkdir -p %s" % sq(stage),
                "if [ -d %s ]; then cp -a %s %s; else mkdir -p %s; fi" % (sq(D), sq(D), sq(SD), sq(SD)),
                put(jn(SD, os.path.basename(F)))]
            run2 = ["mkdir -p %s" % sq(os.path.dirname(D)),
                    "mv %s %s 2>/dev/null; mv %s %s" % (sq(D), sq(jn(stage, "old")), sq(SD), sq(D))]
        elif how == "rodir":
            run1 = head + prog + [mk, put(F)] + post + ["chmod a-w %s" % sq(D)]
        elif how == "rofile":
            run1 = head + prog + [mk, put(F), "chmod a-w %s" % sq(F)] + post
        elif how == "qnames":
            names = self.quarantine_names(p, F)
            take = "for n in %s; do [ -d \"$(dirname \"$n\")\" ] && for s in '' .1 .2 .3 .4 .5 .6 .7 .8 .9; do " \
                   ": >\"$n.cordon-quarantine$s\"; done; done; true" % " ".join(sq(n) for n in names)
            run1 = head + prog + [take, mk, put(F)] + post
        elif how in KILLED:  # planted, then cordon gets a SIGKILL (a binding's timeout): $2 = kill
            run1 = head + prog + [mk, put(F)] + post + [
                "if [ \"${2:-}\" = kill ]; then : >%s; exec sleep 60; fi" % sq(jn(p["WS"], ".ggready"))]
        elif how == "detached":
            body = head + prog + [mk, put(F)] + post
            run1 = ["setsid sh -c %s </dev/null >/dev/null 2>&1 &" %
                    sq("sleep %s; %s" % (DETACH_DELAY, script(body + [": >%s" % sq(jn(p["V"], "mk/done"))])))]
        elif how == "tworun":  # planted in run 1, made live in run 2
            hide, unhide = self.hide_head(p)
            if self.kind in ("hooks", "husky"):
                run1 = head + [mk, put(F, executable=False)] + post + hide
                run2 = ["chmod 755 %s" % sq(F)] + unhide
            elif self.kind == "sequencer":
                run1 = head + prog + [mk] + post + hide
                run2 = [put(F)] + unhide
            else:
                run1 = head + [mk, put(F)] + post + hide
                run2 = prog + unhide
        return [script(run1)] + ([script(run2)] if run2 else [])

    def benign(self, F, mode):
        if self.kind in ("hooks", "husky"):
            return "printf '%%s' %s >%s && chmod 755 %s" % (sq(BENIGN_HOOK), sq(F), sq(F))
        if self.kind == "sequencer":
            return ": >%s" % sq(F)
        if self.kind == "config":
            return "true"
        return "printf '%%s' %s >%s" % (sq(BENIGN_INC), sq(F))

    def quarantine_names(self, p, F):
        names = [F]
        for d in dict.fromkeys((p["G"], p["CG"])):
            names += [jn(d, n) for n in ("config", "config.worktree", "commondir", "hooks")]
        if not self.wh.own and self.wh.shape not in ("adopt",):
            names.append(jn(p["wt"], ".git"))
            names += [jn(p["wt"], "HEAD"), jn(p["wt"], "commondir")]
        if self.wh.shape == "adopt":
            names.append(p["G"])
        out = []
        for n in names:
            if n not in out:
                out.append(n)
        return out

    def hide_head(self, p):
        """For a repository the command makes (or a commondir it redirects): not yet one after
        run 1 (no HEAD, or no commondir), one after run 2."""
        wh = self.wh
        if wh.own and wh.shape != "commondir":
            return [], []
        if wh.shape == "commondir":
            cd = jn(p["G"], "commondir")
            return ["mv %s %s.gg" % (sq(cd), sq(cd))], ["mv %s.gg %s" % (sq(cd), sq(cd))]
        h = jn(p["G"], "HEAD")
        return ["mv %s %s.gg" % (sq(h), sq(h))], ["mv %s.gg %s" % (sq(h), sq(h))]

    def prelude(self, p):
        """Shell that makes the WHERE (a repository of the command's own, a redirected
        commondir); and what must come last (the commondir write)."""
        wh = self.wh
        WS = p["WS"]
        tmp = jn(WS, ".ggtmp")
        origin = "printf '%%s' %s >>%s" % (
            sq("[remote \"origin\"]\n\turl = %s\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" % p["O"]),
            sq(jn(p["CG"], "config")))
        pre, post = [PLANT_LIB], []
        if wh.own and wh.shape != "commondir":
            return pre, post
        if wh.shape == "commondir":
            C, own_cg = p["CG"], jn(WS, LOCATIONS[wh.location][2]["CG"])
            pre += ["mkdir -p %s/objects/info %s/hooks" % (sq(C), sq(C)),
                    "echo %s >%s/objects/info/alternates" % (sq(jn(own_cg, "objects")), sq(C)),
                    "cp -R %s/refs %s/refs" % (sq(own_cg), sq(C)),
                    "cp %s/packed-refs %s/ 2>/dev/null; cp %s/config %s/config" % (sq(own_cg), sq(C), sq(own_cg), sq(C))]
            post = ["echo %s >%s/commondir" % (sq(C), sq(p["G"]))]
            return pre, post
        pre += ["rm -rf %s && mkgit %s" % (sq(tmp), sq(tmp))]
        if wh.shape == "adopt":
            name, path = wh.adopt
            pre += ["mkdir -p %s" % sq(os.path.dirname(p["G"])),
                    "mv %s/.git %s && rm -rf %s" % (sq(tmp), sq(p["G"]), sq(tmp)),
                    "printf '[submodule \"%s\"]\\n\\tpath = %s\\n\\turl = ./nowhere\\n' >>%s/.gitmodules" % (name, path, sq(WS)),
                    "GG -C %s add .gitmodules && GG -C %s update-index --add --cacheinfo "
                    "160000,$(GG --git-dir=%s rev-parse HEAD),%s" % (sq(WS), sq(WS), sq(p["G"]), path),
                    origin]
            return pre, post
        L = jn(WS, wh.loc)
        pre += ["mkdir -p %s && mv %s/ggf %s/" % (sq(L), sq(tmp), sq(L))]
        if wh.shape == "dotgit":
            pre += ["mv %s/.git %s/.git" % (sq(tmp), sq(L))]
        elif wh.shape in ("gitfile", "symlink"):
            rel = os.path.relpath(p["G"], L)
            pre += ["mkdir -p %s && mv %s/.git %s" % (sq(os.path.dirname(p["G"])), sq(tmp), sq(p["G"]))]
            if wh.shape == "gitfile":
                pre += ["echo %s >%s/.git" % (sq("gitdir: " + rel), sq(L))]
            else:
                pre += ["ln -s %s %s/.git" % (sq(rel), sq(L))]
        elif wh.shape == "bare":
            pre += ["mv %s/.git/* %s/" % (sq(tmp), sq(L)),
                    "printf '[core]\\n\\tworktree = %%s\\n' %s >>%s/config" % (sq(L), sq(L))]
        elif wh.shape == "headcommon":
            E = p["CG"]
            pre += ["mkdir -p %s && mv %s/.git %s && mv %s/HEAD %s/HEAD" % (
                sq(os.path.dirname(E)), sq(tmp), sq(E), sq(E), sq(L)),
                "echo %s >%s/commondir" % (sq(os.path.relpath(E, L)), sq(L))]
        pre += ["rm -rf %s" % sq(tmp), origin]
        return pre, post

    def plant_side_setup(self, p):
        """For a repository the command makes or redirects: what the user's setup does for
        own ones (the include directive, the extension), done by the command."""
        if self.wh.own:
            return []
        out = []
        d = self.directive(p)
        if d and self.kind != "husky":
            out.append("printf '%%s' %s >>%s" % (sq(d[1]), sq(d[0])))
        if self.kind == "sequencer":
            out.append(seq_state_plant(p))
        return out

    def attrs_in_worktree(self, p):
        return self.wh.has_wt and (p["wt"].startswith(p["WS"] + "/") or p["wt"] == p["WS"])

    def aux(self, p):
        """What the item needs besides the config: attributes, a changed tracked file, the
        sequencer's state (own repositories), a submodule checked out elsewhere."""
        out = []
        i = self.item
        if self.kind in CONFIG_KINDS and i in ATTRS:
            a = jn(p["wt"], ".gitattributes") if self.attrs_in_worktree(p) else p["A"]
            out += ["mkdir -p %s" % sq(os.path.dirname(a)), "echo %s >>%s" % (sq("* %s=gg" % ATTRS[i]), sq(a))]
        tracked = jn(p["wt"], self.wh.tracked)
        if i in ("filter.clean", "filter.process") and tracked.startswith(p["WS"] + "/"):
            # a new mtime, the same size: git compares the content, through the filter
            out.append("touch -m -d @1000000000 %s" % sq(tracked))
        if self.kind == "sequencer" and self.wh.own:
            out.append(seq_state_plant(p) if self.how != "inplace" else "true")
        if i == "submodule.update":
            out.append("GG -C %s checkout -q --detach HEAD~1" % sq(p["wt"]))
        return out


def put_to(S, F, mode, text, exe):
    if mode == "append":
        return "{ cat %s 2>/dev/null; printf '%%s' %s; } >%s" % (sq(F), sq(text), sq(S))
    return "printf '%%s' %s >%s%s" % (sq(text), sq(S), " && chmod 755 %s" % sq(S) if exe else "")


def seq_state_plant(p):
    """A paused interactive rebase in G (todo written by the HOW): HEAD detached."""
    G = p["G"]
    rm = jn(G, "rebase-merge")
    return ("H2=$(GG --git-dir=%(G)s rev-parse HEAD) && H1=$(GG --git-dir=%(G)s rev-parse HEAD~1) && "
            "B=$(GG --git-dir=%(G)s symbolic-ref -q HEAD || echo refs/heads/main) && mkdir -p %(rm)s && "
            "echo \"$B\" >%(rm)s/head-name && echo \"$H1\" >%(rm)s/onto && echo \"$H2\" >%(rm)s/orig-head && "
            ": >%(rm)s/interactive && : >%(rm)s/done && echo 1 >%(rm)s/end && echo 1 >%(rm)s/msgnum && "
            "echo \"$H2\" >%(G)s/HEAD" % dict(G=sq(G), rm=sq(rm)))


def seq_state_user(p, wh):
    """The user's own paused rebase (HOW=inplace): the same state, an empty todo."""
    G = p["G"]
    h2 = git_out(["--git-dir=" + G, "rev-parse", "HEAD"], p["V"])
    h1 = git_out(["--git-dir=" + G, "rev-parse", "HEAD~1"], p["V"])
    b = git_out(["--git-dir=" + G, "symbolic-ref", "-q", "HEAD"], p["V"]) or "refs/heads/main"
    rm = jn(G, "rebase-merge")
    for n, v in (("head-name", b), ("onto", h1), ("orig-head", h2), ("interactive", None), ("done", None),
                 ("end", "1"), ("msgnum", "1"), ("git-rebase-todo", None)):
        write_file(jn(rm, n), v + "\n" if v else "")
    write_file(jn(G, "HEAD"), h2 + "\n")


PLANT_LIB = r'''GG() { git -c user.name=gg -c user.email=gg@gg -c init.defaultBranch=main -c core.hooksPath=/dev/null -c commit.gpgSign=false -c core.fsmonitor=false -c protocol.file.allow=always "$@"; }
mkgit() { GG init -q "$1" && echo 1 >"$1/ggf" && GG -C "$1" add ggf && GG -C "$1" commit -qm one && echo 2 >"$1/ggf" && GG -C "$1" commit -qam two; }'''


def script(lines):
    return "\n".join(lines) + "\n"


def makedirs_owned(d):
    """mkdir -p, the directories made the test user's."""
    if os.path.isdir(d):
        return
    makedirs_owned(os.path.dirname(d))
    os.mkdir(d)
    if AS_USER:
        os.lchown(d, UID, GID)


def write_file(path, text, mode=0o644):
    """A file of the test user's (the user's state, made on the host)."""
    makedirs_owned(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    if AS_USER:
        os.lchown(path, UID, GID)


def append_file(path, text):
    with open(path, "a") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# The host's git on a terminal, every child it starts recorded.

EDITOR = ""  # the user's own editor (writes a message), set in main()


def host_git(case, p, hooks):
    trace = jn(p["V"], "out/trace2.json")
    cmds = case.triggers(p)
    sh = "\n".join(cmds) + "\n"
    env = host_env({"GIT_TRACE2_EVENT": trace, "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "EDITOR": EDITOR})
    out = pty_run(["setsid", "-c", "sh", "-c", sh], cwd=p["cwd"], env=env, timeout=30)
    fired = os.path.exists(p["M"])
    children, bad = [], []
    starts = 0
    try:
        with open(trace) as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                starts += ev.get("event") == "start"
                if ev.get("event") != "child_start":
                    continue
                children.append(ev)
                if not own_program(ev, hooks):
                    bad.append(ev)
    except FileNotFoundError:
        pass
    if not starts:  # no git ran at all: nothing was tried, which proves nothing
        bad.append({"argv": ["(no git command ran: no trace2 start event)"]})
    return fired, bad, children, out


def own_program(ev, hooks):
    """git's own programs, the system's ssh, the user's editor and the user's own hooks."""
    argv = ev.get("argv") or [""]
    prog = argv[0].split()[0] if ev.get("use_shell") and argv[0].split() else argv[0]
    if ev.get("child_class") == "hook":
        return os.path.basename(prog) in hooks
    if prog == "git" or (prog.startswith("git-") and "/" not in prog):
        return True
    if prog.startswith("/usr/lib/git-core/git"):
        return True
    return prog in ("ssh", EDITOR)


def pty_run(args, cwd, env, timeout):
    master, slave = os.openpty()
    try:
        p = subprocess.Popen(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                             close_fds=True, **user_kw())
    finally:
        os.close(slave)
    out = b""
    end = time.time() + timeout
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
        if time.time() > end:  # the session setsid made: sh, git and what it started
            try:
                os.killpg(p.pid, 9)
            except OSError:
                p.kill()
            out += b"\n(timed out)"
            break
    p.wait()
    os.close(master)
    return out[-3000:].decode(errors="replace")


# ---------------------------------------------------------------------------------------------
# One case: a control and one run per backend, each on its own copy.

class Result:
    def __init__(self, case):
        self.case = case
        self.control = None  # (fired, why not, the variant)
        self.backends = {}  # backend -> (ok, the variant)


PROFILE = {}  # phase -> seconds, in this worker; each result carries its case's


def prof(name, t0):
    PROFILE[name] = PROFILE.get(name, 0) + time.time() - t0
    return time.time()


SETTLE = 0.05  # the user's state is this much older than any run's start (the file clock's tick)


def prepare(case, tpls, V):
    """The user's state for one variant (made before any run of the case starts)."""
    t = time.time()
    copy_template(tpls[case.wh.tpl], V)
    p = case.paths(V)
    hooks = case.user_setup(p)
    prof("setup", t)
    return dict(p=p, hooks=hooks, ready=time.time())


def variant(case, prep, backend, detach_wait=DETACH_WAIT):
    p, hooks, V = prep["p"], prep["hooks"], prep["p"]["V"]
    scripts = case.runs(p)
    wait = SETTLE - (time.time() - prep["ready"])
    if wait > 0:
        time.sleep(wait)
    t = time.time()
    log = []
    for n, s in enumerate(scripts):
        if backend is None:
            r = run_user(["sh", "-c", s, "sh", p["M"]], cwd=p["WS"])
        else:
            stats = jn(V, "out/stats%d.json" % n)
            argv = [CORDON, "run", "--backend", backend, "--workspace", p["WS"], "-C", p["WS"], "--stats", stats]
            if case.how in KILLED:  # its journal, left for the next run, in an instance root of its own
                argv += ["--home", jn(V, "home")]
            argv += ["--", "sh", "-c", s, "sh", p["M"]]
            r = run_killed(argv, p["WS"], V) if case.how in KILLED else run_user(argv, cwd=PROJ)
            if case.how == "killed-next":  # then a run in another workspace, and one in this one
                for ws in (jn(V, "elsewhere"), p["WS"]):
                    r2 = run_user([CORDON, "run", "--backend", backend, "--home", jn(V, "home"), "--workspace", ws,
                                   "-C", ws, "--", "true"], cwd=PROJ)
                    r.stdout += b"\nnext run in %s: status %d\n%s" % (ws.encode(), r2.returncode, r2.stdout[-600:])
        log.append("run %d: status %d\n%s" % (n + 1, r.returncode, r.stdout.decode(errors="replace")[-1500:]))
        if backend is not None and os.path.exists(jn(V, "out/stats%d.json" % n)):
            try:
                with open(jn(V, "out/stats%d.json" % n)) as f:
                    gc = json.load(f).get("git_check")
                log.append("git_check: %s" % json.dumps(gc)[:600])
            except (ValueError, OSError):
                pass
        if case.how == "detached":
            t1 = time.time()
            done = jn(V, "mk/done")
            while time.time() - t1 < (10 if backend is None else detach_wait):
                if backend is None and os.path.exists(done):
                    break
                time.sleep(0.02)
            detach_wait = max(DETACH_WAIT, 2 * (time.time() - t1))
    t = prof("plant-%s" % backend, t)
    planted_fired = os.path.exists(p["M"])
    fired, bad, children, out = host_git(case, p, hooks)
    prof("host", t)
    return dict(fired=fired, planted_fired=planted_fired, bad=bad, children=children, log=log, out=out, V=V,
                detach_wait=detach_wait)


def run_killed(argv, WS, V):
    """cordon, SIGKILLed once the command planted (as a binding's timeout does); then, before
    the host's git, every process the launcher had started gone, and every process working in
    the case's directories (the command's, and whatever cordon left to check after it: the
    time it takes is in the log)."""
    ready = jn(WS, ".ggready")
    p = subprocess.Popen(argv + ["kill"], cwd=PROJ, env=host_env(), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **user_kw())
    end = time.time() + 30
    while not os.path.exists(ready) and p.poll() is None and time.time() < end:
        time.sleep(0.01)
    started = descendants(p.pid)
    p.kill()
    t = time.time()
    out = p.communicate()[0]
    end = time.time() + 10
    while time.time() < end and (any(alive(x) for x in started) or procs_in(V)):
        time.sleep(0.02)
    left = [x for x in started if alive(x)] + procs_in(V)
    out += b"\n(SIGKILL; its processes gone %.2f s later%s)" % (time.time() - t, b"" if not left else
                                                              b", not: " + " ".join(left).encode())
    return subprocess.CompletedProcess(argv, p.returncode, out)


def descendants(pid):
    """The processes below |pid| now (by their parent in /proc)."""
    parent = {}
    for q in os.listdir("/proc"):
        if q.isdigit():
            try:
                with open("/proc/%s/stat" % q) as f:
                    parent[q] = f.read().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                pass
    out, todo = [], [str(pid)]
    while todo:
        x = todo.pop()
        kids = [q for q, pp in parent.items() if pp == x]
        out += kids
        todo += kids
    return out


def alive(pid):
    """|pid| exists and is not a zombie."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def procs_in(V):
    """Processes (not this one) with their working directory, an open file or an argument in V
    (a helper cordon left behind has the launcher's command line)."""
    found = []
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me or not alive(pid):
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                paths = f.read().decode(errors="replace").split("\0")
            paths.append(os.readlink("/proc/%s/cwd" % pid))
            paths += [os.readlink("/proc/%s/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%s/fd" % pid)]
        except OSError:
            continue
        if any(x == V or x.startswith(V + "/") for x in paths):
            found.append(pid)
    return found


def run_case(args):
    PROFILE.clear()
    try:
        res = run_case_1(*args)
    except Exception as e:  # a failure of the generator: reported as the case's
        res = Result(args[1])
        res.control = (False, "the generator failed: %r" % e, dict(log=[], children=[], out="", V=""))
    res.profile = dict(PROFILE)
    return res


def run_case_1(n, case, tpls, root):
    res = Result(case)
    base = os.path.join(root, "c%04d" % n)
    preps = {b: prepare(case, tpls, base + "-" + (b or "ctl")) for b in [None] + BACKENDS}
    ctl = variant(case, preps[None], None)
    if ctl["planted_fired"] or not ctl["fired"]:
        why = "the plant itself ran it" if ctl["planted_fired"] else "the host's git did not run it"
        res.control = (False, why, ctl)
        for b in BACKENDS:
            rm_tree(base + "-" + b)
        if not KEEP:
            rm_tree(base + "-ctl")
        return res
    res.control = (True, "", ctl)
    rm_tree(base + "-ctl")
    for b in BACKENDS:
        v = variant(case, preps[b], b, ctl["detach_wait"])
        ok = not v["fired"] and not v["bad"]
        res.backends[b] = (ok, v)
        if ok or not KEEP:
            rm_tree(base + "-" + b)
    return res


def rm_tree(d):
    shutil.rmtree(d, ignore_errors=True)
    if os.path.exists(d):
        subprocess.run(["chmod", "-R", "u+w", d])
        shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# A web server that asks for credentials (credential.helper, core.askPass).

class Ask(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", "Basic realm=\"gg\"")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


HTTP_URL = ""


def main():
    global HTTP_URL, EDITOR
    cases = [Case(t) for t in select_cases()]
    if ONLY:
        cases = [c for c in cases if re.search(ONLY, c.name)]
    if os.environ.get("GITGEN_LIST"):
        for c in cases:
            print(c.name)
        print("# %d cases" % len(cases))
        return 0
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Ask)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    HTTP_URL = "http://127.0.0.1:%d/x.git" % srv.server_address[1]
    root = os.environ.get("GITGEN_DIR") or os.path.join(SCRATCH, "gg")
    os.makedirs(root, exist_ok=True)
    os.chmod(root, 0o755)
    EDITOR = jn(root, "editor")
    write_file(EDITOR, "#!/bin/sh\necho host >\"$1\"\n", 0o755)
    write_file(jn(HOME, ".gitconfig"), "[user]\n\tname = host\n\temail = host@host\n[init]\n\tdefaultBranch = main\n"
               "[alias]\n\tst = status\n[protocol \"file\"]\n\tallow = always\n[advice]\n\tdetachedHead = false\n")
    chown_tree(HOME)
    t0 = time.time()
    names = sorted({c.wh.tpl for c in cases})
    with ThreadPoolExecutor(max_workers=2) as ex:
        tpls = dict(zip(names, ex.map(lambda n: make_template(root, n), names)))
    print("# gitgen: %d cases (%s), backends %s, as %s" % (len(cases), "full " + FULL if FULL else "pairwise",
                                                            " ".join(BACKENDS), "user" if AS_USER else "root"))
    sys.stdout.flush()
    n = 0
    failed = 0
    stats = {"bad": 0}
    total = {}
    with ProcessPoolExecutor(max_workers=JOBS, mp_context=multiprocessing.get_context("fork")) as ex:
        for res in ex.map(run_case, [(i, c, tpls, root) for i, c in enumerate(cases)]):
            for k, v in res.profile.items():
                total[k] = total.get(k, 0) + v
            ok, why, ctl = res.control
            if not ok:
                n += 1
                failed += 1
                stats["bad"] += 1
                print("not ok %d - %s: bad case: %s in the control" % (n, res.case.name, why))
                diag(ctl, res.case)
                continue
            for b in BACKENDS:
                n += 1
                ok, v = res.backends[b]
                if ok:
                    print("ok %d - %s: %s" % (n, b, res.case.name))
                    if os.environ.get("GITGEN_DIAG_ALL"):
                        diag(v, res.case)
                else:
                    failed += 1
                    what = "ran the planted program" if v["fired"] else "started %s" % ", ".join(
                        json.dumps(e.get("argv"))[:120] for e in v["bad"][:3])
                    print("not ok %d - %s: %s: the host's git %s" % (n, b, res.case.name, what))
                    diag(v, res.case)
            sys.stdout.flush()
    print("# %d cases, %d lines, %d failed (%d bad controls), %.0f s" % (len(cases), n, failed, stats["bad"],
                                                                       time.time() - t0))
    print("# time: " + ", ".join("%s %.1f s" % kv for kv in sorted(total.items())))
    print("1..%d" % n)
    srv.shutdown()
    return 1 if failed else 0


def diag(v, case):
    lines = []
    for l in v["log"]:  # (the landlock backend's standing warning, shortened)
        lines += [re.sub(r"(cannot keep these read-only inside writable directories).*", r"\1 ...", x)
                  for x in l.splitlines()[:12]]
    if os.environ.get("GITGEN_VERBOSE"):
        lines += ["tty: " + l for l in v["out"].splitlines()[-15:]]
    for e in v["children"][:8]:
        lines.append("child: %s %s" % (e.get("child_class"), json.dumps(e.get("argv"))[:160]))
    if os.environ.get("GITGEN_VERBOSE"):
        lines += ["plant: " + l for l in "\n".join(case.runs(case.paths(v["V"]))).splitlines()[2:]]
    for l in lines[:int(os.environ.get('GITGEN_DIAG', '40'))]:
        print("# " + l)


if __name__ == "__main__":
    sys.exit(main())
