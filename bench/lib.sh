# Shared by bench/vs-sysbench.sh and bench/wakeups.sh: reading a sandbox's
# sandbox.json, the server's CPU, and sysbench's connection options for it.
# Source it; it defines functions only.

# json_field DIR FIELD: one field of DIR/sandbox.json.
json_field() { sed -n "s/.*\"$2\": *\"\{0,1\}\([^\",}]*\).*/\1/p" "$1/sandbox.json" | head -1; }

# server_ticks DIR: clock ticks of CPU the sandbox's server has used so far:
# the server process (with its reaped children, PostgreSQL's ended
# backends) plus its live children.
server_ticks() {
  local pid
  pid=$(json_field "$1" pid)
  { awk '{print $14+$15+$16+$17}' "/proc/$pid/stat"
    # a backend may end between listing and reading
    for c in $(cat "/proc/$pid/task/"*/children 2>/dev/null || true); do awk '{print $14+$15}' "/proc/$c/stat" 2>/dev/null || true; done
  } | awk '{s+=$1} END {print s}'
}

# sysbench_args ENGINE DIR: sysbench's options to reach the sandbox in DIR
# as its benchmark user, without TLS.
sysbench_args() {
  local engine=$1 dir=$2
  case $engine in
    mariadb) echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$(json_field "$dir" port) --mysql-user=sbtest --mysql-password=$(json_field "$dir" password) --mysql-db=sbtest --mysql-ssl=off" ;;
    postgres) echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$(json_field "$dir" port) --pgsql-user=sbtest --pgsql-password=$(json_field "$dir" password) --pgsql-db=sbtest" ;;
  esac
}
