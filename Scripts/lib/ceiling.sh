# shellcheck shell=bash
# with_ceiling MINUTES COMMAND...: runs COMMAND and, if it is still running after
# MINUTES, stops it and every process under it (TERM, then KILL 30 s later). `timeout`
# is not enough for `swift test`: the test binary it starts is in a process group of
# its own, so it (and a tool it waits on) outlived timeout and kept the output pipe open.

# stop_tree SIGNAL PID: the children first, so none is reparented out of reach.
stop_tree() {
  local child
  for child in $(pgrep -P "$2"); do stop_tree "$1" "$child"; done
  kill -"$1" "$2" 2>/dev/null || true
}

with_ceiling() {
  local minutes=$1
  shift
  "$@" &
  local pid=$!
  # The watchdog's sleep must not outlive it: it shares the caller's output pipe.
  (
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$((minutes * 60))" &
    sleeper=$!
    wait "$sleeper"
    echo "test: still running after $minutes minutes: stopped (the run's events name the test)" >&2
    stop_tree TERM "$pid"
    sleep 30 &
    sleeper=$!
    wait "$sleeper"
    stop_tree KILL "$pid"
  ) &
  local watchdog=$!
  local status=0
  wait "$pid" || status=$?
  kill "$watchdog" 2>/dev/null || true
  wait "$watchdog" 2>/dev/null || true
  return "$status"
}
