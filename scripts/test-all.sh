#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run → npm test). Stages:
#   deps      npm ci when node_modules is missing or package-lock.json changed (hash stamp)
#   vscode    bash scripts/ensure-vscode.sh (chromium, Node 24, code-server into .vscode-test/)
#   tsc       a clean `npx tsc -p .` into out/
#   lint      npm run lint: ESLint (eslint.config.mjs: layer imports), Stylelint on media/*.css
#             (.stylelintrc.json: a syntax error or a nested rule fails) and the per-layer TypeScript
#             settings (tsconfig.core.json: src/core, src/protocol with no DOM and no Node globals;
#             tsconfig.webview.json: webview/ with the DOM, no Node; tsconfig.node.json: src/journal,
#             src/runtime with Node's types, no DOM, mocha or `vscode`)
#   build     node esbuild.mjs into dist/
#   unit      node --test over out/test/unit/**/*.test.js, NAC_UNIT_JOBS files at once (default 2),
#             with TMPDIR a fresh folder: fails when the tests leave anything in it
#             (`unit tests left N temp folder(s)`)
#   suite     node out/test/runInCodeServer.js (mocha suite in code-server's real extension host)
#   e2e       node out/test/e2e/run.js (the journeys in Chromium, NAC_E2E_JOBS at once (default in
#             test/e2e/run.ts), each with its own code-server; screenshots in test-artifacts/e2e)
#   vsix      node scripts/check-vsix.mjs (package the VSIX: small, no agent CLI binaries, no sources)
# Side by side (the schedule at the bottom says why each pair may share the machine):
#   vscode ∥ deps, tsc, lint, build, unit   lint ∥ build ∥ tsc   vsix ∥ unit
#   suite, e2e: alone
# tsc and build run once; every later stage reads their out/ and dist/.
# A stage beside others writes its output to test-artifacts/test-all/<stage>.log, printed whole
# when the stage is collected (no interleaving); a stage alone prints as it goes and is logged there
# too. The run stops at the first failed stage (after the stages still running end: their results
# count and their logs are printed).
# Output: each stage's log and time, a table of the stage times (wall and CPU seconds), then one combined line
# `N passed, N failed` (a failed build-type stage counts as 1 failed). Exit code 0 only if every
# stage passed; 130 when interrupted (the stages running in the background are stopped).
# Env: NAC_SKIP="e2e suite" skips the named stages (for local iteration; CI skips nothing);
#      NAC_SERIAL=1 runs every stage alone, one after another (to time a stage without company);
#      NAC_UNIT_JOBS / NAC_E2E_JOBS: unit test files / e2e journeys at once;
#      NAC_UNIT_TIMEOUT / NAC_SUITE_STAGE_TIMEOUT / NAC_E2E_STAGE_TIMEOUT (s; 900/600/1800) bound stages.
# Never hangs: unit tests have a 300 s per-test timeout and each test stage an overall one.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

PASSED=0
FAILED=0
T0=$(date +%s.%N)
# Every stage's output, kept after the run (git-ignored): test-artifacts/test-all/<stage>.log.
ART="$ROOT/test-artifacts/test-all"
rm -rf "$ART" && mkdir -p "$ART"
LOGS="$(mktemp -d "${TMPDIR:-/tmp}/nac-test-all.XXXXXX")"
declare -A PID=() START=() KIND=() CMD=()
SUMMARY=()
FAILED_STAGES=()

