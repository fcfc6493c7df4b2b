#!/usr/bin/env bash
# fastconv against FFHT (FALCONN-LIB/FFHT) and the textbook loop, in one Google Benchmark run,
# written into docs/benchmarks.md (tables) and docs/bench-wht.png (plot).
#
# FFHT is a benchmark-only dependency: its sources come from the PyPI source distribution
# FFHT-unofficial 0.3, fetched at benchmark time into the build directory (never into the
# source tree, never committed), checked against the sha256 that PyPI publishes, and compiled
# with gcc -O3 -mavx2 -mfma. If it cannot be obtained or built, the run goes on without it and
# the report compares with issue 3's FFHT figures (from another machine), labelled as such.
#
# Usage: bash bench/compare_ffht.sh [options]      (see --help; the full run takes a while:
#        sizes up to 2^28, 4 GiB of memory for double, the textbook loop up to 2^24)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
min_log2n=10 max_log2n=28 reference_max=24 dyadic=20,22,25
repetitions=5 min_time=0.5
doc=$root/docs/benchmarks.md plot=$root/docs/bench-wht.png json=
fetch_ffht=1 build_lib=1 interleave=1 extra=()
ffht_version=0.3
printf -v quoted ' %q' "$@"  # so that the recorded command reruns as written (an empty value stays '')
command_line="bash bench/compare_ffht.sh${*:+$quoted}"

usage() {
  cat <<EOF
usage: bash bench/compare_ffht.sh [options] [-- extra Google Benchmark flags]

  --min-log2n N            smallest WHT size 2^N (default $min_log2n)
  --max-log2n N            largest WHT size 2^N (default $max_log2n)
  --reference-max-log2n N  largest size for the textbook loop (default $reference_max)
  --dyadic LIST            dyadic convolution sizes, e.g. 20,22,25 (default $dyadic; '' for none);
                           the textbook convolution runs once at the largest
  --repetitions R          repetitions per case; the report uses the median (default $repetitions)
  --min-time S             Google Benchmark's --benchmark_min_time per repetition (default $min_time)
  --quick                  a smoke run: sizes 10..18, dyadic 14,16, 3 repetitions, min time 0.05
  --build-dir DIR          fastconv's CMake build directory (default build/)
  --no-build               use the libfastconv already built there, do not run the build
  --no-ffht                do not fetch FFHT (fastconv and the textbook loop only)
  --no-interleave          run each case's repetitions back to back (default: all cases'
                           repetitions in one random order, so that a burst of noise on a
                           shared machine falls on several cases instead of all of one)
  --doc FILE               Markdown file to update between its ffht-compare markers
                           (default docs/benchmarks.md)
  --plot FILE              PNG plot to write (default docs/bench-wht.png)
  --json FILE              where to keep the raw JSON (default BUILD/_deps/ffht/ffht_compare.json)
EOF
}

while (($#)); do
  case $1 in
    --min-log2n|--max-log2n|--reference-max-log2n|--dyadic|--repetitions|--min-time|--build-dir|--doc|--plot|--json)
      if (($# < 2)); then echo "compare_ffht.sh: $1 needs a value (see --help)" >&2; exit 2; fi ;;&
    --min-log2n) min_log2n=$2; shift ;;
    --max-log2n) max_log2n=$2; shift ;;
    --reference-max-log2n) reference_max=$2; shift ;;
    --dyadic) dyadic=$2; shift ;;
    --repetitions) repetitions=$2; shift ;;
    --min-time) min_time=$2; shift ;;
    --quick) min_log2n=10 max_log2n=18 reference_max=18 dyadic=14,16 repetitions=3 min_time=0.05 ;;
    --build-dir) build=$(cd "$2" && pwd); shift ;;
    --no-build) build_lib=0 ;;
    --no-ffht) fetch_ffht=0 ;;
    --no-interleave) interleave=0 ;;
    --doc) doc=$2; shift ;;
    --plot) plot=$2; shift ;;
    --json) json=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "compare_ffht.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "compare_ffht.sh: $*" >&2; }
deps=$build/_deps/ffht
json=${json:-$deps/ffht_compare.json}
mkdir -p "$deps"

# --- fastconv itself ---------------------------------------------------------------------
if ((build_lib)); then
  if [[ -f $build/build.ninja ]]; then
    cmake --build "$build" --target fastconv
  else
    bash "$root/scripts/setup.sh" "$build"   # a fresh machine: installs the packages, then builds
  fi
fi
if [[ -e $build/src/libfastconv.so ]]; then
  fastconv_lib=(-L"$build/src" -lfastconv -Wl,-rpath,"$build/src")
elif [[ -e $build/src/libfastconv.a ]]; then
  fastconv_lib=("$build/src/libfastconv.a" -fopenmp -lhwy)
else
  say "no libfastconv in $build/src: build fastconv first (or drop --no-build)"; exit 1
fi

# --- FFHT: fetched, verified and built outside the source tree ----------------------------
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  isa_flags=(-mavx2 -mfma)   # FFHT picks its AVX kernels when __AVX__ is defined
else
  isa_flags=()               # FFHT's SSE kernels
