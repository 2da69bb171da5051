#!/usr/bin/env bash
# Makes each target named on the command line in turn, stops at the first that
# fails, and prints the seconds each took (also after a failure): how `make
# test` reports where its time goes.
#
#   MAKE=make tools/steps.sh setup test-go test-py
set -u
make=${MAKE:-make}
done_steps=()
rc=0
for target in "$@"; do
  start=$SECONDS
  $make --no-print-directory "$target" || rc=$?
  done_steps+=("$(printf '  %-20s %6d s%s' "$target" $((SECONDS - start)) "$([ $rc -ne 0 ] && echo '  FAILED')")")
  [ $rc -ne 0 ] && break
done
echo "---- make test: seconds per step ----"
printf '%s\n' "${done_steps[@]}"
printf '  %-20s %6d s\n' total "$SECONDS"
exit $rc
