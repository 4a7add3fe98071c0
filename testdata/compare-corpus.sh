#!/usr/bin/env bash
# Compares pprof-tui's -top and -traces output with the goldens that
# go tool pprof produced for the whole shared corpus
# (../shared/profiles/expected, see its README). A development check, not
# part of `go test` (tests never read ../shared).
#   bash testdata/compare-corpus.sh [path/to/shared/profiles]
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-$repo/../shared/profiles}"
bin="$(mktemp -d)/pprof-tui"
(cd "$repo" && go build -o "$bin" .) || exit 1
cd "$corpus/expected" || exit 1
export TZ=UTC
same=0; diff=0
while IFS= read -r golden; do
  rel="${golden#./}"
  case "$rel" in
    *.symbolized.*) continue ;;  # needs in-process symbolization (issue 5)
    *.top.addresses.txt) src="${rel%.top.addresses.txt}"; args=(-top -nodecount=1000000 -symbolize=none -addresses) ;;
    *.top.sample_index=*.txt) src="${rel%.top.sample_index=*}"; idx="${rel##*.top.sample_index=}"; idx="${idx%.txt}"
      args=(-top -nodecount=1000000 -symbolize=none -sample_index="$idx") ;;
    *.top.txt) src="${rel%.top.txt}"; args=(-top -nodecount=1000000 -symbolize=none) ;;
    *.traces.txt) src="${rel%.traces.txt}"; args=(-traces -symbolize=none) ;;
    *) continue ;;
  esac
  if (cd "$corpus" && "$bin" "${args[@]}" "$src" 2>/dev/null) | cmp -s - "$golden"; then
    same=$((same+1))
  else
    diff=$((diff+1)); echo "DIFF $rel"
  fi
done < <(find . -name '*.txt' ! -name README.md | sort)
echo "$same identical, $diff different"
[ "$diff" -eq 0 ]
