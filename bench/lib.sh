# bench/lib.sh: helpers the bench scripts source.

# free_port: a TCP port below the kernel's ephemeral range that no socket
# uses. A random port inside that range may be the local port of a client
# connection, and a server then cannot bind it.
free_port() {
	local lo port
	lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	for _ in $(seq 50); do
		port=$(( (RANDOM % (lo > 12000 ? lo - 11000 : 1000)) + 10000 ))
		if [ -z "$(ss -Htan "sport = :$port" 2>/dev/null)" ]; then
			echo "$port"
			return 0
		fi
	done
	echo "free_port: no free port found" >&2
	return 1
}
