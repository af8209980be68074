# Sourced by the bench cases and checks that need a throw-away btrfs: a scratch
# directory, a sparse image on a loop device, and one cleanup that runs on every exit
# path (failure included): the case's own steps first, then unmount, drop the loop
# device's partitions, detach, remove the directory.
#   loopdisk_init PREFIX        work=$(mktemp -d PREFIX-XXXXXX), the EXIT trap
#   loopdisk_on_exit COMMAND    run COMMAND first when cleaning up (e.g. delete a snapper config)
#   loopdisk_btrfs SIZE         a SIZE image, mkfs.btrfs, mounted at $work/mnt; sets $loop
#   measure COMMAND...          times it alone into $work/time (Scripts/lib/measure.py)
#   field N                     field N of $work/time: 1 wall s, 2 user+sys s, 3 peak RSS KiB
loopdisk_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
loop=""
loopdisk_exit_steps=()

loopdisk_cleanup() {
  local step
  for step in "${loopdisk_exit_steps[@]}"; do eval "$step" || true; done
  if mountpoint -q "$work/mnt" 2>/dev/null; then umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt"; fi
  if [ -n "$loop" ]; then
    partx -d "$loop" 2>/dev/null || true
    losetup -d "$loop" 2>/dev/null || true
  fi
  rm -rf "$work"
}

loopdisk_init() {
  work=$(mktemp -d "$1-XXXXXX")
  trap loopdisk_cleanup EXIT
}

loopdisk_on_exit() { loopdisk_exit_steps+=("$1"); }

loopdisk_btrfs() {
  truncate -s "$1" "$work/disk.img"
  loop=$(losetup -f --show "$work/disk.img")
  mkfs.btrfs -q -f "$loop" >/dev/null 2>&1
  mkdir -p "$work/mnt"
  mount "$loop" "$work/mnt"
}

measure() { python3 "$loopdisk_lib/measure.py" "$work/time" "$@" </dev/null; }
field() { cut -d' ' -f"$1" "$work/time"; }
