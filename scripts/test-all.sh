#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run → npm test). Stages, stopping at the first failure:
#   deps      npm ci when node_modules is missing or package-lock.json changed (hash stamp)
#   vscode    bash scripts/ensure-vscode.sh (chromium, Node 24, code-server into .vscode-test/)
#   tsc       a clean `npx tsc -p .` into out/
#   lint      npm run lint: ESLint (eslint.config.mjs: layer imports), Stylelint on media/*.css
#             (.stylelintrc.json: a syntax error or a nested rule fails) and the per-layer TypeScript
#             settings (tsconfig.core.json: src/core, src/protocol with no DOM and no Node globals;
#             tsconfig.webview.json: webview/ with the DOM, no Node; tsconfig.node.json: src/journal,
#             src/runtime with Node's types, no DOM, mocha or `vscode`)
#   build     node esbuild.mjs into dist/
#   unit      node --test over out/test/unit/**/*.test.js, with TMPDIR a fresh folder: fails when
#             the tests leave anything in it (`unit tests left N temp folder(s)`)
#   suite     node out/test/runInCodeServer.js (mocha suite in code-server's real extension host)
#   e2e       node out/test/e2e/run.js (restart and two-window journeys in Chromium; screenshots in test-artifacts/e2e)
#   vsix      node scripts/check-vsix.mjs (package the VSIX: small, no agent CLI binaries, no sources)
#   unit-exhaustive  the corrupted-log-tail corpus at every byte (NAC_EXHAUSTIVE=1; the unit stage samples it)
# Output: each stage's log and timing, then one combined line `N passed, N failed` (a failed
# build-type stage counts as 1 failed). Exit code 0 only if every stage passed.
# Env: NAC_SKIP="e2e suite" skips the named stages (for local iteration; CI skips nothing);
#      NAC_UNIT_TIMEOUT / NAC_SUITE_STAGE_TIMEOUT / NAC_E2E_STAGE_TIMEOUT (s; 900/600/1800) bound stages.
# Never hangs: unit tests have a 300 s per-test timeout and each test stage an overall one.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

PASSED=0
FAILED=0
T0=$(date +%s.%N)
LOGS="$(mktemp -d "${TMPDIR:-/tmp}/nac-test-all.XXXXXX")"
trap 'rm -rf "$LOGS"' EXIT

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

finish() { # $1 = exit code, $2 = message
  echo
  echo "[test-all] $2 (total $(elapsed "$T0") s)"
  echo "$PASSED passed, $FAILED failed"
  exit "$1"
}

skipped() { [[ " ${NAC_SKIP:-} " == *" $1 "* ]]; }

# run_stage NAME COMMAND... : runs a build-type stage; on failure stops everything.
run_stage() {
  local name="$1"; shift
  if skipped "$name"; then echo "=== [$name] skipped (NAC_SKIP)"; return; fi
  echo "=== [$name] $*"
  local t; t=$(date +%s.%N)
  if ! "$@"; then
    FAILED=$((FAILED + 1))
    finish 1 "FAILED at stage '$name' after $(elapsed "$t") s: $*"
  fi
  echo "=== [$name] ok ($(elapsed "$t") s)"
}

# test_stage NAME COMMAND... : runs a stage whose output ends with `N passed, N failed`.
test_stage() {
  local name="$1"; shift
  if skipped "$name"; then echo "=== [$name] skipped (NAC_SKIP)"; return; fi
  echo "=== [$name] $*"
  local t rc line p f; t=$(date +%s.%N)
  "$@" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/$name.log" | tail -1)
  p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"${line:-0 passed, 0 failed}")
  f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"${line:-0 passed, 0 failed}")
  if [ -z "$line" ] && [ "$rc" -ne 0 ]; then f=1; fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
    [ "$f" -eq 0 ] && FAILED=$((FAILED + 1))
    finish 1 "FAILED at stage '$name' after $(elapsed "$t") s (exit $rc, ${line:-no result line})"
  fi
  echo "=== [$name] ok: $p passed ($(elapsed "$t") s)"
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

clean_tsc() { rm -rf out && npx tsc -p .; }

unit_tests() {
  local files=()
  [ -d out/test/unit ] && mapfile -t files < <(find out/test/unit -name '*.test.js' | sort)
  if [ "${#files[@]}" -eq 0 ]; then echo "no unit tests under out/test/unit"; echo "0 passed, 0 failed"; return 0; fi
  local tap="$LOGS/unit.tap" rc tmp left
  # A temp directory of the stage's own: what the tests leave in it is theirs alone (other
  # processes on the machine write to the shared one), counted after the run below.
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/nac-unit-tmp.XXXXXX") || return 1
  # Per test (and per test file, which node's runner also times) 300 s: journalEngine.test.js, whose
  # crash trials start hundreds of journals, each migrating to the current schema, took 97-128 s
  # under load; the whole stage is bounded by UNIT_TIMEOUT below.
  # --no-concurrent-recompilation: on Node 20 a worker thread's exit can deadlock with a background
  # TurboFan compile of its code (docs/ARCHITECTURE.md), and this suite exits
  # hundreds of journal workers: it hung one CI run and 2 of 4 local runs. The flag reaches every
  # test file (and, through CHILD_NODE_FLAGS, their child processes); the product itself bounds
  # Journal.close instead.
  TMPDIR="$tmp" timeout --kill-after=10 "${NAC_UNIT_TIMEOUT:-900}" node --no-concurrent-recompilation --test --test-timeout=300000 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "${files[@]}"
  rc=$?
  [ "$rc" -eq 124 ] && echo "unit tests did not finish within ${NAC_UNIT_TIMEOUT:-900} s (killed)"
  # Every temp folder a test makes is removed when its file's process exits (test/unit/helpers.ts
  # tempDir); anything left (a folder or a file) fails the stage. Before the result line, which
  # test_stage reads as the last one.
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

exhaustive_corpus() {
  local tap="$LOGS/unit-exhaustive.tap"
  NAC_EXHAUSTIVE=1 timeout --kill-after=10 600 node --no-concurrent-recompilation --test --test-timeout=480000 \
    --test-name-pattern='corrupted log tails' --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" out/test/unit/journalEngine.test.js
  tap_result "$tap" $?
}

run_stage deps ensure_deps
run_stage vscode bash scripts/ensure-vscode.sh
run_stage tsc clean_tsc
run_stage lint npm run lint
run_stage build node esbuild.mjs
test_stage unit unit_tests
# Both runners have their own timeouts; `timeout` is the outer guard against a wedged browser
# (--foreground: the runner gets the SIGTERM and stops its code-server itself).
test_stage suite timeout --foreground --kill-after=20 "${NAC_SUITE_STAGE_TIMEOUT:-600}" node out/test/runInCodeServer.js
test_stage e2e timeout --foreground --kill-after=20 "${NAC_E2E_STAGE_TIMEOUT:-1800}" node out/test/e2e/run.js
test_stage vsix node scripts/check-vsix.mjs
# The exhaustive corruption corpus (every byte of the last log records, ~3x the sampled default of
# the unit stage), last so a regression elsewhere is reported first.
test_stage unit-exhaustive exhaustive_corpus
finish 0 "all stages passed"
