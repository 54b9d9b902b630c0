# syntax=docker/dockerfile:1
# The gateway as one non-root node process. The build and run steps are the npm scripts the
# tests run outside Docker: `npm ci`, `npm run build`, then `node dist/cli.js` (= npm run start:prod).
ARG NODE_VERSION=20.19

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
# /health is liveness (the process answers); /ready also probes the upstream.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains operations in flight for SHUTDOWN_GRACE_MS (default 10 s): give `docker stop`
# a longer timeout (docker stop -t 15) when raising it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli.js"]
