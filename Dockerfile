# syntax=docker/dockerfile:1
# One container: API, scheduler and web front end. Configure it through the environment
# (docs/configuration.md and docs/operations.md). Without DATABASE_URL it runs the embedded
# PostgreSQL with data in /data (one instance only).
#
# Several instances behind a load balancer need the same:
#   DATABASE_URL           one PostgreSQL (managed; a pooler in transaction mode is fine)
#   JWT_SECRET             the same secret on every instance (at least 32 characters)
#   FILE_STORAGE=s3        with S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
#                          S3_SECRET_ACCESS_KEY (or one shared DATA_DIR volume with local files)
#   TRUST_PROXY=true       behind the load balancer, so client addresses are the real ones
#   COOKIE_SECURE=true     when served over HTTPS
# and may set METRICS_PORT (Prometheus /metrics on a private port), CORS_ORIGINS,
# DB_POOL_MAX, REMINDER_SCAN_CRON, STORAGE_SWEEP_CRON.
# The base image is a build argument, so the image builds where Docker Hub is not reachable
# (.ci/container-check.sh builds a stand-in from Debian packages and the npm Bun binary).
ARG BUN_IMAGE=oven/bun:1.4
FROM ${BUN_IMAGE} AS deps
WORKDIR /app
COPY package.json bun.lock ./
# patchedDependencies (patches/) are applied by the install.
COPY patches ./patches
RUN bun install --frozen-lockfile --production

# The web front end is bundled here, once, not by each container at run time.
FROM deps AS web
COPY tsconfig.json ./
COPY src ./src
RUN bun run src/cli/build-web.ts /app/dist/web
# A ready embedded-database cluster: a container's first start copies it into /data/pgdata
# instead of running initdb (~1 GB RSS); initdb's peak is paid here, on the build machine.
RUN bun run src/db/init-embedded.ts /app/pgdata-template && chmod -R a+rX /app/pgdata-template

FROM ${BUN_IMAGE}
WORKDIR /app
# BUN_JSC_forceRAMSize: the RAM JavaScriptCore sizes its heap for. Left alone it reads the
# host's (24 GiB on the bench machine), lets garbage pile up and peaks at 369 MB under 64
# whole-course grade overviews; sized for a 512 MiB container it peaks at 238 MB (the heaviest
# answer gets ~20 % slower). Raise it with the container's memory limit.
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/data \
    WEB_DIST_DIR=/app/dist/web \
    EMBEDDED_TEMPLATE_DIR=/app/pgdata-template \
    BUN_JSC_forceRAMSize=536870912
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock tsconfig.json ./
COPY sql ./sql
COPY src ./src
COPY --from=web /app/dist/web ./dist/web
COPY --from=web /app/pgdata-template ./pgdata-template
# Runs as the image's unprivileged `bun` user; only /data is writable by it.
RUN mkdir -p /data && chown -R bun:bun /data
USER bun
VOLUME ["/data"]
EXPOSE 8080
# Liveness. For load-balancer readiness use /status/ready (503 while draining or while the
# database is unreachable).
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/status/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["bun", "run", "src/server.ts"]
