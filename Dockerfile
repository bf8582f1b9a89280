# toolhost in a container: the compiled build on node:20-slim, as a non-root
# user. Mount your config at /etc/toolhost/toolhost.yaml (and whatever files it
# names, e.g. under /etc/toolhost/); PORT and HOST are honoured.
#   docker build -t toolhost .
#   docker run -p 8080:8080 -v "$PWD/my-config:/etc/toolhost:ro" toolhost

# Build stage: compilers for better-sqlite3's native addon, the TypeScript build,
# then only the production dependencies.
FROM node:20-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY ui ./ui
COPY scripts/prepare.mjs ./scripts/prepare.mjs
# No .git here, so `prepare` builds nothing: the build compiles src/ to dist/ and the catalog browser (ui/) to dist/ui/.
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev --no-audit --no-fund

# Run stage: no compilers, no dev dependencies, no sources.
FROM node:20-slim
# MALLOC_MMAP_THRESHOLD_: large buffers (a list body, its gzip and br) come
# from mmap and go back to the system when freed; with glibc's sliding
# threshold they end up in its heap, which does not shrink, and the RSS of a
# host with 10,000 tools grew 9-11 % over 14 refreshes (docs/benchmarks.md,
# "Memory across refreshes").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
# The demo's packs and workflows, for a first run and the Kubernetes sample (docs/deploy.md).
COPY examples ./examples
# Writable place for the event log (point `events.file` at /var/lib/toolhost/events.sqlite).
RUN mkdir -p /var/lib/toolhost && chown node:node /var/lib/toolhost
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/toolhost.js"]
CMD ["serve", "--config", "/etc/toolhost/toolhost.yaml"]
