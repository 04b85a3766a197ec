#!/usr/bin/env bash
# Installs web/'s npm packages exactly as its lock file says (npm ci), once per lock-file
# version; a file lock keeps two build directories from running npm in web/ at the same time.
#   scripts/web_deps.sh WEB_DIR STAMP_FILE
set -euo pipefail
web=$1
stamp=$2
hash=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
exec 9>"$web/.npm-ci.lock"
flock 9
if [ "$(cat "$web/node_modules/.cprof-lock-hash" 2>/dev/null || true)" != "$hash" ]; then
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$hash" >"$web/node_modules/.cprof-lock-hash"
fi
mkdir -p "$(dirname "$stamp")"
touch "$stamp"
