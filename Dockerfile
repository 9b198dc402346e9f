# syntax=docker/dockerfile:1
# marketlens image: `docker build -t marketlens .`, then `docker compose up -d` (compose.yaml) or
#   docker run -d -p 8080:8080 -v marketlens-data:/data marketlens
# Three stages: production dependencies, the compiled service, and a slim runtime holding only those two.
# test/production-install.test.ts runs the `deps` stage's steps in a clean copy and serves /healthz from the result.
ARG NODE_VERSION=22

# Compilers for native modules (better-sqlite3 builds from source when no prebuilt binary matches).
FROM node:${NODE_VERSION}-bookworm-slim AS toolchain
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Production dependencies only (what the runtime stage copies).
FROM toolchain AS deps
COPY package.json package-lock.json ./
COPY scripts/ensure-dist.sh scripts/
RUN npm ci --omit=dev --no-audit --no-fund

# The compiled service: dev dependencies (TypeScript) and the sources, built once here, never at start.
FROM toolchain AS build
COPY package.json package-lock.json ./
COPY scripts/ensure-dist.sh scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MARKETLENS_HOST=0.0.0.0 \
    MARKETLENS_PORT=8080 \
    MARKETLENS_DATA_DIR=/data \
    PATH=/app/bin:$PATH
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json LICENSE ./
COPY bin bin
# The dashboard's page files are served from <package>/dashboard (src/dashboard/assets.ts).
COPY dashboard dashboard
# (`npm start` and `npm run marketlens` check dist with it first)
COPY scripts/ensure-dist.sh scripts/
# The data volume belongs to the unprivileged `node` user (uid 1000) of the base image; the service runs as it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MARKETLENS_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# bin/marketlens is a sh script that `exec`s node with the service's V8 flags: node replaces the shell and runs as
# PID 1, and the service handles SIGTERM itself (drains, then exits; MARKETLENS_SHUTDOWN_DELAY_MS/_TIMEOUT_MS). Run
# with `--init` (compose.yaml: `init: true`) when the browser tier's Chromium runs inside, so its children are reaped.
STOPSIGNAL SIGTERM
ENTRYPOINT ["bin/marketlens"]
CMD ["serve"]
