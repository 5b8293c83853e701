#!/usr/bin/env bash
# The three ways to install hfx (README: Install) and the update of a clone, each on a fresh folder under one temp dir, each
# ending in `hfx scan` of a copy of a real fixture whose verdicts must match its expected.json and
# whose files must not change (sha256 before and after):
#   a. a clone of HEAD and `npm install` with no compiler, no python3, no make and no Node headers
#      reachable (a PATH of symlinks to only the tools needed, npm_config_nodedir=/nonexistent, an
#      empty HOME), run by the Node on PATH (>= 20: the system Node is fine);
#   b. `npm pack`, then `npm install -g --prefix DIR --ignore-scripts` of the tarball, then DIR/bin/hfx
#      under the Node 24 the clone installed;
#   c. `npm run package`, then the linux-x64 archive extracted elsewhere and its bin/hfx run under
#      `env -i` (no PATH, so no Node), directly and through a symlink;
#   d. a clone installed before the Ink patch last changed, then `git checkout` of HEAD and `npm install` again.
# Needs the npm registry (a fresh HOME has an empty npm cache). Tests what is committed (HEAD), not
# the work tree. CI runs it after `npm test`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd -P)
fixture=$repo/test/fixtures/hermes-v21-incident
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hfx-install-paths.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start_all=$SECONDS

step() { printf '\n== %s\n' "$*"; step_start=$SECONDS; }
took() { printf '  %s: %ss\n' "$1" "$((SECONDS - step_start))"; }
fail() { printf 'install-paths: %s\n' "$*" >&2; exit 1; }

