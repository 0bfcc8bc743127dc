#!/usr/bin/env bash
# Runs a lab script the way `python -m labsim SCRIPT` does, on the real system, and prints the
# same transcript: each line stripped of surrounding white space, blank lines and lines starting
# with "#" skipped, then "$ <line>" and the line's output, stdout and stderr merged in their real
# order. All lines run in this one bash, so cd and variables persist from line to line.
#
# Usage (in the lab VM, as root):  transcript-driver.sh SCRIPT [STATUS_FILE]
# STATUS_FILE gets "<exit status>\t<line>" per line and a final "done" (proof the script did
# not end the shell early). Used by tools/vm/record-transcripts.sh.
set -u
script=$1
status_file=${2:-/dev/null}
exec 3<"$script" 4>"$status_file"
while IFS= read -r raw <&3 || [ -n "$raw" ]; do
  line=${raw#"${raw%%[![:space:]]*}"}   # strip leading white space
  line=${line%"${line##*[![:space:]]}"} # and trailing
  case "$line" in '' | '#'*) continue ;; esac
  printf '$ %s\n' "$line"
  eval "$line" </dev/null 2>&1
  printf '%s\t%s\n' "$?" "$line" >&4
done
exec 3<&-
echo done >&4
exit 0
