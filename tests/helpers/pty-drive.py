#!/usr/bin/env python3
# Run CMD on a new pseudo-terminal (its controlling terminal, as a caller's
# shell would), type INPUT into it, and print what came out (CR removed),
# then "TERMIOS SAME|CHANGED" (the terminal's settings after vs before) and
# "PENDING N" (bytes left unread in the terminal's input: what a TIOCSTI
# from CMD pushed), "WINSIZE SAME|CHANGED" (the window size after vs the
# last one the driver set). Exits with CMD's status.
#   pty-drive.py [--input TEXT] [--when-raw] [--wait-for TEXT] [--resize RxC]
#                [--timeout S] -- CMD...
import argparse, fcntl, os, select, struct, subprocess, sys, termios, time

ap = argparse.ArgumentParser()
ap.add_argument("--input", default="")
ap.add_argument("--timeout", type=float, default=20)
ap.add_argument("--wait-for", default="", help="type INPUT (and resize) once this was output")
ap.add_argument("--resize", default="", help="ROWSxCOLS: then resize the terminal")
ap.add_argument("--when-raw", action="store_true", help="type INPUT once the terminal is raw (as a person would)")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd

master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x18\x00\x50\x00\x00\x00\x00\x00")  # 24x80
size = struct.pack("HHHH", 24, 80, 0, 0)
before = termios.tcgetattr(slave)


def make_ctty():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                     preexec_fn=make_ctty)
out = b""
deadline = time.time() + a.timeout


def drain(wait):
    global out
    while select.select([master], [], [], wait)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return
        if not chunk:
            return
        out += chunk


while a.when_raw and termios.tcgetattr(slave)[3] & termios.ICANON and time.time() < deadline and p.poll() is None:
    time.sleep(0.01)
while a.wait_for.encode() not in out and time.time() < deadline and p.poll() is None:
    drain(0.05)
if a.resize:
    rows, cols = (int(x) for x in a.resize.split("x"))
    size = struct.pack("HHHH", rows, cols, 0, 0)
    fcntl.ioctl(master, termios.TIOCSWINSZ, size)
os.write(master, a.input.encode().decode("unicode_escape").encode("latin-1"))
while p.poll() is None and time.time() < deadline:
    drain(0.05)
if p.poll() is None:
    p.kill()
    print("TIMEOUT")
p.wait()
drain(0.2)
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))
if not out.endswith(b"\n"):
    print()
print("TERMIOS", "SAME" if termios.tcgetattr(slave) == before else "CHANGED")
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ICANON  # FIONREAD counts only whole lines in canonical mode
termios.tcsetattr(slave, termios.TCSANOW, attrs)
pending = fcntl.ioctl(slave, termios.FIONREAD, b"\0\0\0\0")
print("PENDING", int.from_bytes(pending, sys.byteorder))
print("WINSIZE", "SAME" if fcntl.ioctl(slave, termios.TIOCGWINSZ, b"\0" * 8) == size else "CHANGED")
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
