# syntax=docker/dockerfile:1
# One container: API, scheduler and web front end. Configure it through the environment
# (see README). Without DATABASE_URL it runs the embedded PostgreSQL with data in /data.
FROM oven/bun:1.4 AS deps
WORKDIR /app
COPY package.json bun.lock ./
# patchedDependencies (postgres.js fix, see README "Failure behaviour") are applied at install.
COPY patches ./patches
RUN bun install --frozen-lockfile --production

FROM oven/bun:1.4
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock tsconfig.json ./
COPY sql ./sql
COPY src ./src
RUN mkdir -p /data && chown -R bun:bun /data
USER bun
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/status/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["bun", "run", "src/server.ts"]
