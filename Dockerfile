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
# Node with the flags of every Trellis process (server/node-flags.ts says why; not NODE_OPTIONS, which refuses some
# of them); docker-compose.yml's services only name the script.
ENTRYPOINT ["node", "--max-semi-space-size=32", "--no-memory-reducer"]
CMD ["dist/server/main.js"]