# The CPU seconds (user + system) of the calling shell's waited-for children and theirs: bash's
# `times`, second line. A stage's subshell calls it once its command ended, so it is that stage's CPU
# (what the 2 cores spent on it), next to its wall time in the summary. Processes reaped by one the
# stage did not wait for are missed: Chromium's renderers partly, so the e2e stage's figure is low.
# (`times` writes to a file first: in a pipe or $(…) it would run in a fork, which has no children.)
cpu_of_children() {
  local f; f=$(mktemp "$LOGS/times.XXXXXX")
  times >"$f"
  tail -1 "$f" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } printf "%.1f", s }'
  rm -f "$f"
}
cpu() { cat "$LOGS/$1.cpu" 2>/dev/null || echo "?"; }
# The whole machine's busy CPU seconds (all cores) so far, from /proc/stat (user, nice, system, irq,
# softirq, steal); "?" where there is none. Read at a stage's start and end: for a stage alone it is
# what the stage cost, Chromium's every process included; for stages side by side, what they cost
# together (and whatever else ran).
machine_busy() {
  awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '/^cpu / { printf "%.1f", ($2 + $3 + $4 + $7 + $8 + $9) / hz; found = 1 } END { if (!found) print "?" }' /proc/stat 2>/dev/null || echo "?"
}
declare -A MBUSY0=()
machine_since() { # NAME: machine CPU seconds from the stage's start to its end
  local now; now=$(cat "$LOGS/$1.mend" 2>/dev/null || machine_busy)
  if [ "$now" = "?" ] || [ "${MBUSY0[$1]:-?}" = "?" ]; then echo "?"; return; fi
  awk -v a="${MBUSY0[$1]}" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

elapsed() { awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.1f", b - a }'; }

# Stops the stages still running in the background (their whole process trees).
stop_background() {
  local name
  for name in "${!PID[@]}"; do kill_tree "${PID[$name]}"; done
}
kill_tree() { # PID: TERM to the process and everything below it, children first
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
  kill -TERM "$1" 2>/dev/null || true
}
trap 'rm -rf "$LOGS"' EXIT
trap 'echo "[test-all] interrupted: stopping the stages still running"; stop_background; exit 130' INT TERM

finish() { # $1 = exit code, $2 = message
  echo
  echo "[test-all] stage times (s): wall; cpu = user + system of the stage's waited-for processes;"
  echo "  machine = every core's busy time while the stage ran (a stage started with others ran beside them)"
  printf '  %-16s %7s %7s %8s\n' stage wall cpu machine
  printf '  %s\n' "${SUMMARY[@]}"
  echo "[test-all] $2 (total $(elapsed "$T0") s)"
  echo "$PASSED passed, $FAILED failed"
  exit "$1"
}

skipped() { [[ " ${NAC_SKIP:-} " == *" $1 "* ]]; }
serial() { [ "${NAC_SERIAL:-0}" = 1 ]; }

# start_stage NAME KIND COMMAND... : starts a stage in the background, its output into
# $ART/NAME.log; KIND is `build` (exit code only) or `test` (its output ends with `N passed, N
# failed`). await_stage NAME collects it. With NAC_SERIAL=1 it runs in the foreground instead.
start_stage() {
  if serial; then run_stage "$@"; return; fi
  local name="$1"; begin_stage "$@" || return 0; shift 2
  echo "=== [$name] started beside the others: $* (log: test-artifacts/test-all/$name.log)"
  # The inner subshell: a stage function that calls `exit` still leaves its code and end time.
  ( ( "$@" ) >"$ART/$name.log" 2>&1; echo $? >"$LOGS/$name.rc"; date +%s.%N >"$LOGS/$name.end"; machine_busy >"$LOGS/$name.mend"; cpu_of_children >"$LOGS/$name.cpu" ) &
  PID[$name]=$!
}

# await_stage NAME... : waits for the named background stages, prints each one's whole log (one
# block per stage, so parallel stages do not interleave) and its verdict; then stops the run if
# any stage so far failed.
await_stage() {
  local name
  for name in "$@"; do collect "$name"; done
  stop_if_failed
}

# collect NAME : waits for a background stage (if it runs), prints its log and its verdict.
collect() {
  local name="$1" rc
  [ -n "${PID[$name]:-}" ] || return 0
  wait "${PID[$name]}"
  unset "PID[$name]"
  rc=$(cat "$LOGS/$name.rc" 2>/dev/null || echo 1)
  echo "=== [$name] output:"
  cat "$ART/$name.log"
  verdict "$name" "$rc" "$(cat "$LOGS/$name.end" 2>/dev/null || date +%s.%N)"
}

# run_stage NAME KIND COMMAND... : runs a stage in the foreground, its output to the terminal and
# $ART/NAME.log, then stops the run if it (or any stage so far) failed.
run_stage() {
  local name="$1"; begin_stage "$@" || return 0; shift 2
  run_now "$name" "$@"
  stop_if_failed
}

# begin_stage NAME KIND COMMAND... : notes the stage's kind, command and start; returns 1 (saying
# so) when NAC_SKIP names it.
begin_stage() {
  local name="$1" kind="$2"; shift 2
  if skipped "$name"; then echo "=== [$name] skipped (NAC_SKIP)"; return 1; fi
  KIND[$name]=$kind; CMD[$name]="$*"; START[$name]=$(date +%s.%N); MBUSY0[$name]=$(machine_busy)
}

run_now() {
  local name="$1"; shift
  echo "=== [$name] $*"
  # Started in the background and waited for: bash runs the INT/TERM trap only once a foreground
  # command ends, but interrupts a `wait` at once (and the trap stops this stage too).
  ( ( "$@" ) 2>&1 | tee "$ART/$name.log"; echo "${PIPESTATUS[0]}" >"$LOGS/$name.rc"; machine_busy >"$LOGS/$name.mend"; cpu_of_children >"$LOGS/$name.cpu" ) &
  PID[$name]=$!
  wait "${PID[$name]}"
  unset "PID[$name]"
  verdict "$name" "$(cat "$LOGS/$name.rc" 2>/dev/null || echo 1)" "$(date +%s.%N)"
}

# verdict NAME RC END : counts the stage's result into PASSED/FAILED and prints its line. A build
# stage that failed counts as 1 failed; a test stage counts its `N passed, N failed` line, and 1
# failed more when it exited non-zero without a failed test (a crash, a timeout, leftovers).
verdict() {
  local name="$1" rc="$2" t line p f
  t=$(elapsed "${START[$name]}" "$3")
  if [ "${KIND[$name]}" = build ]; then
    if [ "$rc" -ne 0 ]; then
      FAILED=$((FAILED + 1)); FAILED_STAGES+=("$name")
      echo "=== [$name] FAILED (exit $rc, $t s): ${CMD[$name]}"
    else
      echo "=== [$name] ok ($t s)"
    fi
    SUMMARY+=("$(printf '%-16s %7s %7s %8s  %s' "$name" "$t" "$(cpu "$name")" "$(machine_since "$name")" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)")")
    return
  fi
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ART/$name.log" | tail -1)
  p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"${line:-0 passed, 0 failed}")
  f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"${line:-0 passed, 0 failed}")
  if [ -z "$line" ] && [ "$rc" -ne 0 ]; then f=1; fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
    [ "$f" -eq 0 ] && FAILED=$((FAILED + 1))
    FAILED_STAGES+=("$name")
    echo "=== [$name] FAILED after $t s (exit $rc, ${line:-no result line})"
  else
    echo "=== [$name] ok: $p passed ($t s)"
  fi
  SUMMARY+=("$(printf '%-16s %7s %7s %8s  %s' "$name" "$t" "$(cpu "$name")" "$(machine_since "$name")" "${line:-no result line}")")
}

