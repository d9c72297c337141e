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
# A report case: names made to attack the reader reach the outputs only as text.
report_problems() {
  local dir=$1 found=""
  # No control character but line ends on the terminal (ESC, BEL, CR, NUL, DEL, C1, bidi).
  LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$dir/stdout.txt" "$dir/stderr.txt" &&
    found="$found; a control character reached the terminal"
  # No CSV cell a spreadsheet runs: none starts with = + @ tab CR, or - and no number.
  LC_ALL=C grep -qP '(^|,)"?([=+@\t]|\r(?!$)|-(?![0-9I]))' "$dir/out.csv" && found="$found; a CSV cell starts a formula"
  # No raw tag, link or cell break from a name in the Markdown.
  LC_ALL=C grep -qP '<|(?<!\\)\]\(|[\x00-\x09\x0b-\x1f\x7f]' "$dir/out.md" && found="$found; the Markdown holds a raw tag, link or control"
  # Every echoed name bounded: no line of the terminal output past 4 KiB.
  awk 'length($0) > 4200 { exit 1 }' "$dir/stdout.txt" "$dir/stderr.txt" || found="$found; a line past 4 KiB"
  [ -s "$dir/out.csv" ] && [ -s "$dir/out.md" ] || found="$found; a report is missing"
  echo "$found"
}

while IFS=$'\t' read -r id expected want args checks; do
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
  if [ "$checks" = report ]; then
    problem="$problem$(report_problems "$dir")"
    # The reports are the one thing written; the inputs stay as they were.
    after=$(cd "$dir" && find . -type f ! -name stdout.txt ! -name stderr.txt ! -name out.csv ! -name out.md -print0 | sort -z | xargs -0 -r sha256sum)
    kinds_after=$(cd "$dir" && find . ! -name stdout.txt ! -name stderr.txt ! -name out.csv ! -name out.md -printf '%p %y\n' | sort)
  else
    grep -qxF "gapscope-cli compare: $expected" "$dir/stderr.txt" || problem="$problem; stderr lacks the message"
  fi
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
