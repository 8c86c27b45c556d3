# The test hosts' network namespace, for the network suites (proxy-clients.sh,
# intercept-attack.sh): `test_hosts_netns NAME PREFIX` makes namespace
# cordon-NAME$$ behind a veth pair with the host, on a /30 of PREFIX.0/24
# (a TEST-NET: no outside address), and sets NS, HOSTIP (the host's side)
# and NSIP (the namespace's); its processes are killed and it is removed
# when the test ends. Sourced after lib.sh.
test_hosts_netns() {
    local va=c$1$$a net=$((4 * ($$ % 60))) tries=0
    NS=cordon-$1$$
    HOSTIP=$2.$((net + 1))
    NSIP=$2.$((net + 2))
    # not an address the host has (a machine may sit on a TEST-NET itself:
    # then the proxy refuses it as the host's own)
    while ip -o addr show | grep -qE " inet ($HOSTIP|$NSIP)/" && [ $tries -lt 64 ]; do
        net=$(((net + 4) % 240)) tries=$((tries + 1))
        HOSTIP=$2.$((net + 1))
        NSIP=$2.$((net + 2))
    done
    # (the servers in it are killed with it: no pid of theirs outlives the test)
    trap 'ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null; cleanup_test; ip netns del "$NS" 2>/dev/null' EXIT
    ip netns add "$NS" && ip link add "$va" type veth peer name eth0 netns "$NS" &&
        ip addr add "$HOSTIP/30" dev "$va" && ip link set "$va" up &&
        ip -n "$NS" addr add "$NSIP/30" dev eth0 && ip -n "$NS" link set eth0 up && ip -n "$NS" link set lo up ||
        { echo "not ok 1 - the test hosts' network namespace"; exit 1; }
}