# A copy of the fixture per path, its files' sha256 recorded.
fixture_copy() {
	mkdir -p "$tmp/$1"
	cp "$fixture/state.db" "$tmp/$1/state.db"
	(cd "$tmp/$1" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$tmp/$1.sha256"
}

# hfx scan --json of that copy: the verdicts against expected.json, then the copy's files unchanged.
# $1 the copy's name, $2 the Node that runs the checker, then the hfx command.
scan_and_check() {
	local name=$1 checker_node=$2
	shift 2
	local code=0
	"$@" scan --db "$tmp/$name/state.db" --json >"$tmp/$name.json" 2>"$tmp/$name.err" || code=$?
	if [ "$code" != 1 ]; then
		cat "$tmp/$name.err" >&2
		fail "$name: hfx scan exited $code, expected 1 (findings)"
	fi

	"$checker_node" "$repo/scripts/ci/expect-scan.mjs" "$fixture/expected.json" "$tmp/$name.json" "$code"
	(cd "$tmp/$name" && find . -type f | LC_ALL=C sort | xargs sha256sum) | diff "$tmp/$name.sha256" - >/dev/null \
		|| fail "$name: the scanned store's folder changed (sha256 before and after differ)"
	echo "  the scanned copy is byte-identical (sha256 of every file in its folder)"
}

host_node=$(command -v node) || fail "no node on PATH"
node_major=$("$host_node" -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || fail "$host_node is Node $node_major; npm install needs Node >= 20"
npm_cli=$(readlink -f "$(command -v npm)") || fail "no npm on PATH"
# npm reads its global npmrc from its prefix, which follows the Node that runs it (and --prefix):
# every npm below reads the host npm's instead (a registry mirror or CA file configured there).
globalconfig=$("$host_node" "$npm_cli" config get globalconfig)

# --- a. clone + npm install, no compiler -------------------------------------------------------
step "a. git clone of HEAD, npm install with no compiler and no Node headers (npm $("$host_node" "$npm_cli" --version) on Node $("$host_node" --version))"
nocc=$tmp/nocc-bin
mkdir -p "$nocc" "$tmp/home"
ln -s "$host_node" "$nocc/node"
ln -s "$npm_cli" "$nocc/npm"
for tool in sh bash env git basename cat chmod cp dirname head ln ls mkdir mktemp mv readlink rm sed sort tail tar touch tr uname; do
	found=$(command -v "$tool") || fail "no $tool on PATH"
	ln -s "$found" "$nocc/$tool"
done
found_cc=$(PATH=$nocc command -v cc gcc g++ c++ clang make gmake python3 python node-gyp 2>/dev/null || true)
[ -z "$found_cc" ] || fail "the compiler-free PATH still finds: $found_cc"
echo "  PATH=$nocc: command -v cc gcc g++ c++ clang make gmake python3 python node-gyp finds nothing"

git clone --quiet --no-hardlinks "$repo" "$tmp/clone"
echo "  cloned $(git -C "$tmp/clone" log -1 --format='%h %s' | cut -c1-80)"
clean_env=(env -i "PATH=$nocc" "HOME=$tmp/home" "TMPDIR=$tmp" "npm_config_nodedir=/nonexistent" "npm_config_globalconfig=$globalconfig" "npm_config_update_notifier=false" "npm_config_audit=false" "npm_config_fund=false" "CI=true")
(cd "$tmp/clone" && "${clean_env[@]}" npm install --no-progress >"$tmp/npm-install.log" 2>&1) || { tail -40 "$tmp/npm-install.log" >&2; fail "a: npm install failed without a compiler"; }
took "npm install"
[ ! -e "$tmp/clone/node_modules/better-sqlite3/build" ] || fail "a: better-sqlite3's node-gyp ran (node_modules/better-sqlite3/build exists)"
echo "  no native build: node_modules/better-sqlite3/build absent; better-sqlite3 loads prebuilds/linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/').node"
node24=$tmp/clone/node_modules/.bin/node
echo "  node_modules/.bin/node is $("$node24" --version)"
fixture_copy a
scan_and_check a "$host_node" "${clean_env[@]}" "$node24" "$tmp/clone/dist/hfx.js"
took "a"

# --- b. npm pack + global install with no install script ---------------------------------------
step "b. npm pack, npm install -g --prefix DIR --ignore-scripts, DIR/bin/hfx"
b_env=(env -i "PATH=$tmp/clone/node_modules/.bin:$nocc" "HOME=$tmp/home" "TMPDIR=$tmp" "npm_config_nodedir=/nonexistent" "npm_config_globalconfig=$globalconfig" "npm_config_update_notifier=false" "npm_config_audit=false" "npm_config_fund=false")
mkdir -p "$tmp/pack"
# The clone's npm install ran prepare (the build) already: pack what it built.
(cd "$tmp/clone" && "${b_env[@]}" npm pack --ignore-scripts --pack-destination "$tmp/pack" >"$tmp/npm-pack.log" 2>&1) || { cat "$tmp/npm-pack.log" >&2; fail "b: npm pack failed"; }
tarball=$(ls "$tmp"/pack/hermes-forensics-*.tgz)
echo "  $(basename "$tarball"): $(du -k "$tarball" | cut -f1) KiB"
(cd "$tmp/pack" && "${b_env[@]}" npm install -g --prefix "$tmp/global" --ignore-scripts --no-progress "./$(basename "$tarball")" >"$tmp/npm-global.log" 2>&1) \
	|| { tail -40 "$tmp/npm-global.log" >&2; fail "b: npm install -g failed"; }
took "npm install -g"
echo "  installed: $(du -sk "$tmp/global/lib/node_modules/hermes-forensics" | cut -f1) KiB, $(ls "$tmp/global/lib/node_modules/hermes-forensics/node_modules" | tr '\n' ' ')"
fixture_copy b
scan_and_check b "$host_node" "${b_env[@]}" "$tmp/global/bin/hfx"
took "b"

# --- c. the standalone archive under env -i ----------------------------------------------------
step "c. npm run package, the linux-x64 archive extracted elsewhere, bin/hfx under env -i"
(cd "$tmp/clone" && "${b_env[@]}" npm run --silent package >"$tmp/package.out" 2>"$tmp/package.log") || { tail -40 "$tmp/package.log" >&2; fail "c: npm run package failed"; }
took "npm run package"
while IFS=$'\t' read -r archive packed unpacked; do
	printf '  %s: %s bytes packed (%s MB), %s bytes unpacked (%s MB)\n' "$(basename "$archive")" "$packed" "$((packed / 1048576))" "$unpacked" "$((unpacked / 1048576))"
	[ "$packed" -lt $((60 * 1048576)) ] || fail "c: $(basename "$archive") is over 60 MB"
done < <(grep -P '\.tar\.gz\t' "$tmp/package.out")
archive=$(ls "$tmp"/clone/release/hfx-*-linux-x64.tar.gz)
version=$("$host_node" -p "require('$tmp/clone/package.json').version")
mkdir -p "$tmp/standalone"
tar -xzf "$archive" -C "$tmp/standalone"
hfx=$tmp/standalone/hfx-$version-linux-x64/bin/hfx
[ -x "$hfx" ] || fail "c: no bin/hfx in $(basename "$archive")"
echo "  top level: $(cd "$tmp/standalone/hfx-$version-linux-x64" && ls | tr '\n' ' ')"
got=$(env -i "$hfx" --version)
[ "$got" = "$version" ] || fail "c: env -i bin/hfx --version printed '$got', expected $version"
mkdir -p "$tmp/links"
ln -s "$hfx" "$tmp/links/hfx"
got=$(env -i "$tmp/links/hfx" --version)
[ "$got" = "$version" ] || fail "c: bin/hfx through a symlink printed '$got', expected $version"
echo "  env -i bin/hfx --version: $got (directly and through a symlink)"
fixture_copy c
scan_and_check c "$host_node" env -i "$hfx"
fixture_copy c-link
scan_and_check c-link "$host_node" env -i "$tmp/links/hfx"
took "c"

# --- d. an existing clone pulls a changed patch ------------------------------------------------
# A clone installed at the commit before the Ink patch last changed, moved to HEAD, `npm install` again: npm keeps the
# installed Ink (patched by the old patch), which the new patch does not apply to; prepare (scripts/patches.mjs) puts
# the published Ink back and patches it again. Its Ink must then be a fresh install's, byte for byte.
step "d. an existing clone updated across a change of the Ink patch: npm install, git checkout HEAD, npm install"
changed=$(git -C "$repo" log -1 --format=%H -- 'source/ui/ink/ink+*.patch')
if ! git -C "$repo" rev-parse --quiet --verify "$changed~1^{commit}" >/dev/null; then
	echo "  SKIPPED: $repo has no parent of $changed (a shallow clone?)"
else
	git clone --quiet --no-hardlinks "$repo" "$tmp/update"
	git -C "$tmp/update" checkout --quiet "$changed~1"
	echo "  installed at $(git -C "$tmp/update" log -1 --format='%h %s' | cut -c1-80)"
	(cd "$tmp/update" && "${clean_env[@]}" npm install --no-progress >"$tmp/npm-old.log" 2>&1) || { tail -40 "$tmp/npm-old.log" >&2; fail "d: npm install of the older commit failed"; }
	git -C "$tmp/update" checkout --quiet -
	(cd "$tmp/update" && "${clean_env[@]}" npm install --no-progress >"$tmp/npm-update.log" 2>&1) || { tail -40 "$tmp/npm-update.log" >&2; fail "d: npm install after the update failed"; }
	grep -q 'put back as published' "$tmp/npm-update.log" || fail "d: prepare did not put Ink back (was the patch unchanged?)"
	diff -r "$tmp/clone/node_modules/ink" "$tmp/update/node_modules/ink" >/dev/null || fail "d: the updated clone's Ink differs from a fresh install's"
	took "npm install twice"
	echo "  node_modules/ink is a fresh install's, byte for byte"
	fixture_copy d
	scan_and_check d "$host_node" "${clean_env[@]}" "$node24" "$tmp/update/dist/hfx.js"
	took "d"
fi

printf '\ninstall-paths: all four install paths work (%ss)\n' "$((SECONDS - start_all))"
