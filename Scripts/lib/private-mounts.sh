# Sourced first (before any cd) by the scripts that mount throw-away filesystems and
# delete snapshots on them: runs the script again in a mount namespace of its own
# (as root, where unshare exists), so its mounts are seen by its own processes only.
#
# Why: carve keeps every snapshot that a process it cannot look into might hold (it
# fails closed), and some machines run processes that even root may not read (the
# sandbox's PID 1 on the machines carve's CI runs on). Such a process sees every mount
# made in the host's namespace and none made in a private one, so carve can tell it
# holds nothing there. As a bonus, a mount the script leaves goes with its namespace.
if [ "${CARVE_PRIVATE_MOUNTS:-}" != 1 ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
  export CARVE_PRIVATE_MOUNTS=1
  exec unshare --mount --propagation private -- "$0" "$@"
fi
