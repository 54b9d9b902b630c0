# syntax=docker/dockerfile:1
# The gateway as one non-root node process. The build and run steps are the npm scripts the
# tests run outside Docker: `npm ci`, `npm run build`, then `node dist/cli.js` (= npm run start:prod).
# The workspace packages (packages/*: the REST contract, the sandbox) are built beside the gateway
# and installed as the links `npm ci` makes from their manifests, so each manifest is copied
# before `npm ci` and each build after it.
ARG NODE_VERSION=20.19

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/rest-contract/package.json ./packages/rest-contract/
COPY packages/sandbox/package.json ./packages/sandbox/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY packages/rest-contract/tsconfig.build.json ./packages/rest-contract/
COPY packages/rest-contract/src ./packages/rest-contract/src
COPY packages/sandbox/tsconfig.build.json ./packages/sandbox/
COPY packages/sandbox/src ./packages/sandbox/src
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# HOST: a container is reached through its own interface, never its loopback, so the gateway
# listens on every interface here even without UPSTREAM_URL (the embedded demo sandbox stays on
# the container's loopback, reached in-process). `docker run -p 4000:4000 <image>` serves the
# demo; add `-e UPSTREAM_URL=https://api.ynab.com/v1` for the real upstream. compose.yaml runs
# several instances with Redis (docs/operating.md#docker).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/rest-contract/package.json ./packages/rest-contract/
COPY packages/sandbox/package.json ./packages/sandbox/
COPY packages/sandbox/bin ./packages/sandbox/bin
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/rest-contract/dist ./packages/rest-contract/dist
COPY --from=build /app/packages/sandbox/dist ./packages/sandbox/dist
# DATA_DIR (./data): the webhooks' SQLite file when WEBHOOK_KEY is set; mount a volume here to
# keep endpoints and their outbox across containers.
RUN mkdir -p data && chown node:node data
VOLUME /app/data
USER node
EXPOSE 4000
# /health is liveness (the process answers); /ready also probes the upstream.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains operations in flight for SHUTDOWN_GRACE_MS (default 10 s): give `docker stop`
# a longer timeout (docker stop -t 15) when raising it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli.js"]
