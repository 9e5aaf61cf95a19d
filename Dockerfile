# syntax=docker/dockerfile:1
# One image recipe for every app: docker build --build-arg APP=<app> -t model-gateway/<app> .
# APP is one of api-gateway, auth, inference, media, storage, billing, mock-upstream.

FROM node:22-bookworm-slim AS build
ARG APP
RUN test -n "$APP" || (echo "build with --build-arg APP=<app>" >&2; exit 1)
WORKDIR /src
# A daemon would outlive the build step it starts in.
ENV NX_DAEMON=false
COPY package.json package-lock.json .npmrc ./
# `npm ci` rejects this lockfile (it lacks other platforms' optional binaries); `npm install`
# honours it as is. Building needs no install script, and the image's npm may predate the
# allowScripts policy in package.json, so scripts are skipped instead of trusted.
RUN npm install --ignore-scripts --no-audit --no-fund
COPY . .
RUN npx nx build "$APP"

FROM node:22-bookworm-slim AS runtime
ARG APP
ENV NODE_ENV=production APP=${APP}
WORKDIR /app
# Files stay owned by root: the app user can read, not rewrite, its own code.
COPY --from=build /src/dist/apps/${APP}/ ./
# Only the dependencies webpack left external (listed in the generated package.json); no
# production dependency needs an install script.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# CATALOGUE_FILE defaults to config/catalogue.demo.json, resolved from the working directory.
COPY --from=build /src/config/ ./config/
# The healthcheck must serve every app from one image: the gateway and the mock upstream answer
# on their HTTP port, the NATS-only services on HEALTH_PORT (nothing to probe when it is 0).
COPY <<'EOF_HEALTHCHECK' /app/healthcheck.cjs
const env = process.env;
const url =
  env.APP === 'api-gateway' ? `http://127.0.0.1:${env.PORT || 3000}/api/health`
  : env.APP === 'mock-upstream' ? `http://127.0.0.1:${env.PORT || 4010}/health`
  : Number(env.HEALTH_PORT) > 0 ? `http://127.0.0.1:${env.HEALTH_PORT}/readyz`
  : null;
if (!url) process.exit(0);
fetch(url, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
EOF_HEALTHCHECK
# Numeric, so Kubernetes can verify runAsNonRoot; 1000 is the image's `node` user.
USER 1000:1000
EXPOSE 3000 4010 8081
# Start-up includes the app's own (advisory-locked) migrations.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/healthcheck.cjs"]
CMD ["node", "main.js"]
