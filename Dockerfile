# The Cairn server image (deploy/kubernetes, README.md#kubernetes): Node 24 runs the TypeScript
# sources as they are, so the image is the repository with its production dependencies.
#   docker build -t registry.example.com/cairn/server:0.1.0 .
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 and argon2 install prebuilt binaries; the compiler is the fallback for a platform
# without one.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY . .
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# The data directory (a volume in the Deployment); with PostgreSQL nothing lasting is written there.
RUN mkdir -p /var/lib/cairn && chown node:node /var/lib/cairn
# The image's unprivileged `node` user (uid 1000), as the Deployment's securityContext expects.
USER node
ENV NODE_ENV=production \
  SVC_HOST=0.0.0.0 \
  SVC_PORT=8090 \
  SVC_DATA_DIR=/var/lib/cairn
EXPOSE 8090
CMD ["node", "platform/serve.ts"]
