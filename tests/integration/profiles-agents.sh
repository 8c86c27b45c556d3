#!/bin/bash
# --profile ssh (profiles/ssh.json) with a real ssh-agent, and --profile gpg
# (profiles/gpg.json) with a real gpg-agent signing a commit. ssh: the agent's
# socket ($SSH_AUTH_SOCK, a source that is a whole variable of cordon's
# environment) and the variable passed, ~/.ssh/known_hosts and ~/.ssh/config
# read-only where the command's ssh reads them, never a private key. Each
# check with its control: the same without cordon, or without the profile.
. "$(dirname "$0")/lib.sh"
export CORDON_PROFILE_PATH=$TOP/profiles

mkdir -p "$H/.ssh"
ssh-keygen -q -t ed25519 -N '' -C cordon-test -f "$H/.ssh/id_ed25519"
echo "example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFake" >"$H/.ssh/known_hosts"
printf 'Host example\n    User cordon-git\n    Port 2222\n' >"$H/.ssh/config"
chmod 700 "$H/.ssh"; chmod 600 "$H/.ssh/id_ed25519" "$H/.ssh/config"
[ "$TEST_AS" = user ] && chown -R $TEST_UID:$TEST_GID "$H/.ssh"
export SSH_AUTH_SOCK=$T/agent/sock
mkdir -p "$T/agent"; chmod 700 "$T/agent"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$T/agent"
bg_as_user ssh-agent -D -a "$SSH_AUTH_SOCK" >/dev/null
for i in $(seq 50); do [ -S "$SSH_AUTH_SOCK" ] && break; sleep 0.1; done
as_user ssh-add -q "$H/.ssh/id_ed25519" 2>/dev/null
fp=$(ssh-keygen -lf "$H/.ssh/id_ed25519.pub" | awk '{print $2}')

check_contains "control: ssh-add -l lists the key through the agent, without cordon" "$fp" as_user ssh-add -l
check_contains "control: the private key is the user's to read, without cordon" "OPENSSH PRIVATE KEY" \
    as_user cat "$H/.ssh/id_ed25519"
check_status "control: without --profile ssh, no agent inside (ssh-add -l: 2)" 2 cordon run -- ssh-add -l
check_contains "--profile ssh: ssh-add -l lists the key through the real agent" "$fp" \
    cordon run --profile ssh -- ssh-add -l
check_out "... SSH_AUTH_SOCK passed as it is" "$SSH_AUTH_SOCK" cordon run --profile ssh -- printenv SSH_AUTH_SOCK
check_out "... the private key stays unreadable (absent)" "ENOENT" \
    cordon run --profile ssh -- "$PROBE" read "$H/.ssh/id_ed25519"
check_out "... nothing of ~/.ssh but known_hosts and config where ssh looks" "config known_hosts" \
    cordon run --profile ssh -- sh -c 'ls ~/.ssh | tr "\n" " " | sed "s/ $//"'
check_out "... known_hosts read-only" "EROFS" \
    cordon run --profile ssh -- "$PROBE" append "$H/.cordon/runtime-user-env/home/.ssh/known_hosts"
sshg() { cordon run --profile ssh -- ssh -G example 2>&1 | grep -E '^(user|port) '; }
check_out "ssh -G reads ~/.ssh/config, as ssh -F ~/.ssh/config does without cordon" \
    "$(as_user ssh -F "$H/.ssh/config" -G example 2>/dev/null | grep -E '^(user|port) ')" sshg
check_contains "the landlock backend refuses the profile (it cannot remap ~/.ssh into the sandbox's home)" \
    "cannot remap paths" cordon run --backend landlock --profile ssh -- ssh-add -l
unset SSH_AUTH_SOCK
check_status "with no agent (SSH_AUTH_SOCK unset) the profile still applies" 0 cordon run --profile ssh -- true

# ---- gpg: the agent's socket and the public keyring in the command's own
# GNUPGHOME ($HOME/.gnupg inside), the private keys never
G=$H/.gnupg
mkdir -m 700 "$G"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$G"
as_user env GNUPGHOME="$G" gpg --batch --quiet --passphrase '' --quick-gen-key 'Cordon Test <t@example.org>' \
    ed25519 sign never >/dev/null 2>&1
R=$W/repo
mkdir -p "$R"; [ "$TEST_AS" = user ] && chown $TEST_UID:$TEST_GID "$R"
as_user git -C "$R" init -q
GITC=(-c user.name=T -c user.email=t@example.org -c user.signingkey=t@example.org -c commit.gpgsign=true)
check "control: without cordon, git commit -S signs through the agent" \
    as_user env GNUPGHOME="$G" sh -c "cd '$R' && echo 0 >f0 && git add f0 && git ${GITC[*]} commit -q -m zero"
check_contains "control: ... a good signature" "Good signature" \
    as_user env GNUPGHOME="$G" git -C "$R" log --show-signature -1
check_contains "control: the private key is the user's to read, without cordon" "Key" \
    as_user sh -c "cat '$G'/private-keys-v1.d/*.key"
inside() { cordon run --workspace "$R" -C "$R" "$@" 2>&1; }
check_fails "without --profile gpg: the commit cannot be signed" \
    inside -- sh -c "echo 1 >f1 && git add f1 && git ${GITC[*]} commit -q -m one"
check "--profile gpg: git commit -S signs through the real agent" \
    inside --profile gpg -- sh -c "echo 2 >f2 && git add f2 && git ${GITC[*]} commit -q -m two"
check_contains "... a good signature, checked outside" "Good signature" \
    as_user env GNUPGHOME="$G" git -C "$R" log --show-signature -1
check_contains "... by the test key" "Cordon Test" as_user env GNUPGHOME="$G" git -C "$R" log --show-signature -1
check_out "... the private keys stay unreadable (absent at the home's path)" "ENOENT" \
    cordon run --profile gpg -- "$PROBE" stat "$G/private-keys-v1.d"
check_out "... and in the command's GNUPGHOME" "ENOENT" \
    cordon run --profile gpg -- "$PROBE" stat "$H/.cordon/runtime-user-env/home/.gnupg/private-keys-v1.d"
check_out "... the keyring read-only" "EROFS" \
    cordon run --profile gpg -- "$PROBE" append "$H/.cordon/runtime-user-env/home/.gnupg/pubring.kbx"
as_user env GNUPGHOME="$G" gpgconf --kill gpg-agent 2>/dev/null
done_testing
