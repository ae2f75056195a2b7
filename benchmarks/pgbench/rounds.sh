#!/bin/bash
# Runs pgbench scripts in interleaved rounds on fresh tables (setup.sql, then fill.sql), 8 clients,
# prepared, and prints one line per script and round: round, script, tps, load average.
# Usage: benchmarks/pgbench/rounds.sh ROUNDS SECONDS script... (names without .sql), e.g.
#   benchmarks/pgbench/rounds.sh 5 8 fresh-floor fresh-gate fresh-gate-insert-first
# Connects to 127.0.0.1:5432, user postgres, database test (PGHOST, PGUSER, PGDATABASE override).
set -eu
cd "$(dirname "$0")"
rounds=$1 seconds=$2
shift 2
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-test}
scripts=("$@")
for ((r = 1; r <= rounds; r++)); do
  for s in "${scripts[@]}"; do
    psql -q -f setup.sql >/dev/null 2>&1
    psql -q -f fill.sql >/dev/null
    psql -q -c CHECKPOINT >/dev/null
    tps=$(pgbench -n -M prepared -c 8 -j 2 -T "$seconds" -f "$s.sql" | grep -oP 'tps = \K[0-9.]+')
    echo "$r $s $tps $(cut -d' ' -f1 /proc/loadavg)"
  done
  scripts=("${scripts[@]:1}" "${scripts[0]}") # the next round starts with the next script
done
