#!/bin/bash
# make demo: one sandboxed command that shows the boundary from inside.
set -u
cordon=${1:-build/cordon}
ws=$("$cordon" plan --json -- true | sed -n 's/^  "workspace": "\(.*\)",$/\1/p')
mkdir -p "$ws"
echo "The host has $(ls / | wc -l) entries in /, and /etc/shadow exists: $(test -e /etc/shadow && echo yes || echo no)."
echo "OPENAI_API_KEY in the launcher's environment: ${OPENAI_API_KEY:-sk-demo-not-a-real-key}"
echo
echo "\$ cordon run -C $ws -- sh -c '...'"
echo
OPENAI_API_KEY=${OPENAI_API_KEY:-sk-demo-not-a-real-key} "$cordon" run -C "$ws" -- sh -c '
echo "inside: ls /"; ls /
echo
echo "inside: cat /etc/shadow"; cat /etc/shadow 2>&1
echo "inside: ls /home /root"; ls /home /root 2>&1
echo "inside: echo \$OPENAI_API_KEY -> \"$OPENAI_API_KEY\""
echo "inside: processes:"; ps -eo pid,comm | sed "s/^/  /"
echo "inside: connect to 1.1.1.1:53"; bash -c "exec 3<>/dev/tcp/1.1.1.1/53" 2>&1 | sed "s/^/  /"
echo "inside: date > \$PWD/demo.txt (the workspace is read-write)"; date > demo.txt && echo "  wrote $PWD/demo.txt"
echo "inside: touch /usr/x"; touch /usr/x 2>&1 | sed "s/^/  /"
echo "inside: CORDON_SANDBOX=$CORDON_SANDBOX CORDON_SANDBOX_NETWORK_DISABLED=$CORDON_SANDBOX_NETWORK_DISABLED"
'
status=$?
echo
echo "exit status $status; on the host: $(cat "$ws/demo.txt" 2>/dev/null | sed 's/^/demo.txt says /')"
