#!/bin/bash
# The default view's /etc (src/linux/etc-scan.c, view.c, landlock.c): the
# host's /etc as others may read it, less cordon's deny list (identifiers,
# the host's user databases, ssh host keys) and less the files of a kind
# known to carry credentials that hold one; /etc/mtab names the sandbox's
# own mounts. Both backends (the linux one copies it into the prepared
# /etc, the landlock one grants the same entries), each check with its
# control on the host. The toolchains that read their configuration there
# run under the recommended invocation (--workspace, from the project):
# Java, Maven, ssh -G, pip config, df. The host's /etc is not touched:
# the test runs in a mount namespace of its own with a copy of /etc bound
# over it.
if [ -z "${ETC_VIEW_NS:-}" ]; then
    exec env ETC_VIEW_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

cp -a /etc "$T/etc" && mount --bind "$T/etc" /etc || { not_ok "a private copy of /etc"; done_testing; exit 0; }
[ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$W"
run() { cordon run --workspace "$W" "$@"; } # the recommended invocation, from the project

# what the test adds to the copy of /etc
mkdir -p /etc/cordon-tool/sub /etc/ssh/ssh_config.d
echo conf >/etc/cordon-tool/sub/x.conf
echo secret >/etc/cordon-tool/sub/secret; chmod 600 /etc/cordon-tool/sub/secret
echo secret >/etc/cordon-secret; chmod 600 /etc/cordon-secret
[ -e /etc/machine-id ] || { echo 0123456789abcdef0123456789abcdef >/etc/machine-id; chmod 444 /etc/machine-id; }
[ -e /etc/passwd- ] || { cp /etc/passwd /etc/passwd-; chmod 644 /etc/passwd-; }
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake root@host' >/etc/ssh/ssh_host_ed25519_key.pub
chmod 644 /etc/ssh/ssh_host_ed25519_key.pub
mkdir -p /etc/ssl/private; chmod 700 /etc/ssl/private; echo key >/etc/ssl/private/cordon.key
printf 'Host *\n    ServerAliveInterval 42\n' >/etc/ssh/ssh_config.d/cordon-test.conf
printf '[global]\ntimeout = 42\n' >/etc/pip.conf
printf '# a comment: _authToken=not-a-token\ncafile=/etc/ssl/certs/ca-certificates.crt\n' >/etc/npmrc
mkdir -p /etc/xdg/pip
printf '[global]\nindex-url = https://user:s3cret@pypi.example.com/simple\n' >/etc/xdg/pip/pip.conf
printf 'PATH="/usr/local/bin:/usr/bin:/bin"\nGITHUB_TOKEN=ghp_example\n' >/etc/environment
mkdir -p /etc/cordon-git
printf '[credential]\n\thelper = store\n' >/etc/cordon-git/gitconfig
printf '[http]\n\textraHeader = AUTHORIZATION: bearer abc\n' >/etc/cordon-tool/gitconfig
chmod -R go+rX /etc/cordon-git /etc/cordon-tool/gitconfig
chmod 644 /etc/pip.conf /etc/npmrc /etc/xdg/pip/pip.conf /etc/environment /etc/cordon-tool/sub/x.conf
sleep 2.2 # older than the listing's 2 s

lists() { local dir=${*: -1}; run "${@:1:$#-1}" -- ls "$dir" | tr '\n' ' '; }
# piped FLAGS -- CMD... -- FILTER...: CMD's output (stdout and stderr) inside, through FILTER outside
piped() {
    local flags=() cmd=()
    while [ "$1" != -- ]; do flags+=("$1"); shift; done; shift
    while [ "$1" != -- ]; do cmd+=("$1"); shift; done; shift
    run "${flags[@]}" -- "${cmd[@]}" 2>&1 | "$@"
}
hostread() { as_user cat "$1" >/dev/null 2>&1 && echo OK || echo EACCES; }
unseen() { [ "$1" = linux ] && echo ENOENT || echo EACCES; } # absent from the copy; no Landlock right

for be in linux landlock; do
    B=(--backend "$be")
    # ---- what others may read is there -----------------------------------------------------
    check_out "$be: control: a world-readable file deep in /etc, on the host" "conf" as_user cat /etc/cordon-tool/sub/x.conf
    check_out "$be: ... is in the view" "conf" run "${B[@]}" -- cat /etc/cordon-tool/sub/x.conf
    check_out "$be: the alternatives' symlinks are the host's" "$(readlink /etc/alternatives/java)" \
        run "${B[@]}" -- readlink /etc/alternatives/java
    check_out "$be: /etc/java-17-openjdk lists what the host's does" "$(ls /etc/java-17-openjdk | tr '\n' ' ')" \
        lists "${B[@]}" /etc/java-17-openjdk
    # ---- what stays out ------------------------------------------------------------------------
    want=OK; [ "$TEST_AS" = user ] && want=EACCES
    check_out "$be: control: a 0600 root file in /etc (read as on the host: $want)" "$want" hostread /etc/cordon-secret
    check_out "$be: ... is not shown" "$(unseen $be)" run "${B[@]}" -- "$PROBE" read /etc/cordon-secret
    check_out "$be: ... nor one in a subdirectory" "$(unseen $be)" run "${B[@]}" -- "$PROBE" read /etc/cordon-tool/sub/secret
    check_out "$be: ... nor /etc/ssl/private (0700)" "$(unseen $be)" run "${B[@]}" -- "$PROBE" read /etc/ssl/private/cordon.key
    check_out "$be: control: /etc/ssl's other entries are read (openssl.cnf, certs/; the landlock backend's rule for /etc/ssl, none of their own)" \
        "$(as_user cat /etc/ssl/openssl.cnf | wc -c) $(ls /etc/ssl/certs | wc -l)" \
        run "${B[@]}" -- sh -c 'echo "$(wc -c </etc/ssl/openssl.cnf) $(ls /etc/ssl/certs | wc -l)"'
    for f in machine-id passwd- ssh/ssh_host_ed25519_key.pub; do
        check_out "$be: control: /etc/$f is world-readable on the host" "OK" hostread /etc/$f
        check_out "$be: ... on the deny list, not shown" "$(unseen $be)" run "${B[@]}" -- "$PROBE" read /etc/$f
    done
    check_out "$be: control: /etc/xdg/pip/pip.conf (a password in its index URL) readable on the host" "OK" \
        hostread /etc/xdg/pip/pip.conf
    check_out "$be: ... holds a credential, left out" "$(unseen $be)" run "${B[@]}" -- "$PROBE" read /etc/xdg/pip/pip.conf
    check_out "$be: /etc/environment with a token in it is left out" "$(unseen $be)" \
        run "${B[@]}" -- "$PROBE" read /etc/environment
    check_out "$be: a gitconfig with an Authorization header is left out" "$(unseen $be)" \
        run "${B[@]}" -- "$PROBE" read /etc/cordon-tool/gitconfig
    check_out "$be: control: one naming only a credential helper is shown" "1" \
        piped "${B[@]}" -- cat /etc/cordon-git/gitconfig -- grep -c helper
    check_out "$be: control: an npmrc whose token is only in a comment is shown" "1" \
        piped "${B[@]}" -- cat /etc/npmrc -- grep -c cafile
    # ---- the toolchains ------------------------------------------------------------------------
    check_out "$be: pip config list sees /etc/pip.conf, as on the host" "$(as_user python3 -m pip config list | grep global.timeout)" \
        piped "${B[@]}" -- python3 -m pip config list -- grep global.timeout
    if [ "$be" = landlock ] && is_root_run; then
        # the landlock backend's sandbox user has no passwd entry (no
        # mount namespace to show a generated /etc/passwd): ssh refuses it
        check_contains "$be: as root, ssh refuses the sandbox user (no passwd entry: a known limit)" \
            "No user exists" run "${B[@]}" -- ssh -G host
        check_out "$be: ... with --user caller, ssh -G shows /etc/ssh/ssh_config's settings" \
            "$(as_user ssh -G host 2>/dev/null | grep -i '^serveraliveinterval')" \
            piped "${B[@]}" --user caller -- ssh -G host -- grep -i '^serveraliveinterval'
    else
        check_out "$be: ssh -G shows /etc/ssh/ssh_config's settings, as on the host" \
            "$(as_user ssh -G host 2>/dev/null | grep -i '^serveraliveinterval')" \
            piped "${B[@]}" -- ssh -G host -- grep -i '^serveraliveinterval'
    fi
    check_status "$be: df . works" 0 run "${B[@]}" -- df .
    [ "$be" = linux ] && check_out "$be: /etc/mtab is the sandbox's own mounts" "/proc/self/mounts" \
        run "${B[@]}" -- readlink /etc/mtab
    check_out "$be: mvn -v, as on the host" "$(as_user mvn -v 2>&1 | head -1)" piped "${B[@]}" -- mvn -v -- head -1
    rm -rf "$W/Hello.java" "$W/Hello.class"
    printf 'public class Hello { public static void main(String[] a) { System.out.println("hello " + a.length); } }\n' \
        >"$W/Hello.java"
    [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$W/Hello.java"
    check_out "$be: javac and java compile and run a program" "hello 2" \
        run "${B[@]}" -- sh -c 'javac Hello.java && java Hello x y'
done

# ---- changes on the host ---------------------------------------------------------------------
echo two >/etc/cordon-tool/sub/x.conf
sleep 2.2
check_out "a file changed deep in /etc shows within 2 s (linux)" "two" run -- cat /etc/cordon-tool/sub/x.conf
check_out "... (landlock)" "two" run --backend landlock -- cat /etc/cordon-tool/sub/x.conf
echo new >/etc/cordon-new; chmod 644 /etc/cordon-new
check_out "a file added at the top of /etc shows in the next run" "new" run -- cat /etc/cordon-new
chmod 600 /etc/cordon-new; sleep 2.2
check_out "... and once no longer readable by others, is gone" "ENOENT" run -- "$PROBE" read /etc/cordon-new
check_contains "cordon plan names the view" "/etc (what others may read, less cordon's deny list) -> /etc" \
    cordon plan -- true
rm -rf /etc/cordon-new /etc/cordon-tool /etc/cordon-git
done_testing
