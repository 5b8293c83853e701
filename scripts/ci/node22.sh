#!/usr/bin/env bash
# The Node 22 tier of CI (.ci/run): Node 22's runtime from the npm registry (the node-linux-<arch>
# package, the one the `node` package's installer fetches), then the fast tier (vitest project
# `unit`) and the tmux smoke test of the live view on it. Run after `npm install` (dist/ is built).
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE22_VERSION=22.23.3
case "$(uname -m)" in
	x86_64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) echo "scripts/ci/node22.sh: no Node 22 package for $(uname -m)" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "node-linux-$arch@$NODE22_VERSION" >/dev/null && tar xzf "node-linux-$arch-$NODE22_VERSION.tgz")
node22="$work/package/bin/node"
echo "node22.sh: $("$node22" --version) at $node22"

"$node22" node_modules/vitest/vitest.mjs run --project unit
"$node22" node_modules/vitest/vitest.mjs run --project system test/e2e/tui-tmux.test.ts test/cli/bin.test.ts
