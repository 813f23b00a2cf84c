# The Cairn server image (deploy/kubernetes, README.md#kubernetes): Node 24 runs the TypeScript
# sources as they are, so the image is the repository with its production dependencies.
#   docker build -t registry.example.com/cairn/server:0.1.0 .
FROM node:24-bookworm-slim
WORKDIR /app
COPY . .
# No install scripts: better-sqlite3 and @node-rs/argon2 ship their binaries prebuilt (the one
# other script is a telemetry ping), so no compiler is needed.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# The data directory (a volume in the Deployment); with PostgreSQL nothing lasting is written there.
RUN mkdir -p /var/lib/cairn && chown node:node /var/lib/cairn
# The image's unprivileged `node` user (uid 1000), as the Deployment's securityContext expects.
USER node
ENV NODE_ENV=production \
  SVC_HOST=0.0.0.0 \
  SVC_PORT=8090 \
  SVC_DATA_DIR=/var/lib/cairn
EXPOSE 8090
# A 16 MiB young generation (V8 sizes it for the machine: 64 MiB halves, 128 MiB resident after an
# import); the search threads set theirs in code (docs/memory.md#what-the-server-keeps-in-memory).
CMD ["node", "--max-semi-space-size=16", "platform/serve.ts"]
