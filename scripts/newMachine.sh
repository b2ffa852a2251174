#!/usr/bin/env bash
# The README's two set-up commands as a new user runs them: a clone with no ../shared beside it, no helm
# on PATH, an empty home (so no cache folder: no reference folder, no built tools), no CI variable.
# `npm test` must pass there, and its closing line must name each skipped group and how to enable it
# (docs/testing.md, "What a fresh machine runs"). .ci/run runs this after the everyday suite.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
node_dir="$(dirname "$(command -v node)")"

# A temporary folder, so the clone has no ../shared beside it wherever the repository lives.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/clone"
mkdir "$work/home" "$work/tmp"

# The commands are read from the README's "Two commands" block, so this runs what users read.
commands="$(awk '/^## Two commands/ { inside = 1 } inside && /^```/ { if (block) exit; block = 1; next } block { print }' \
  "$repo/README.md" | sed -e 's/[[:space:]]*#.*$//')"
if [ "$(printf '%s\n' "$commands" | grep -c .)" -ne 2 ]; then
  echo "newMachine: README.md's \"Two commands\" block should hold exactly two commands, found:" >&2
  printf '%s\n' "$commands" >&2
  exit 1
fi

# Only Node.js, npm and the base system on PATH. The npm cache is the machine's: it saves downloads and
# changes nothing that runs (npm ci installs exactly the lockfile either way). How the machine reaches the
# network (its proxy and the CAs it trusts) is the machine's, not the project's, so it passes through:
# without its CA, Node waits on every TLS connection to the registry behind an intercepting proxy.
clean_env=(env -i "HOME=$work/home" "TMPDIR=$work/tmp" "PATH=$node_dir:/usr/bin:/bin"
  "npm_config_cache=${npm_config_cache:-$HOME/.npm}")
for name in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  if [ -n "${!name:-}" ]; then clean_env+=("$name=${!name}"); fi
done
if "${clean_env[@]}" sh -c 'command -v helm' >/dev/null; then
  echo "newMachine: helm is on the base PATH ($("${clean_env[@]}" sh -c 'command -v helm')); this check needs a machine without it" >&2
  exit 1
fi

echo "newMachine: in $work/clone, with HOME empty, no helm, no ../shared and CI unset:"
printf '  %s\n' "$commands"
cd "$work/clone"
"${clean_env[@]}" bash -euo pipefail -c "$commands" 2>&1 | tee "$work/output.log"

# Every skip is counted by its reason, with the command that enables it (test/skips.js).
closing="$(grep -E '^[0-9]+ passed' "$work/output.log" | tail -n 1)"
echo
if ! printf '%s' "$closing" | grep -qE ' skipped: .*\(enable: '; then
  echo "newMachine: npm test passed but its closing line does not name what it skipped and how to enable it:" >&2
  echo "  ${closing:-no closing line}" >&2
  exit 1
fi
[ -s out/dev/resources.yaml ] || {
  echo "newMachine: the render wrote no out/dev/resources.yaml" >&2
  exit 1
}
echo "newMachine: both commands passed; $closing"
