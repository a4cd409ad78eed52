# syntax=docker/dockerfile:1
# Build stage: install everything, compile TypeScript, build the console (console/dist).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/install-deps.sh scripts/check-lock.js ./scripts/
RUN bash scripts/install-deps.sh
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only, as an unprivileged user.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/console/dist ./console/dist
COPY --chown=node:node package.json ./
# /data is only used without DATABASE_URL (embedded PGlite, one container): mount a volume there
# yourself (-v parley-data:/data). No VOLUME here, so PostgreSQL deployments get no unused volume.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The server runs migrations and seeds an empty database (each under an advisory lock) before it
# listens; SIGTERM closes idle connections at once and lets in-flight requests finish.
CMD ["node", "dist/main.js"]