# Stops the run once a stage failed: waits for the stages still running (their results count
# too, and their logs are shown), then reports every failed stage.
stop_if_failed() {
  [ "${#FAILED_STAGES[@]}" -gt 0 ] || return 0
  local name
  for name in "${!PID[@]}"; do collect "$name"; done
  finish 1 "FAILED at stage(s) ${FAILED_STAGES[*]}; logs in test-artifacts/test-all/"
}

ensure_deps() {
  local want have=""
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  [ -f node_modules/.nac-lock-sha256 ] && have=$(cat node_modules/.nac-lock-sha256)
  if [ -d node_modules ] && [ "$want" = "$have" ]; then echo "node_modules up to date"; return 0; fi
  # An install made before this stamp existed: trust it if npm's own record is newer than the lock.
  if [ -z "$have" ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    echo "$want" > node_modules/.nac-lock-sha256; echo "node_modules up to date (stamped)"; return 0
  fi
  npm ci --no-audit --no-fund --loglevel=error && echo "$want" > node_modules/.nac-lock-sha256
}

# Unit test files at once by default: two, one per core (many tests wait on timers, other
# processes and the disk rather than the CPU). Journals opened by files at once no longer use up the
# user's inotify instances (128 here): a process's journals share its main thread's folder watch.
DEFAULT_UNIT_JOBS=2

clean_tsc() { rm -rf out && npx tsc -p .; }

unit_tests() {
  local files=()
  [ -d out/test/unit ] && mapfile -t files < <(find out/test/unit -name '*.test.js' | sort)
  if [ "${#files[@]}" -eq 0 ]; then echo "no unit tests under out/test/unit"; echo "0 passed, 0 failed"; return 0; fi
  local tap="$LOGS/unit.tap" rc tmp left
  # A temp directory of the stage's own: what the tests leave in it is theirs alone (other
  # processes on the machine write to the shared one), counted after the run below.
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/nac-unit-tmp.XXXXXX") || return 1
  # An interrupted run (test-all.sh stops the stages on INT/TERM) removes it too.
  trap 'rm -rf "$tmp"; exit 143' INT TERM
  # Per test (and per test file, which node's runner also times) 300 s: journalEngine.test.js, whose
  # crash trials start hundreds of journals, each migrating to the current schema, took 97-128 s
  # under load; the whole stage is bounded by UNIT_TIMEOUT below.
  # --no-concurrent-recompilation: on Node 20 a worker thread's exit can deadlock with a background
  # TurboFan compile of its code (docs/ARCHITECTURE.md), and this suite exits
  # hundreds of journal workers: it hung one CI run and 2 of 4 local runs. The flag reaches every
  # test file (and, through CHILD_NODE_FLAGS, their child processes); the product itself bounds
  # Journal.close instead.
  # Test files at once (NAC_UNIT_JOBS): node's default is one fewer than the cores (1 here), but
  # most files wait on fsync, worker threads and child processes rather than on the CPU.
  TMPDIR="$tmp" timeout --kill-after=10 "${NAC_UNIT_TIMEOUT:-900}" node --no-concurrent-recompilation --test --test-timeout=300000 \
    --test-concurrency="${NAC_UNIT_JOBS:-$DEFAULT_UNIT_JOBS}" \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "${files[@]}"
  rc=$?
  [ "$rc" -eq 124 ] && echo "unit tests did not finish within ${NAC_UNIT_TIMEOUT:-900} s (killed)"
  # Every temp folder a test makes is removed when its file's process exits (test/unit/helpers.ts
  # tempDir); anything left (a folder or a file) fails the stage. Before the result line, which
  # verdict reads as the last one.
  left=$(find "$tmp" -mindepth 1 -maxdepth 1 | wc -l)
  echo "unit tests left $left temp folder(s)"
  if [ "$left" -gt 0 ]; then
    find "$tmp" -mindepth 1 -maxdepth 1 -printf '  %f\n' | sort | head -10
    [ "$rc" -eq 0 ] && rc=1
  fi
  rm -rf "$tmp"
  tap_result "$tap" "$rc"
}

# tap_result TAP RC: prints `N passed, N failed` from node's TAP summary and returns RC.
# A test file or test that timed out is reported as cancelled, not failed: it counts as failed.
tap_result() {
  local p f c
  p=$(grep -E '^# pass [0-9]+' "$1" | tail -1 | awk '{print $3}')
  f=$(grep -E '^# fail [0-9]+' "$1" | tail -1 | awk '{print $3}')
  c=$(grep -E '^# cancelled [0-9]+' "$1" | tail -1 | awk '{print $3}')
  [ -n "$f" ] && f=$((f + ${c:-0}))
  echo "${p:-0} passed, ${f:-$([ "$2" -eq 0 ] && echo 0 || echo 1)} failed"
  return "$2"
}

# The order below: what a stage reads must be made by a stage awaited before it. Side by side only
# stages that do not write what another reads and do not both want the CPU for long:
#   vscode (network: apt, npm)    beside deps (network), tsc, lint, build and unit
#   lint, build                   beside tsc (lint and build read sources only; tsc writes out/)
#   vsix                          beside unit: it rebuilds dist/ (production, then development
#                                 again), which the unit tests never read; awaited before the
#                                 suite and the journeys, which install dist/
# The unit stage runs without a browser stage beside it: beside suite and e2e on these 2 cores it
# did not finish in 900 s and the real Claude Code CLI's tests missed their waits (session 15; docs/BENCHMARKS-HISTORY.md,
# "The test run" has the stage times since).
start_stage vscode build bash scripts/ensure-vscode.sh
run_stage deps build ensure_deps
start_stage lint build npm run lint
start_stage build build node esbuild.mjs
run_stage tsc build clean_tsc
await_stage lint build
start_stage vsix test node scripts/check-vsix.mjs
run_stage unit test unit_tests
await_stage vsix vscode
# Both runners have their own timeouts; `timeout` is the outer guard against a wedged browser
# (--foreground: the runner gets the SIGTERM and stops its code-server itself).
run_stage suite test timeout --foreground --kill-after=20 "${NAC_SUITE_STAGE_TIMEOUT:-600}" node out/test/runInCodeServer.js
run_stage e2e test timeout --foreground --kill-after=20 "${NAC_E2E_STAGE_TIMEOUT:-1800}" node out/test/e2e/run.js
finish 0 "all stages passed"
