#!/usr/bin/env bash
# The wheel works anywhere: build it from the checkout (python -m build), install it non-editable into a
# fresh venv in a temporary folder outside the checkout, and from there replay the checkout's scenarios,
# run `baobei verify --players 2 --bmc-depth 1 --states 200 --table-depth 1` and play a match through
# `import baobei`. Exit 0 when all pass.
#
#   bash tools/wheel_check.sh            # KEEP=1 keeps the temporary folder and says where it is
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
[ "${KEEP:-}" = 1 ] && echo "wheel check folder: $work" || trap 'rm -rf "$work"' EXIT
python="${PYTHON:-python3}"

echo "== build (sdist, then the wheel from it)"
"$python" -m venv "$work/build-env"
"$work/build-env/bin/pip" install -q build==1.6.1
"$work/build-env/bin/python" -m build --outdir "$work/dist" "$repo" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/baobei-*.whl)"
unzip -l "$wheel" >"$work/wheel-files.txt"
for data in baobei/rules/01_deck.bao baobei/rules/induction.json baobei/grammar/rules.lark baobei/outline/sections.toml; do
    grep -q "$data" "$work/wheel-files.txt" || { echo "the wheel lacks $data"; exit 1; }
done

echo "== install $(basename "$wheel") into a fresh venv"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"

cd "$work"  # outside the checkout: nothing may be found through it
export BAOBEI_CACHE="$work/cache"
where="$("$work/venv/bin/python" -c 'import baobei, baobei.language.paths as p; print(baobei.__file__); print(p.default_rules_dir()); print(p.grammar_dir()); print(p.outline_dir())')"
echo "$where"
case "$where" in *"$repo"*) echo "the installed package reads the checkout"; exit 1 ;; esac

echo "== baobei check (the checkout's scenarios, with the installed rules)"
"$work/venv/bin/baobei" check -q "$repo/scenarios"
# The shipped record and Z3 from the installed package; one move of bounded model checking and a short
# search are enough to show they run (19 s -> 8 s of CPU here; the defaults are judged by `baobei docs
# --check` from the checkout).
echo "== baobei verify --players 2 --bmc-depth 1 --states 200 --table-depth 1"
"$work/venv/bin/baobei" verify --players 2 --bmc-depth 1 --states 200 --table-depth 1
echo "== a match through import baobei"
"$work/venv/bin/python" - <<'EOF'
import random

import baobei

state = baobei.Game.load().new_match(["ann", "ben"], seed=1)
rng = random.Random(1)
while not state.is_over():
    state.push(state.random_move(rng))
print("winner:", state.outcome().winner)
EOF
echo "wheel check: the installed wheel works outside the checkout"