fi
ffht_src=$deps/FFHT-unofficial-$ffht_version/ffht
ffht_note=
fetch_ffht() {
  local meta url sha tarball=$deps/FFHT-unofficial-$ffht_version.tar.gz
  [[ -f $ffht_src/fht.c && -f $ffht_src/fast_copy.c ]] && return 0
  if ! command -v curl >/dev/null && ((EUID == 0)); then
    apt-get install -y -qq curl >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; } || true
  fi
  command -v curl >/dev/null || { ffht_note="curl is not installed"; return 1; }
  meta=$(curl -fsSL --max-time 60 "https://pypi.org/pypi/ffht-unofficial/json") ||
    { ffht_note="PyPI's metadata for ffht-unofficial could not be fetched"; return 1; }
  read -r url sha < <(python3 -c '
import json, sys
files = json.load(sys.stdin)["releases"].get(sys.argv[1], [])
sdist = [f for f in files if f["packagetype"] == "sdist"]
print(sdist[0]["url"], sdist[0]["digests"]["sha256"]) if sdist else print("", "")' "$ffht_version" <<<"$meta") || true
  [[ -n ${url:-} ]] || { ffht_note="PyPI lists no source distribution of ffht-unofficial $ffht_version"; return 1; }
  curl -fsSL --max-time 300 -o "$tarball" "$url" || { ffht_note="downloading $url failed"; return 1; }
  echo "$sha  $tarball" | sha256sum -c --quiet - ||
    { ffht_note="$url does not match PyPI's sha256 $sha"; rm -f "$tarball"; return 1; }
  tar -xzf "$tarball" -C "$deps" || { ffht_note="unpacking $tarball failed"; return 1; }
  echo "$sha" >"$deps/sdist.sha256"
}
build_ffht() {
  gcc -O3 "${isa_flags[@]}" -c "$ffht_src/fht.c" -o "$deps/fht.o" &&
    gcc -O3 "${isa_flags[@]}" -c "$ffht_src/fast_copy.c" -o "$deps/fast_copy.o" ||
    { ffht_note="compiling FFHT failed"; return 1; }
}
have_ffht=0
if ((fetch_ffht)); then
  say "FFHT: fetching the FFHT-unofficial $ffht_version sdist from PyPI into $deps"
  if fetch_ffht && build_ffht; then
    have_ffht=1
  else
    say "FFHT could not be obtained: $ffht_note."
    say "Going on with fastconv and the textbook loop; the report uses issue 3's FFHT figures (another machine)."
  fi
else
  ffht_note="skipped with --no-ffht"
fi

# --- the harness ---------------------------------------------------------------------------
harness=$deps/ffht_compare
cxx_flags=(-std=c++20 -O3 "${isa_flags[@]}" -fopenmp -Wall -Wextra -Wpedantic -I"$root/include")
if ((have_ffht)); then
  g++ "${cxx_flags[@]}" -DFASTCONV_HAVE_FFHT "$root/bench/ffht_compare.cpp" "$deps/fht.o" "$deps/fast_copy.o" \
    "${fastconv_lib[@]}" -lbenchmark -lpthread -o "$harness"
  ffht_desc="FFHT-unofficial $ffht_version, the PyPI sdist (sha256 $(cat "$deps/sdist.sha256" 2>/dev/null || echo "not recorded")), \
fht.c and fast_copy.c built with \`gcc -O3 ${isa_flags[*]}\` ($(gcc -dumpfullversion)); the harness with \`g++ -std=c++20 -O3 ${isa_flags[*]}\`."
else
  g++ "${cxx_flags[@]}" "$root/bench/ffht_compare.cpp" "${fastconv_lib[@]}" -lbenchmark -lpthread -o "$harness"
  ffht_desc="not measured in this run ($ffht_note)."
fi

# --- the run -------------------------------------------------------------------------------
run=("$harness" --fastconv_min_log2n="$min_log2n" --fastconv_max_log2n="$max_log2n"
     --fastconv_reference_max_log2n="$reference_max" --fastconv_dyadic_log2n="$dyadic"
     --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true
     --benchmark_min_time="$min_time" --benchmark_out_format=json --benchmark_out="$json")
if ((interleave)); then run+=(--benchmark_enable_random_interleaving=true); fi
run+=("${extra[@]}")
say "running: ${run[*]}"
"${run[@]}"

# --- the report ----------------------------------------------------------------------------
if [[ -n $plot ]] && ! python3 -c 'import matplotlib' 2>/dev/null; then
  say "installing matplotlib for the plot"
  python3 -m pip install --quiet matplotlib || python3 -m pip install --quiet --user matplotlib ||
    { ((EUID == 0)) && apt-get install -y -qq python3-matplotlib; } ||
    say "matplotlib could not be installed: the report will have no plot"
fi
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]]; then  # git diff exits 1 for changes, other codes when it cannot tell
  status=0
  git -C "$root" diff --quiet HEAD -- src include 2>/dev/null || status=$?
  ((status == 1)) && commit="$commit + uncommitted changes in src/ or include/"
fi
python3 "$root/bench/report.py" "$json" --doc "$doc" --plot "$plot" --command "$command_line" \
  --harness-command "${run[*]/#$root\//}" --ffht "$ffht_desc" --commit "$commit" \
  --compiler "$(g++ --version | head -1)"
say "wrote $doc${plot:+ and $plot} (raw JSON: $json)"
