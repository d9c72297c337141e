#!/usr/bin/env bash
# The bogus-input catalogue through gapscope-cli (under ASan + UBSan in the asan
# preset): each case must exit 1 (0 for a warning) within 20 s with its exact
# located message on stderr, leave every input byte-identical and every special file what it was.
# usage: run_hostile_catalogue.sh GAPSCOPE_CLI MAKE_CATALOGUE DEMO_DIR WORK_DIR
set -uo pipefail
cli=$(realpath "$1")
make=$(realpath "$2")
demo=$(realpath "$3")
work=$(realpath -m "$4")
rm -rf "$work"
"$make" "$demo" "$work" || exit 1
failures=0
total=0
while IFS=$'\t' read -r id expected want args; do
  total=$((total + 1))
  dir="$work/$id"
  before=$(cd "$dir" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
  kinds_before=$(cd "$dir" && find . -printf '%p %y\n' | sort)
  # shellcheck disable=SC2086 # the manifest's arguments are space-separated words
  (cd "$dir" && timeout 20 "$cli" $args > stdout.txt 2> stderr.txt)
  status=$?
  after=$(cd "$dir" && find . -type f ! -name stdout.txt ! -name stderr.txt -print0 | sort -z | xargs -0 -r sha256sum)
  kinds_after=$(cd "$dir" && find . ! -name stdout.txt ! -name stderr.txt -printf '%p %y\n' | sort)
  problem=""
  [ "$status" -eq "$want" ] || problem="exit status $status, not $want"
  grep -qxF "gapscope-cli compare: $expected" "$dir/stderr.txt" || problem="$problem; stderr lacks the message"
  [ "$before" = "$after" ] || problem="$problem; a file changed"
  [ "$kinds_before" = "$kinds_after" ] || problem="$problem; a file changed kind or appeared"
  if [ -n "$problem" ]; then
    failures=$((failures + 1))
    echo "FAIL $id: $problem"
    echo "  expected: gapscope-cli compare: $expected"
    sed 's/^/  stderr:   /' "$dir/stderr.txt" | head -5
  fi
done < "$work/manifest.tsv"
echo "hostile catalogue through the CLI: $((total - failures)) of $total cases as pinned"
[ "$total" -ge 60 ] || { echo "FAIL: the catalogue has $total cases, fewer than 60"; exit 1; }
[ "$failures" -eq 0 ]
