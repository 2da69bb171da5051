#!/usr/bin/env bash
# Makes each target named on the command line in turn, stops at the first that
# fails, and prints the seconds each took (also after a failure): how `make
# test` reports where its time goes. "a+b" makes a and b at once (steps that
# mostly use one CPU or wait), each one's output held and printed when both end.
#
#   MAKE=make tools/steps.sh setup test-go typecheck+test-go-race
set -u
make=${MAKE:-make}
done_steps=()
rc=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for step in "$@"; do
  start=$SECONDS
  if [[ $step == *+* ]]; then
    IFS=+ read -r -a parts <<<"$step"
    pids=()
    for target in "${parts[@]}"; do
      (s=$SECONDS; $make --no-print-directory "$target" >"$logs/$target.log" 2>&1; r=$?
       echo "$r $((SECONDS - s))" >"$logs/$target.rc"; exit $r) &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || true; done
    for target in "${parts[@]}"; do
      echo "---- $target (made alongside ${step//+/, }) ----"
      cat "$logs/$target.log"
      read -r r secs <"$logs/$target.rc"
      [ "$r" -ne 0 ] && rc=$r
      done_steps+=("$(printf '  %-20s %6d s%s' "$target" "$secs" "$([ "$r" -ne 0 ] && echo '  FAILED')")")
    done
    done_steps+=("$(printf '  %-20s %6d s  (together)' "${step}" $((SECONDS - start)))")
  else
    $make --no-print-directory "$step" || rc=$?
    done_steps+=("$(printf '  %-20s %6d s%s' "$step" $((SECONDS - start)) "$([ $rc -ne 0 ] && echo '  FAILED')")")
  fi
  [ $rc -ne 0 ] && break
done
echo "---- make test: seconds per step ----"
printf '%s\n' "${done_steps[@]}"
printf '  %-20s %6d s\n' total "$SECONDS"
exit $rc
