# One image for every Trellis process; docker-compose.yml picks the command per service.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit
COPY . .
RUN npm run build && node dist/server/dashboard/build.js && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY --from=build /app /app
USER node
EXPOSE 8080
CMD ["node", "dist/server/main.js"]
