# Sourced by the checks CI runs: a check that could not do its work says so, and under
# CI=true that is a failure, never a pass (a machine without root, a tool or a clean
# slate must not look like one where everything was checked).
#   skip_check NAME WHY    ends the script: exit 0 normally, 1 under CI=true
#   skipped_part NAME WHY  says so; returns 1 under CI=true (call it as `skipped_part … || fail …`)
skipped_part() {
  if [ "${CI:-}" = true ]; then
    echo "$1: could not run: $2 (CI=true: a failure)" >&2
    return 1
  fi
  echo "$1: skipped: $2" >&2
}
skip_check() {
  skipped_part "$1" "$2" || exit 1
  exit 0
}
