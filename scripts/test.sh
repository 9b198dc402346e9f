#!/bin/sh
# `npm test`: the static checks (typecheck and lint in one TypeScript program, the format check, the import-cycle
# check) run beside vitest instead of before it. Vitest's process tests leave part of the two cores idle while they
# wait on their child processes; the checks, at a lower CPU priority, fill that time instead of adding ~30 s in front
# of the suite. Their output is kept and printed after vitest's, with one exit status for both. Vitest builds dist
# itself (test/support/build-dist.ts), so the checks do not build it here.
set -u
started=$(node -p 'Date.now()')
log=$(mktemp "${TMPDIR:-/tmp}/marketlens-checks.XXXXXX")
trap 'rm -f "$log"' EXIT

(
  nice -n 10 node --import tsx scripts/typecheck-and-lint.ts & t=$!
  nice -n 10 node_modules/.bin/prettier --check --log-level warn . & p=$!
  nice -n 10 npm run --silent cycles & c=$!
  s=0
  for j in $t $p $c; do wait "$j" || s=1; done
  exit $s
) >"$log" 2>&1 &
checks=$!

node_modules/.bin/vitest run "$@"
tests=$?
wait "$checks"
checked=$?

echo
echo "checks (typecheck, lint, format, import cycles; beside the tests):"
sed 's/^/  /' "$log"
if [ "$checked" -eq 0 ]; then echo "  checks passed"; else echo "  checks FAILED"; fi
echo "npm test wall time: $(node -p "((Date.now() - $started) / 1000).toFixed(1)") s"
[ "$tests" -eq 0 ] && [ "$checked" -eq 0 ]
