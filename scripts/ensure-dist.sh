#!/bin/sh
# Builds dist/ (the compiled service every start command runs) when it is missing or older than the sources, so a
# start never compiles unless it has to: `npm ci` builds it once (package.json `prepare`), `npm start` only checks
# (`prestart`, a few milliseconds). TypeScript is a dev dependency: in a production install (`npm ci --omit=dev`)
# dist/ must come built (a release tarball, the Docker image's build stage).
#   ensure-dist.sh install   from `prepare`: build if possible; a production install without dist is not an error yet
#   ensure-dist.sh start     from `prestart`: a missing dist that cannot be built stops the start with what to do
set -eu
cd "$(dirname "$0")/.."
mode=${1:-start}
tsc=node_modules/typescript/bin/tsc

build() {
  echo "marketlens: compiling src into dist/ ($1)" >&2
  node "$tsc" -p tsconfig.build.json
  touch dist/.built
}

# An install before the sources are there (the Docker image's dependency stage) has nothing to build.
if [ "$mode" = install ] && { [ ! -d src ] || [ ! -f tsconfig.build.json ]; }; then exit 0; fi

if [ ! -f dist/cli.js ]; then
  if [ -f "$tsc" ] && [ -d src ]; then build "no build yet"; exit 0; fi
  [ "$mode" = install ] && exit 0
  echo "marketlens: dist/ is missing and TypeScript is not installed: run \`npm ci && npm run build\` (a full install), or use a built release" >&2
  exit 1
fi

# A tree without sources (the Docker image, a release) is what it is.
[ -d src ] || exit 0
# The newest build stamp: `npm run build`'s, or the test suite's (test/support/build-dist.ts).
stamp=
for f in dist/.built dist/.source-hash; do
  if [ -f "$f" ] && { [ -z "$stamp" ] || [ "$f" -nt "$stamp" ]; }; then stamp=$f; fi
done
if [ -n "$stamp" ] && [ -z "$(find src tsconfig.json tsconfig.build.json package.json -newer "$stamp" -type f | head -n 1)" ]; then
  exit 0
fi
if [ -f "$tsc" ]; then build "the sources changed since the last build"; exit 0; fi
echo "marketlens: dist/ may be older than src/ and TypeScript is not installed to rebuild it; starting the existing build" >&2
